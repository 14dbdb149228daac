// Launches replayed as CUDA graphs (WhatIf::graphedSteps, model/whatif): a launch-bound stretch
// made one graph runs its kernels back to back, and a host sync between the launches splits them
// into two graphs. The rest of the what-if replay: test_whatif_replay.cpp.
#include "model/whatif/replay.h"
#include "model/whatif/run_graph.h"
#include "tests/model/insight_fixture.h"
#include "tests/model/whatif_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <numeric>

using namespace stallscope;
using format::SyncKind;
using model::whatif::Replayer;
using model::whatif::RunGraph;
using model::whatif::WhatIf;
using testing::Built;
using testing::lastGpuEnd;
using testing::syncsOfStack;

namespace {

// The run graph of `path`, and the change that makes the launches of its first `count` operations
// CUDA graphs (graphedStepRanges); no graph when `path` cannot be loaded (which failed the test).
std::pair<std::unique_ptr<Built>, WhatIf> asCudaGraphs(const std::string& path, uint32_t count) {
    std::unique_ptr<Built> built = testing::buildGraph(path);
    if (!built)
        return {};
    std::vector<uint32_t> ops(count);
    std::iota(ops.begin(), ops.end(), 0u);
    WhatIf change;
    change.graphedSteps = model::whatif::graphedStepRanges(built->graph, ops);
    return {std::move(built), std::move(change)};
}

} // namespace

class TestWhatIfGraphs : public QObject {
    Q_OBJECT
private slots:
    void graphedLaunchesRunBackToBack();
    void hostSyncSplitsTheGraph();

private:
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

// A launch-bound stretch: 40 launches 10 µs apart, each 2 µs kernel 5 µs after its call (the
// GPU idle 8 µs between kernels). As one CUDA graph the first launch stays, the other calls and
// the host time between them go, and each later kernel runs WhatIf::graphGapNs (0.25 µs) after
// its predecessor: 7.75 µs sooner per kernel.
void TestWhatIfGraphs::graphedLaunchesRunBackToBack() {
    testing::InsightFixture fixture(path("graphed.stallscope"), 10'000'000);
    constexpr int kLaunches = 40;
    constexpr int64_t t0 = 1'000'000;
    for (int i = 0; i < kLaunches; ++i)
        fixture.launch(t0 + 10'000 * i, t0 + 10'000 * i + 5'000, t0 + 10'000 * i + 7'000);
    QVERIFY(fixture.load().ok());
    auto [built, asGraph] = asCudaGraphs(path("graphed.stallscope"), kLaunches);
    QVERIFY(built);
    const RunGraph& graph = built->graph;
    QCOMPARE(asGraph.graphedSteps.size(), size_t(1));
    QCOMPARE(asGraph.graphedSteps[0].first, graph.launchStep(0));
    QCOMPARE(asGraph.graphedSteps[0].last, graph.launchStep(kLaunches - 1));
    // The lookup the launch-bound rule uses: a kernel row of the stream lane is its operation.
    QCOMPARE(graph.opOf(0, RunGraph::OpKind::Kernel, 7), uint32_t(7));
    QCOMPARE(graph.opOf(0, RunGraph::OpKind::Memcpy, 0), model::whatif::kNone);
    QCOMPARE(graph.opOf(0, RunGraph::OpKind::Kernel, kLaunches), model::whatif::kNone);

    model::whatif::ReplayOptions options;
    options.windowEndNs = lastGpuEnd(*built->session);
    options.keepShifts = true;
    const Replayer replayer(graph);
    const model::whatif::ReplayResult plain = replayer.replay(WhatIf{}, options);
    const model::whatif::ReplayResult graphed = replayer.replay(asGraph, options);
    QCOMPARE(plain.windowEndNs, t0 + 10'000 * (kLaunches - 1) + 7'000);
    QCOMPARE(plain.windowEndNs - graphed.windowEndNs, int64_t(kLaunches - 1) * 7'750);
    // The first launch keeps its place; every later call runs when the first has ended.
    QCOMPARE(graphed.stepShift[graph.launchStep(0)], int64_t(0));
    QCOMPARE(graphed.stepShift[graph.launchStep(kLaunches - 1)],
             t0 + 500 - (t0 + 10'000 * (kLaunches - 1)));
    QCOMPARE(graphed.opEndShift[1], int64_t(10'000 - 2'250) * -1);
    // The nodes' spacing is the change's, not a recorded delay.
    asGraph.graphGapNs = 600;
    QCOMPARE(plain.windowEndNs - replayer.replay(asGraph, options).windowEndNs,
             int64_t(kLaunches - 1) * (10'000 - 2'600));

    // A range of one step, another thread's or reversed changes nothing.
    WhatIf nothing;
    nothing.graphedSteps = {{graph.launchStep(3), graph.launchStep(3)},
                            {graph.launchStep(9), graph.launchStep(4)},
                            {graph.launchStep(0), uint32_t(graph.stepCount())}};
    QCOMPARE(replayer.replay(nothing, options).windowEndNs, plain.windowEndNs);
    QCOMPARE(model::whatif::graphedStepRanges(graph, std::vector<uint32_t>{5}).size(), size_t(0));
}

// The same stretch with a host sync after launch 20 (waiting for its kernel): a graph cannot
// wait for the host, so the launches make two graphs, one on each side of the sync.
void TestWhatIfGraphs::hostSyncSplitsTheGraph() {
    testing::InsightFixture fixture(path("graph_split.stallscope"), 10'000'000);
    constexpr int kLaunches = 40;
    constexpr int64_t t0 = 1'000'000;
    const int64_t stack = fixture.pythonStack("train.py", 7, "main");
    for (int i = 0; i < kLaunches; ++i) {
        const int64_t at = t0 + 10'000 * i + (i >= 20 ? 10'000 : 0);
        fixture.launch(at, at + 5'000, at + 7'000);
        if (i == 19)
            fixture.sync(SyncKind::Stream, at + 1'000, at + 8'000, stack, fixture.stream);
    }
    QVERIFY(fixture.load().ok());
    const auto [built, asGraphs] = asCudaGraphs(path("graph_split.stallscope"), kLaunches);
    QVERIFY(built);
    const RunGraph& graph = built->graph;
    QCOMPARE(asGraphs.graphedSteps.size(), size_t(2));
    QCOMPARE(asGraphs.graphedSteps[0].first, graph.launchStep(0));
    QCOMPARE(asGraphs.graphedSteps[0].last, graph.launchStep(19));
    QCOMPARE(asGraphs.graphedSteps[1].first, graph.launchStep(20));
    QCOMPARE(asGraphs.graphedSteps[1].last, graph.launchStep(kLaunches - 1));

    model::whatif::ReplayOptions options;
    options.windowEndNs = lastGpuEnd(*built->session);
    const Replayer replayer(graph);
    const int64_t before = replayer.replay(WhatIf{}, options).windowEndNs;
    const int64_t after = replayer.replay(asGraphs, options).windowEndNs;
    QCOMPARE(before, t0 + 10'000 * kLaunches + 7'000);
    // Graph 1: kernel 19 ends at t0 + 7 µs + 19 x 2.25 µs. The sync (0.5 µs after the last call)
    // returns 1 µs after it, its recorded wake-up. The second graph's launch follows the recorded
    // 12 µs of CPU time before it less the thread's typical 9.5 µs between two calls (its first
    // kernel's dispatch, which a graph's launch does not run); its first kernel 5 µs after that,
    // and its 19 others 2.25 µs apart.
    const int64_t kernel19 = t0 + 7'000 + 19 * 2'250;
    const int64_t launch20 = kernel19 + 1'000 + 12'000 - 9'500;
    QCOMPARE(after, launch20 + 5'000 + 2'000 + 19 * 2'250);
    // One range over the sync: the replay splits it there too.
    WhatIf across;
    across.graphedSteps = {{graph.launchStep(0), graph.launchStep(kLaunches - 1)}};
    QCOMPARE(replayer.replay(across, options).windowEndNs, after);
    // With the sync removed as well nothing waits for the host: one graph, 40 kernels 2.25 µs
    // apart.
    across.removedSyncs = syncsOfStack(*built->session, stack);
    across.removeStatementTime = true;
    QCOMPARE(replayer.replay(across, options).windowEndNs, t0 + 7'000 + (kLaunches - 1) * 2'250);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestWhatIfGraphs)
#include "test_whatif_graphs.moc"
