// A device-wide sync beside a side stream's long, narrow kernel (issue 38, measured on
// cu_device_sync_busy_stream): the fix, a sync on the host's own stream, lets the side kernel run
// beside the main stream's work. A kernel launched on fewer blocks than the GPU has SMs leaves the
// other SMs free, so its time does not cap the saving the way the GPU's busy time does
// (GpuActivity::fillingBusy); one that fills the GPU does.
#include "model/analysis/gpu_activity.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using testing::insightAt;
using testing::InsightFixture;
using Kind = format::SyncKind;

namespace {

constexpr int64_t kSideStreamLoopStartNs = 1'000'000'000;
constexpr int kCycles = 30;
// A cycle of five steps: the first starts a 2 ms side kernel that its device-wide sync waits
// for (2.1 ms); the others are 400 µs of main work and 100 µs of host work (0.5 ms each).
constexpr int64_t kCycleNs = 4'100'000;
constexpr int64_t kSideNs = 2'000'000;

} // namespace

class TestSideStreamFix : public QObject {
    Q_OBJECT
private slots:
    void narrowSideKernelDoesNotCapSaving_data();
    void narrowSideKernelDoesNotCapSaving();
    void smallestGridOfEachName();

private:
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

void TestSideStreamFix::narrowSideKernelDoesNotCapSaving_data() {
    QTest::addColumn<int>("sideBlocks");
    QTest::addColumn<bool>("capped");
    // The fixture's GPU has 132 SMs: one block fewer leaves room beside it, as many fill it.
    QTest::newRow("131 blocks: room beside it") << 131 << false;
    QTest::newRow("8 blocks: room beside it") << 8 << false;
    QTest::newRow("132 blocks: fills the GPU") << 132 << true;
}

void TestSideStreamFix::narrowSideKernelDoesNotCapSaving() {
    QFETCH(int, sideBlocks);
    QFETCH(bool, capped);
    InsightFixture f(path("side-kernel.stallscope"), 2'000'000'000);
    const int64_t side = f.addStream(9);
    const int64_t stack = f.nativeStack("/src/filter.cu", 128, "step");
    for (int c = 0; c < kCycles; ++c) {
        const int64_t t0 = kSideStreamLoopStartNs + c * kCycleNs;
        // The side kernel first: the host's own stream is the one it launched to last.
        f.setKernelName("analysis");
        f.setKernelBlocks(sideBlocks);
        f.launch(t0, t0 + 10'000, t0 + 10'000 + kSideNs, side);
        f.setKernelName("propagate");
        f.setKernelBlocks(1024);
        f.launch(t0 + 20'000, t0 + 30'000, t0 + 430'000);
        f.sync(Kind::Device, t0 + 40'000, t0 + 25'000 + kSideNs, stack);
        for (int k = 1; k < 5; ++k) {
            const int64_t tk = t0 + 2'100'000 + (k - 1) * 500'000;
            f.setKernelName("propagate");
            f.setKernelBlocks(1024);
            f.launch(tk, tk + 10'000, tk + 410'000);
            f.sync(Kind::Device, tk + 20'000, tk + 425'000, stack);
        }
    }
    const auto loaded = f.load();
    QVERIFY(loaded.ok());

    // The filling busy time leaves out exactly the narrow side kernels.
    model::GpuActivity gpu;
    QVERIFY(gpu.build(*loaded.session, nullptr));
    const int64_t mainNs = kCycles * 5 * 400'000;
    QCOMPARE(gpu.fillingBusy(0).totalNs, capped ? gpu.busy(0).totalNs : mainNs);
    QVERIFY(gpu.busy(0).totalNs > mainNs);

    const model::InsightReport report = loaded.analyze();
    const model::Insight* sync = insightAt(report, 128);
    QVERIFY(sync);
    QCOMPARE(sync->assumption, std::string("if it waited for its own stream's work alone"));
    // Narrowed, each cycle takes five steps of 0.5 ms instead of 4.1 ms: 1.6 ms saved a cycle,
    // less the first cycle's and the window's edges. The GPU's recorded idle time, the cap when
    // the side kernel fills the GPU, is 0.5 ms a cycle.
    const int64_t uncapped = (kCycles - 2) * 1'600'000;
    const int64_t idle = kCycles * 500'000 + 100'000;
    if (capped)
        QVERIFY2(sync->savingsNs <= idle, std::to_string(sync->savingsNs).c_str());
    else
        QVERIFY2(sync->savingsNs >= uncapped, std::to_string(sync->savingsNs).c_str());
}

void TestSideStreamFix::smallestGridOfEachName() {
    // Names 1..4 over two streams: 1 launched on 4 and on 200 blocks, 2 always on 200, 3 once
    // without a known grid, 4 past the saturation; 5 never launched.
    model::Session session;
    session.strings.assign(6, "k");
    session.streamLanes.resize(2);
    auto launch = [&](int lane, uint32_t name, uint16_t blocks) {
        model::KernelColumns& kernels = session.streamLanes[lane].kernels;
        const int64_t t = int64_t(kernels.size()) * 10;
        kernels.pushInterval(t, t + 5, uint32_t(kernels.size() + 1));
        kernels.nameId.push_back(name);
        kernels.correlationId.push_back(0);
        kernels.blocks.push_back(blocks);
    };
    launch(0, 1, 200);
    launch(1, 1, 4);
    launch(0, 2, 200);
    launch(1, 2, 200);
    launch(0, 3, 300);
    launch(1, 3, model::KernelColumns::kBlocksUnknown);
    launch(1, 4, model::KernelColumns::blocksOfGrid(1 << 20, 1 << 20, 1));
    const std::vector<std::pair<uint32_t, int64_t>> expected = {
        {1, 4}, {2, 200}, {3, 0}, {4, model::KernelColumns::kMaxBlocks}};
    QCOMPARE(model::GpuActivity::smallestGridByName(session), expected);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSideStreamFix)
#include "test_side_stream_fix.moc"
