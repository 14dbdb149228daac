// KernelLaunchIndex: which correlation ids launched a kernel, and how many kernels lie between two
// ids (a light recording's launches between two syncs), on both of its stores — the bitmap of
// dense ids and the sorted list of sparse ones — against a count of the ids themselves, across
// the bitmap's 64-bit words.
#include "model/analysis/kernel_launch_index.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <algorithm>
#include <vector>

using namespace stallscope;

class TestKernelLaunchIndex : public QObject {
    Q_OBJECT
private slots:
    void countsKernelsBetweenIds_data() {
        QTest::addColumn<int>("spacing");
        QTest::newRow("dense ids: bitmap") << 1;
        QTest::newRow("sparse ids: sorted list") << 100'000;
    }
    void countsKernelsBetweenIds() {
        QFETCH(int, spacing);
        // Ids on both sides of word edges (63 | 64, 127 | 128) and a gap.
        std::vector<uint32_t> ids;
        for (uint32_t id : {1u, 3u, 62u, 63u, 64u, 65u, 127u, 128u, 129u, 200u, 255u, 256u})
            ids.push_back(id * static_cast<uint32_t>(spacing));
        testing::InsightFixture fixture(
            m_dir.file(spacing == 1 ? "dense.stallscope" : "sparse.stallscope"));
        int64_t t = 1'000;
        for (uint32_t id : ids) {
            fixture.kernel(t, t + 500, id);
            t += 1'000;
        }
        const testing::LoadedFixture loaded = fixture.load();
        QVERIFY(loaded.ok());
        model::KernelLaunchIndex index;
        index.build(*loaded.session);
        QVERIFY(!index.callsRecorded(0)); // kernels alone, as a light recording has them
        const uint32_t top = 260u * static_cast<uint32_t>(spacing);
        const uint32_t step = spacing == 1 ? 1 : static_cast<uint32_t>(spacing) / 2;
        for (uint32_t after = 0; after <= top; after += step)
            for (uint32_t before = after; before <= top; before += step) {
                const auto expected = std::count_if(
                    ids.begin(), ids.end(), [&](uint32_t id) { return id > after && id < before; });
                QCOMPARE(index.kernelsBetween(0, after, before), static_cast<uint32_t>(expected));
            }
        QCOMPARE(index.kernelsBetween(0, top, 0), 0u); // reversed
        QCOMPARE(index.kernelsBetween(1, 0, top), 0u); // no such process
        QVERIFY(index.isKernelLaunch(0, ids.front()));
        QVERIFY(!index.isKernelLaunch(0, ids.front() + 1));
    }

    void launchCallsMarkTheProcess() {
        testing::InsightFixture fixture(m_dir.file("calls.stallscope"));
        fixture.launch(1'000, 2'000, 3'000);
        const testing::LoadedFixture loaded = fixture.load();
        QVERIFY(loaded.ok());
        model::KernelLaunchIndex index;
        index.build(*loaded.session);
        QVERIFY(index.callsRecorded(0));
        QVERIFY(!index.callsRecorded(-1));
    }

private:
    testing::ScratchDir m_dir;
};

STALLSCOPE_TEST_GUILESS_MAIN(TestKernelLaunchIndex)
#include "test_kernel_launch_index.moc"
