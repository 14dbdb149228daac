// The what-if replay without the recorder's own cost (WhatIf::withoutRecorderOverhead, the costs
// from the session's meta recorder_*_overhead_ns) and with the GPU's deep-queue delay (meta
// gpu_deep_queue_delay_ns): hand-computed answers on small timelines, both sides of each bound,
// and meta values a recorder could not have written.
#include "format/session_meta.h"
#include "model/whatif/replay.h"
#include "model/whatif/run_graph.h"
#include "tests/model/insight_fixture.h"
#include "tests/model/whatif_fixture.h"
#include "tests/support/test_suite.h"

#include <QFile>

#include <QTemporaryDir>
#include <QTest>
#include <functional>
#include <numeric>

using namespace stallscope;
using format::SyncKind;
using model::whatif::Replayer;
using model::whatif::WhatIf;
using testing::buildGraph;
using testing::Built;
using testing::lastGpuEnd;
using testing::stepStarts;
using testing::syncsOfStack;

namespace {

void setRecorderCost(testing::InsightFixture& fixture, const char* restartNs,
                     const char* launchNs) {
    fixture.writer().setMeta(format::meta::kRecorderRestartOverheadNs, restartNs);
    fixture.writer().setMeta(format::meta::kRecorderLaunchOverheadNs, launchNs);
}

// Ten launch calls 10 µs apart, each 500 ns long, their 2 µs kernels starting 3 µs after the call,
// written to `file` with the recorder's costs (none when `restartNs` is empty) and the GPU's
// deep-queue delay (none when `delayNs` is empty), and loaded. Null when that failed (which failed
// the test).
std::unique_ptr<Built> launchLoop(const std::string& file, const QString& restartNs,
                                  const QString& launchNs, const QString& delayNs = {}) {
    QFile::remove(QString::fromStdString(file));
    testing::InsightFixture fixture(file, 10'000'000);
    for (const int64_t t : stepStarts(10, 10'000))
        fixture.launch(t, t + 3'000, t + 5'000);
    if (!restartNs.isEmpty())
        setRecorderCost(fixture, restartNs.toUtf8().constData(), launchNs.toUtf8().constData());
    if (!delayNs.isEmpty())
        fixture.writer().setMeta(format::meta::kGpuDeepQueueDelayNs, delayNs.toUtf8().constData());
    if (!fixture.load().ok())
        return nullptr;
    return buildGraph(file);
}

// A C++ loop of `steps` iterations: four launch calls 1 µs apart, their 50 µs kernels one after
// the other (the first 8 µs after its call, each next one 1 µs after its predecessor), then a
// cudaStreamSynchronize that returns 3 µs after the last kernel; the next iteration 1 µs later.
// Only the iterations for which `synced` is true sync; the others go straight on. The GPU's
// deep-queue delay in the meta is `delayNs` (none when empty). Null when the loop cannot be written
// or loaded (which failed the test).
std::unique_ptr<Built> queueLoop(const std::string& file, int steps,
                                 const std::function<bool(int)>& synced, const QString& delayNs,
                                 int64_t* stack) {
    QFile::remove(QString::fromStdString(file));
    testing::InsightFixture fixture(file, 100'000'000);
    *stack = fixture.nativeStack("loop.cu", 90, "runLoop");
    int64_t t = 1'000'000, gpuFree = 0;
    for (int i = 0; i < steps; ++i) {
        for (int k = 0; k < 4; ++k) {
            const int64_t start = std::max(t + 8'000, gpuFree + 1'000);
            fixture.launch(t, start, start + 50'000);
            gpuFree = start + 50'000;
            t += 1'000;
        }
        if (synced(i)) {
            fixture.sync(SyncKind::Stream, t, gpuFree + 3'000, *stack, fixture.stream);
            t = gpuFree + 4'000;
        } else {
            t += 1'000;
        }
    }
    setRecorderCost(fixture, "0", "0");
    if (!delayNs.isEmpty())
        fixture.writer().setMeta(format::meta::kGpuDeepQueueDelayNs, delayNs.toUtf8().constData());
    if (!fixture.load().ok())
        return nullptr;
    return buildGraph(file);
}

// Replayed - recorded start of each kernel of the session's first stream.
std::vector<int64_t> kernelStartShifts(const Built& built, const WhatIf& changes) {
    model::whatif::ReplayOptions options;
    options.keepShifts = true;
    return Replayer(built.graph).replay(changes, options).opStartShift;
}

WhatIf withoutRecorder(WhatIf changes = {}) {
    changes.withoutRecorderOverhead = true;
    return changes;
}

} // namespace

class TestWhatIfRecorderCost : public QObject {
    Q_OBJECT

private slots:
    void recorderCostLeavesTheRestarts();
    void recorderCostShortensLaunchCalls_data();
    void recorderCostShortensLaunchCalls();
    void recorderCostFromHostileMeta_data();
    void recorderCostFromHostileMeta();
    void graphLaunchLeavesTheRestartCost();
    void deepQueueDelaysKernelsWithEightQueued();
    void deepQueueDelayComesOffAnEmptiedQueue();

private:
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

// A C++ loop: each 212 µs step launches a 200 µs kernel that starts 8 µs after its launch call and
// waits for it (3 µs wake-up, 1 µs to the next launch). The recorder measured 2 µs of its own in
// each restart: without it, every kernel that followed a sync starts 2 µs sooner in the "before"
// replay, while in the "after" replay only the first one is not queued behind another. The saving
// shrinks by 2 µs per removed sync; the unmodified replay still reproduces the recording.
void TestWhatIfRecorderCost::recorderCostLeavesTheRestarts() {
    testing::InsightFixture fixture(path("restart_cost.stallscope"), 100'000'000);
    const int64_t stack = fixture.nativeStack("loop.cu", 90, "runLoop");
    constexpr int kSteps = 12;
    for (const int64_t t0 : stepStarts(kSteps, 212'000)) {
        fixture.launch(t0, t0 + 8'000, t0 + 208'000);
        fixture.sync(SyncKind::Stream, t0 + 1'000, t0 + 211'000, stack, fixture.stream);
    }
    setRecorderCost(fixture, "2000", "300");
    QVERIFY(fixture.load().ok());
    const std::string file = path("restart_cost.stallscope");
    testing::checkReplayIdentity(file);
    const std::unique_ptr<Built> built = buildGraph(file);
    QVERIFY(built);
    QCOMPARE(built->graph.latencies().recorderRestartNs, int64_t(2'000));
    QCOMPARE(built->graph.latencies().recorderLaunchNs, int64_t(300));
    model::whatif::ReplayOptions options;
    options.windowEndNs = lastGpuEnd(*built->session);
    const Replayer replayer(built->graph);
    WhatIf fix;
    fix.removedSyncs = syncsOfStack(*built->session, stack);
    const int64_t before = replayer.replay({}, options).windowEndNs;
    const int64_t after = replayer.replay(fix, options).windowEndNs;
    const int64_t plainBefore = replayer.replay(withoutRecorder(), options).windowEndNs;
    const int64_t plainAfter = replayer.replay(withoutRecorder(fix), options).windowEndNs;
    QCOMPARE(before, options.windowEndNs);
    QCOMPARE(before - plainBefore, int64_t(kSteps) * 2'000);
    QCOMPARE(after - plainAfter, int64_t(2'000));
    QCOMPARE((before - after) - (plainBefore - plainAfter), int64_t(kSteps - 1) * 2'000);
}

// The launch loop (launchLoop) is host-bound. Without the recorder's launch cost each call ends
// sooner (by at most its own length), so each later launch comes sooner; the restart cost moves
// each kernel by at most half its launch-to-start time.
void TestWhatIfRecorderCost::recorderCostShortensLaunchCalls_data() {
    QTest::addColumn<QString>("restartNs");
    QTest::addColumn<QString>("launchNs");
    QTest::addColumn<qint64>("sooner");
    QTest::newRow("launch cost") << "0"
                                 << "300" << qint64(9 * 300);
    QTest::newRow("launch cost past the call") << "0"
                                               << "800" << qint64(9 * 500);
    QTest::newRow("restart past half the lag") << "10000"
                                               << "300" << qint64(9 * 300 + 1'500);
    QTest::newRow("restart under half the lag") << "1000"
                                                << "0" << qint64(1'000);
    QTest::newRow("not measured") << ""
                                  << "" << qint64(0);
}

void TestWhatIfRecorderCost::recorderCostShortensLaunchCalls() {
    QFETCH(QString, restartNs);
    QFETCH(QString, launchNs);
    QFETCH(qint64, sooner);
    const std::unique_ptr<Built> built =
        launchLoop(path("launch_cost.stallscope"), restartNs, launchNs);
    QVERIFY(built);
    model::whatif::ReplayOptions options;
    options.windowEndNs = lastGpuEnd(*built->session);
    const Replayer replayer(built->graph);
    QCOMPARE(replayer.replay({}, options).windowEndNs, options.windowEndNs);
    QCOMPARE(options.windowEndNs - replayer.replay(withoutRecorder(), options).windowEndNs, sooner);
}

// The costs and the delay come from a file: only counts a recorder could have measured are used.
void TestWhatIfRecorderCost::recorderCostFromHostileMeta_data() {
    QTest::addColumn<QString>("value");
    QTest::addColumn<qint64>("read");
    QTest::newRow("largest") << "100000" << qint64(100'000);
    QTest::newRow("past the largest") << "100001" << qint64(0);
    QTest::newRow("negative") << "-5" << qint64(0);
    QTest::newRow("text") << "2us" << qint64(0);
    QTest::newRow("huge") << "99999999999999999999999" << qint64(0);
}

void TestWhatIfRecorderCost::recorderCostFromHostileMeta() {
    QFETCH(QString, value);
    QFETCH(qint64, read);
    const std::unique_ptr<Built> built =
        launchLoop(path("hostile_cost.stallscope"), value, value, value);
    QVERIFY(built);
    QCOMPARE(built->graph.latencies().recorderRestartNs, read);
    QCOMPARE(built->graph.latencies().recorderLaunchNs, read);
    QCOMPARE(built->graph.latencies().deepQueueDelayNs, read);
    QCOMPARE(built->graph.launchesWork(built->graph.threads()[0].firstStep), read > 0);
}

// Ten launch calls 10 µs apart (500 ns each), their 2 µs kernels starting 3 µs after the call:
// the first on the default stream, the nine others on a second one. As one CUDA graph, the second
// stream's first kernel is bound by the graph's launch: it starts the typical 3 µs launch latency
// after the first call ends (the later calls run at once), less the recorder's restart cost (2 µs,
// at most half the 3 µs lag) where that is left out; the others follow it WhatIf::graphGapNs
// apart. Without the recorder the call is also its 300 ns launch cost shorter: 1.8 µs sooner.
void TestWhatIfRecorderCost::graphLaunchLeavesTheRestartCost() {
    const std::string file = path("graph_cost.stallscope");
    {
        testing::InsightFixture fixture(file, 10'000'000);
        fixture.setKernelBlocks(8); // narrow kernels: the two streams' may run side by side
        const int64_t second = fixture.addStream(8);
        const std::vector<int64_t> starts = stepStarts(10, 10'000);
        for (size_t i = 0; i < starts.size(); ++i)
            fixture.launch(starts[i], starts[i] + 3'000, starts[i] + 5'000,
                           i == 0 ? std::optional<int64_t>{} : second);
        setRecorderCost(fixture, "2000", "300");
        QVERIFY(fixture.load().ok());
    }
    const std::unique_ptr<Built> built = buildGraph(file);
    QVERIFY(built);
    const model::whatif::RunGraph& graph = built->graph;
    std::vector<uint32_t> ops(graph.opCount());
    std::iota(ops.begin(), ops.end(), 0u);
    WhatIf asGraph;
    asGraph.graphedSteps = model::whatif::graphedStepRanges(graph, ops);
    QCOMPARE(asGraph.graphedSteps.size(), size_t(1));
    model::whatif::ReplayOptions options;
    options.windowEndNs = lastGpuEnd(*built->session);
    const Replayer replayer(graph);
    const int64_t recorded = replayer.replay(asGraph, options).windowEndNs;
    QCOMPARE(recorded, 1'000'500 + 3'000 + 9 * 2'000 + 8 * asGraph.graphGapNs);
    QCOMPARE(recorded - replayer.replay(withoutRecorder(asGraph), options).windowEndNs,
             int64_t(300 + 1'500));
}

// The loop (queueLoop) with two of every three syncs removed: twelve kernels are launched within
// 18 µs while the first of them runs. Kernels 1 to 4 of each twelve have eight or more launches
// queued behind their predecessor's end (kernel 4: itself and kernels 5 to 11), kernel 5 only
// seven (5 to 11; kernel 12 waits for the kept sync), kernel 0 none. In the recording, a sync
// after every four kept every queue shallow. So the fix's replay starts kernels 1 to 4 of each
// twelve 700 ns later each than it would without the delay, and no other kernel; the unmodified
// replay is the recording.
void TestWhatIfRecorderCost::deepQueueDelaysKernelsWithEightQueued() {
    constexpr int kSteps = 9;
    int64_t stack = 0;
    const auto everyStep = [](int) { return true; };
    const std::unique_ptr<Built> delayed =
        queueLoop(path("deep_queue.stallscope"), kSteps, everyStep, "700", &stack);
    QVERIFY(delayed);
    QCOMPARE(delayed->graph.latencies().deepQueueDelayNs, int64_t(700));
    testing::checkReplayIdentity(path("deep_queue.stallscope"));
    const std::unique_ptr<Built> undelayed =
        queueLoop(path("no_delay.stallscope"), kSteps, everyStep, "", &stack);
    QVERIFY(undelayed);
    QCOMPARE(undelayed->graph.latencies().deepQueueDelayNs, int64_t(0));

    // The syncs of every iteration but each third one.
    const auto fixOf = [stack](const Built& built) {
        WhatIf fix;
        for (const model::EventRef& sync : syncsOfStack(*built.session, stack))
            if (sync.index % 3 != 2)
                fix.removedSyncs.push_back(sync);
        return fix;
    };
    const std::vector<int64_t> withDelay = kernelStartShifts(*delayed, fixOf(*delayed));
    const std::vector<int64_t> withoutDelay = kernelStartShifts(*undelayed, fixOf(*undelayed));
    QCOMPARE(withDelay.size(), size_t(4 * kSteps));
    QCOMPARE(withoutDelay.size(), withDelay.size());
    QVERIFY(withoutDelay.back() < -60'000); // 6 restarts of 12 µs became 1 µs queued gaps
    for (size_t k = 1; k < withDelay.size(); ++k) {
        const int64_t added =
            (withDelay[k] - withoutDelay[k]) - (withDelay[k - 1] - withoutDelay[k - 1]);
        const size_t position = k % 12;
        QCOMPARE(added, position >= 1 && position <= 4 ? int64_t(700) : int64_t(0));
    }
    // Without a change the delay adds nothing, also where the recording's queue was deep.
    const auto groupsOfTwelve = [](int i) { return i % 3 == 2; };
    const std::unique_ptr<Built> deepRecorded =
        queueLoop(path("deep_recorded.stallscope"), kSteps, groupsOfTwelve, "700", &stack);
    QVERIFY(deepRecorded);
    testing::checkReplayIdentity(path("deep_recorded.stallscope"));
    const std::vector<int64_t> unchanged = kernelStartShifts(*deepRecorded, {});
    QCOMPARE(std::count(unchanged.begin(), unchanged.end(), 0), qsizetype(unchanged.size()));
}

// The other way: a kernel whose predecessor ended just as the eighth launch behind it was made (a
// deep queue in the recording) has a shallow one once the recorder's restart cost is out of the
// predecessor's start. It starts the delay sooner on top of that cost.
void TestWhatIfRecorderCost::deepQueueDelayComesOffAnEmptiedQueue() {
    std::vector<int64_t> shifts;
    for (const char* delay : {"500", "0"}) {
        const std::string file = path("emptied_queue.stallscope");
        QFile::remove(QString::fromStdString(file));
        testing::InsightFixture fixture(file, 100'000'000);
        // Kernel 0: launched at 1 ms, runs 1.010-1.060 ms (launch-bound, 10 µs after its call);
        // kernels 1 to 7 launched 1 µs apart from 1.001 ms; kernel 8 launched at 1.060 ms, as
        // kernel 0 ends. Each kernel starts 1 µs after its predecessor.
        fixture.launch(1'000'000, 1'010'000, 1'060'000);
        int64_t gpuFree = 1'060'000;
        for (int k = 1; k <= 8; ++k) {
            fixture.launch(k < 8 ? 1'000'000 + k * 1'000 : 1'060'000, gpuFree + 1'000,
                           gpuFree + 51'000);
            gpuFree += 51'000;
        }
        setRecorderCost(fixture, "2000", "0");
        fixture.writer().setMeta(format::meta::kGpuDeepQueueDelayNs, delay);
        QVERIFY(fixture.load().ok());
        testing::checkReplayIdentity(file);
        const std::unique_ptr<Built> built = buildGraph(file);
        QVERIFY(built);
        shifts.push_back(kernelStartShifts(*built, withoutRecorder())[1]);
    }
    QCOMPARE(shifts[1], int64_t(-2'000)); // kernel 0 started 2 µs sooner
    QCOMPARE(shifts[0], int64_t(-2'500));
}

STALLSCOPE_TEST_GUILESS_MAIN(TestWhatIfRecorderCost)
#include "test_whatif_recorder_cost.moc"
