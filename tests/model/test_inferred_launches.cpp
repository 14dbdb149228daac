// InferredLaunches (model/whatif/inferred_launches.h), through RunGraph: in a light recording each
// operation depends on the step after the last sync below its correlation id, on that sync's
// thread, from the sync's end; a sync's own copy on the sync itself; after a thread's last sync on
// that sync, from its start; before the first sync on nothing. A process with API calls keeps
// only what they say.
#include "model/whatif/run_graph.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <span>

using namespace stallscope;
using format::SyncKind;
using model::whatif::kNone;
using model::whatif::RunGraph;

class TestInferredLaunches : public QObject {
    Q_OBJECT
private slots:
    void lightRecording_data() {
        QTest::addColumn<bool>("light");
        QTest::newRow("light: inferred") << true;
        QTest::newRow("full: API calls only") << false;
    }
    void lightRecording() {
        QFETCH(bool, light);
        const std::string path = m_dir.file(light ? "light.stallscope" : "full.stallscope");
        testing::InsightFixture f(path);
        f.setLightRecording(light);
        const int64_t worker = f.addThread(4300);
        const int64_t stack = f.pythonStack("train.py", 10, "main");
        // Correlation ids in call order: kernel 1, sync 2 (main), kernel 3, sync 4 (worker),
        // kernel 5, sync 6 (main), copy 7 with its sync 7 (main), sync 8 (main).
        f.kernel(1'000, 2'000);
        f.sync(SyncKind::Stream, 3'000, 5'000, stack, f.stream);
        f.kernel(6'000, 7'000);
        f.sync(SyncKind::Device, 7'500, 8'000, stack, {}, worker);
        f.kernel(9'000, 9'500);
        f.sync(SyncKind::Stream, 10'000, 12'000, stack, f.stream);
        const int64_t copy =
            f.memcpy(13'500, 14'500, format::CopyKind::DtoH, format::MemoryKind::Device,
                     format::MemoryKind::Pageable, 4096, false);
        f.sync(SyncKind::PageableCopy, 13'000, 15'000, stack, f.stream, {}, copy);
        f.sync(SyncKind::Stream, 16'000, 17'000, stack, f.stream);
        const testing::LoadedFixture loaded = f.load();
        QVERIFY(loaded.ok());
        RunGraph graph;
        QVERIFY(graph.build(*loaded.session, std::span<const model::CudaEventInfo>(), nullptr));
        QCOMPARE(graph.launchesInferred(), light);

        // The main thread is the lane with four syncs, the worker the one with one.
        int32_t mainLane = -1, workerLane = -1;
        for (size_t l = 0; l < graph.threads().size(); ++l) {
            const size_t syncs = loaded.session->hostLanes[l].syncs.size();
            if (syncs == 4)
                mainLane = static_cast<int32_t>(l);
            else if (syncs == 1)
                workerLane = static_cast<int32_t>(l);
        }
        QVERIFY(mainLane >= 0 && workerLane >= 0);
        const RunGraph::HostThread& main = graph.threads()[mainLane];
        const RunGraph::HostThread& other = graph.threads()[workerLane];
        auto stepOf = [](const RunGraph::HostThread& thread, uint32_t sync) {
            return thread.firstStep + thread.stepOfSync[sync];
        };
        QCOMPARE(graph.opCount(), size_t(4)); // kernels 1, 3, 5 and the copy, one stream
        if (!light) {
            for (uint32_t op = 0; op < 4; ++op)
                if (op != 3) // the copy has its API call: the sync's own
                    QCOMPARE(graph.launchStep(op), kNone);
            return;
        }
        QCOMPARE(graph.launchStep(0), kNone);           // before the first sync
        QCOMPARE(graph.launchStep(1), stepOf(main, 1)); // after sync 2: main's next step
        QCOMPARE(graph.launchLag(1), int64_t(6'000 - 5'000));
        QCOMPARE(graph.launchStep(2), stepOf(other, 0)); // after the worker's only sync
        QCOMPARE(graph.launchLag(2), int64_t(9'000 - 7'500));
        QCOMPARE(graph.launchStep(3), stepOf(main, 2)); // the copy: its own sync
        QCOMPARE(graph.launchLag(3), int64_t(13'500 - 13'000));
    }

private:
    testing::ScratchDir m_dir;
};

STALLSCOPE_TEST_GUILESS_MAIN(TestInferredLaunches)
#include "test_inferred_launches.moc"
