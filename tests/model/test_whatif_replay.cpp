// The what-if replay (model/whatif): the unmodified replay reproduces every recorded and generated
// session, and replays with removed syncs give the hand-computed answers of small timelines
// (GPU-bound, host-bound and launch-bound loops, an event edge between streams, a device sync),
// also from light recordings (no API calls: the launches inferred). The recorder's own cost:
// test_whatif_recorder_cost.cpp; launches replayed as CUDA graphs: test_whatif_graphs.cpp.
#include "model/session/session_loader.h"
#include "model/testing/synthetic_session.h"
#include "model/whatif/replay.h"
#include "model/whatif/run_graph.h"
#include "tests/model/insight_fixture.h"
#include "tests/model/whatif_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <optional>

using namespace stallscope;
using format::SyncKind;
using model::whatif::Replayer;
using model::whatif::RunGraph;
using model::whatif::WhatIf;
using testing::buildGraph;
using testing::Built;
using testing::lastGpuEnd;
using testing::stepStarts;
using testing::syncsOfStack;

class TestWhatIfReplay : public QObject {
    Q_OBJECT

private slots:
    void unmodifiedReplayReproducesRecordedSessions_data();
    void unmodifiedReplayReproducesRecordedSessions();
    void unmodifiedReplayReproducesGeneratedSessions_data();
    void unmodifiedReplayReproducesGeneratedSessions();

    void gpuBoundLoopSavesOnlyTheBubbles();
    void hostBoundLoopSavesTheOverlap();
    void kernelTimeScaleStretchesTheWindowsKernels();
    void eventEdgeHoldsTheWaitingStream();
    void deviceSyncAwaitsEveryStream();
    void removedSyncCallDisappears_data();
    void removedSyncCallDisappears();
    void handoffMovesTheOtherThread();
    void inconsistentWaitsStillReplay();
    void lightRecordingInfersTheLaunches_data();
    void lightRecordingInfersTheLaunches();
    void lightRecordingOfARealLoop();

private:
    static void checkIdentity(const std::string& path);
    // gpuBoundLoopSavesOnlyTheBubbles' loop: kGpuBoundSteps steps kGpuBoundPeriod apart, each
    // three queued 1 ms kernels and a sync; returns the sync's stack.
    static constexpr int kGpuBoundSteps = 20;
    static constexpr int64_t kGpuBoundPeriod = 3'022'000;
    static std::optional<int64_t> writeGpuBoundLoop(const std::string& path);
    // The replayed end of the GPU work with the syncs of `stack` removed, and without changes.
    // These helpers give nothing when their session cannot be written or loaded (which failed the
    // test).
    static std::optional<std::pair<int64_t, int64_t>>
    replayWithout(const std::string& path, int64_t stack, bool removeStatementTime = false);
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

void TestWhatIfReplay::checkIdentity(const std::string& path) {
    testing::checkReplayIdentity(path);
}

void TestWhatIfReplay::unmodifiedReplayReproducesRecordedSessions_data() {
    QTest::addColumn<QString>("path");
    for (const char* file :
         {"resources/sample.stallscope", "resources/sample-cuda.stallscope",
          "resources/synthetic-sample.stallscope", "tests/format/data/format-v1.stallscope",
          "tests/model/data/light-pageable-copy.stallscope"})
        QTest::newRow(file) << QStringLiteral(STALLSCOPE_SOURCE_DIR "/") + file;
}

void TestWhatIfReplay::unmodifiedReplayReproducesRecordedSessions() {
    QFETCH(QString, path);
    checkIdentity(path.toStdString());
}

void TestWhatIfReplay::unmodifiedReplayReproducesGeneratedSessions_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("default") << 0;
    QTest::newRow("two processes, two GPUs, pipelined") << 1;
    QTest::newRow("no events, no copies") << 2;
}

void TestWhatIfReplay::unmodifiedReplayReproducesGeneratedSessions() {
    QFETCH(int, variant);
    model::SyntheticOptions options;
    options.targetEvents = 40'000;
    options.seed = 7 + static_cast<uint64_t>(variant);
    if (variant == 1) {
        options.processes = 2;
        options.devicesPerProcess = 2;
        options.inLoopSync = false;
    } else if (variant == 2) {
        options.eventSyncs = false;
        options.streamWaitEvents = false;
        options.pageableCopies = false;
    }
    const std::string path = m_dir.filePath(QString("gen%1.stallscope").arg(variant)).toStdString();
    std::string error;
    QVERIFY2(model::writeSyntheticSession(path, options, nullptr, &error), error.c_str());
    checkIdentity(path);
}

std::optional<std::pair<int64_t, int64_t>>
TestWhatIfReplay::replayWithout(const std::string& path, int64_t stack, bool removeStatementTime) {
    const std::unique_ptr<Built> built = buildGraph(path);
    if (!built)
        return std::nullopt;
    model::whatif::ReplayOptions options;
    options.windowEndNs = lastGpuEnd(*built->session);
    const Replayer replayer(built->graph);
    WhatIf changes;
    changes.removedSyncs = syncsOfStack(*built->session, stack);
    changes.removeStatementTime = removeStatementTime;
    const int64_t before = replayer.replay(WhatIf{}, options).windowEndNs;
    const int64_t after = replayer.replay(changes, options).windowEndNs;
    return std::pair(before, after);
}

// Each of 20 steps launches three 1 ms kernels that queue back to back (1 µs apart), then waits
// for them; the next step's first kernel starts 20 µs after the last one ended (wake-up, host
// gap, launch latency). Without the sync only those bubbles go, less the 1 µs queue gap: the
// host's blocked 3 ms per step were free.
std::optional<int64_t> TestWhatIfReplay::writeGpuBoundLoop(const std::string& path) {
    testing::InsightFixture fixture(path, 100'000'000);
    const int64_t stack = fixture.pythonStack("train.py", 12, "main");
    for (const int64_t t0 : stepStarts(kGpuBoundSteps, kGpuBoundPeriod)) {
        for (int k = 0; k < 3; ++k)
            fixture.launch(t0 + 1'000 * k, t0 + 5'000 + 1'001'000 * k,
                           t0 + 1'005'000 + 1'001'000 * k);
        fixture.sync(SyncKind::Stream, t0 + 3'000, t0 + 3'012'000, stack, fixture.stream);
    }
    if (!fixture.load().ok())
        return std::nullopt;
    return stack;
}

void TestWhatIfReplay::gpuBoundLoopSavesOnlyTheBubbles() {
    const std::optional<int64_t> stack = writeGpuBoundLoop(path("gpu_bound.stallscope"));
    QVERIFY(stack);
    constexpr int kSteps = kGpuBoundSteps;
    constexpr int64_t kPeriod = kGpuBoundPeriod;
    const auto replayed = replayWithout(path("gpu_bound.stallscope"), *stack);
    QVERIFY(replayed);
    const auto [before, after] = *replayed;
    QCOMPARE(before, 1'000'000 + kPeriod * (kSteps - 1) + 3'007'000);
    QCOMPARE(before - after, int64_t(kSteps - 1) * (20'000 - 1'000));
}

// Each step launches one 500 µs kernel, waits for it, then computes 1.5 ms on the host. Without
// the sync the host work overlaps the kernel: each step saves the wait (the kernel, its launch
// latency and the wake-up).
void TestWhatIfReplay::hostBoundLoopSavesTheOverlap() {
    testing::InsightFixture fixture(path("host_bound.stallscope"), 100'000'000);
    const int64_t stack = fixture.pythonStack("train.py", 20, "main");
    constexpr int kSteps = 10;
    constexpr int64_t kPeriod = 2'010'000;
    for (const int64_t t0 : stepStarts(kSteps, kPeriod)) {
        fixture.launch(t0, t0 + 5'000, t0 + 505'000);
        fixture.sync(SyncKind::Stream, t0 + 1'000, t0 + 510'000, stack, fixture.stream);
    }
    QVERIFY(fixture.load().ok());
    const auto replayed = replayWithout(path("host_bound.stallscope"), stack);
    QVERIFY(replayed);
    const auto [before, after] = *replayed;
    QCOMPARE(before - after, int64_t(kSteps - 1) * (kPeriod - 1'501'000));
}

// WhatIf::kernelTimeScale (a GPU clocked lower at its power limit): the 60 queued 1 ms kernels of
// gpuBoundLoopSavesOnlyTheBubbles take 10 % longer, each step's three 300 µs more, so the run
// ends 20 x 300 µs later; with the window from step 10 on, only its 30 kernels do. A factor that
// is not a positive number leaves the kernels alone.
void TestWhatIfReplay::kernelTimeScaleStretchesTheWindowsKernels() {
    QVERIFY(writeGpuBoundLoop(path("scaled.stallscope")));
    constexpr int kSteps = kGpuBoundSteps;
    const std::unique_ptr<Built> built = buildGraph(path("scaled.stallscope"));
    QVERIFY(built);
    const Replayer replayer(built->graph);
    model::whatif::ReplayOptions options;
    options.windowEndNs = lastGpuEnd(*built->session);
    WhatIf slower;
    slower.kernelTimeScale = 1.1;
    const model::whatif::ReplayResult plain = replayer.replay(WhatIf{}, options);
    const model::whatif::ReplayResult scaled = replayer.replay(slower, options);
    QCOMPARE(plain.busyNsPerDevice, std::vector<int64_t>{60'000'000});
    QCOMPARE(scaled.busyNsPerDevice, std::vector<int64_t>{66'000'000});
    QCOMPARE(plain.windowFirstOpStartNs, int64_t(1'005'000));
    QCOMPARE(scaled.windowFirstOpStartNs, int64_t(1'005'000));
    QCOMPARE(scaled.windowEndNs - plain.windowEndNs, int64_t(kSteps) * 300'000);

    options.windowStartNs = stepStarts(kSteps, kGpuBoundPeriod)[10];
    const model::whatif::ReplayResult lateOnly = replayer.replay(slower, options);
    QCOMPARE(lateOnly.busyNsPerDevice, std::vector<int64_t>{33'000'000});
    QCOMPARE(lateOnly.windowFirstOpStartNs, options.windowStartNs + 5'000);
    QCOMPARE(lateOnly.windowEndNs - plain.windowEndNs, int64_t(kSteps / 2) * 300'000);

    for (const double hostile : {0.0, -2.0, std::nan(""), HUGE_VAL}) {
        WhatIf bad;
        bad.kernelTimeScale = hostile;
        QCOMPARE(replayer.replay(bad, options).windowEndNs,
                 replayer.replay(WhatIf{}, options).windowEndNs);
    }
}

// Stream A runs a 1 ms kernel and records an event; stream B waits for the event and runs a
// 100 µs kernel; the host then waits for stream B. Removing the host's sync lets the next
// launches come sooner, but B's kernel still starts after A's kernel ends.
void TestWhatIfReplay::eventEdgeHoldsTheWaitingStream() {
    testing::InsightFixture fixture(path("event_edge.stallscope"), 100'000'000);
    fixture.setKernelBlocks(8); // narrow kernels: the two streams' may run side by side
    const int64_t streamB = fixture.addStream(8);
    const int64_t stack = fixture.pythonStack("train.py", 30, "main");
    format::SessionWriter& writer = fixture.writer();
    const int64_t recordName = writer.internString("cudaEventRecord");
    const int64_t waitName = writer.internString("cudaStreamWaitEvent");
    constexpr int kSteps = 5;
    constexpr int64_t kPeriod = 1'200'000;
    int64_t correlation = 1'000'000;
    for (int i = 0; i < kSteps; ++i) {
        const int64_t t0 = 1'000'000 + kPeriod * i;
        fixture.launch(t0, t0 + 5'000, t0 + 1'005'000);
        writer.addApiCall({fixture.thread, format::ApiDomain::Runtime, 135, recordName, t0 + 1'000,
                           t0 + 1'500, ++correlation, 0});
        writer.addCudaEvent({fixture.stream, i + 1, correlation, t0 + 1'005'000});
        writer.addApiCall({fixture.thread, format::ApiDomain::Runtime, 147, waitName, t0 + 2'000,
                           t0 + 2'500, ++correlation, 0});
        format::SyncRow wait;
        wait.threadId = fixture.thread;
        wait.kind = SyncKind::StreamWaitEvent;
        wait.startNs = t0 + 2'000;
        wait.endNs = t0 + 2'500;
        wait.correlationId = correlation;
        wait.streamId = streamB;
        wait.eventId = i + 1;
        writer.addSync(wait);
        fixture.launch(t0 + 3'000, t0 + 1'006'000, t0 + 1'106'000, streamB);
        fixture.sync(SyncKind::Stream, t0 + 4'000, t0 + 1'110'000, stack, streamB);
    }
    QVERIFY(fixture.load().ok());
    const std::unique_ptr<Built> built = buildGraph(path("event_edge.stallscope"));
    QVERIFY(built);
    WhatIf changes;
    changes.removedSyncs = syncsOfStack(*built->session, stack);
    model::whatif::ReplayOptions options;
    options.keepShifts = true;
    const auto result = Replayer(built->graph).replay(changes, options);
    QCOMPARE(result.forcedNodes, int64_t(0));
    const RunGraph& graph = built->graph;
    // B's kernels start 1 ms after their calls because they waited for A's event: no measure of
    // the launch latency, which A's kernels give (5 µs).
    QCOMPARE(graph.latencies().launchNs, int64_t(5'000));
    const int32_t laneA = 0, laneB = 1; // stream lanes in stream order
    QCOMPARE(graph.streams()[laneB].ops.size(), size_t(kSteps));
    for (uint32_t k = 0; k < kSteps; ++k) {
        const uint32_t opA = graph.streams()[laneA].firstOp + k;
        const uint32_t opB = graph.streams()[laneB].firstOp + k;
        QCOMPARE(graph.eventDependency(opB), opA);
        const int64_t endA = graph.opEnd(laneA, k) + result.opEndShift[opA];
        const int64_t startB = graph.opEnd(laneB, k) + result.opEndShift[opB] - 100'000;
        QVERIFY2(startB >= endA, qPrintable(QString("step %1").arg(k)));
    }
    // The kernels on A now run back to back (1 µs apart): the last one ends 4 × (period - 1 ms
    // - 1 µs) sooner, and B's last kernel follows it as in the recording.
    const uint32_t lastB = graph.streams()[laneB].firstOp + kSteps - 1;
    QCOMPARE(-result.opEndShift[lastB], int64_t(kSteps - 1) * (kPeriod - 1'000'000 - 1'000));
}

// A device-wide sync waits for every stream of its device: removing another site's syncs cannot
// let the host pass a device sync before the slowest stream is done.
void TestWhatIfReplay::deviceSyncAwaitsEveryStream() {
    testing::InsightFixture fixture(path("device_sync.stallscope"), 100'000'000);
    const int64_t side = fixture.addStream(9);
    const int64_t stack = fixture.pythonStack("train.py", 40, "main");
    fixture.launch(1'000, 6'000, 2'006'000, side);           // 2 ms on the side stream
    fixture.launch(2'000, 7'000, 107'000);                   // 100 µs on the main stream
    fixture.sync(SyncKind::Device, 3'000, 2'011'000, stack); // waits for both
    QVERIFY(fixture.load().ok());
    const std::unique_ptr<Built> built = buildGraph(path("device_sync.stallscope"));
    QVERIFY(built);
    const auto awaited = built->graph.awaited(0, 0);
    QCOMPARE(awaited.size(), size_t(2));
    QCOMPARE(built->graph.latencies().wakeNs, int64_t(5'000));
}

// A launch-bound loop: each of 10 steps launches a 100 ns kernel [t, t + 500], 500 ns later calls
// cudaDeviceSynchronize [t + 1 µs, t + 9 µs] whose sync record [t + 2 µs, t + 8 µs] finds the
// kernel done, then computes 11 µs. Removing the sync removes the whole call (8 µs a step); with
// the statement's own time also the 500 ns before it (the thread's median gap between calls).
// A sync record that starts before its call (as CUPTI's may) belongs to it by correlation id,
// also when the ids are too far apart for a table (the build's maps hash them).
void TestWhatIfReplay::removedSyncCallDisappears_data() {
    QTest::addColumn<qint64>("syncCorrelation"); // of the first sync; the launches count from 1
    QTest::addColumn<qint64>("syncStart");       // after t
    QTest::newRow("inside its call, ids in a table") << qint64(900'000) << qint64(2'000);
    QTest::newRow("before its call, ids hashed") << qint64(4'000'000'000) << qint64(900);
}

void TestWhatIfReplay::removedSyncCallDisappears() {
    QFETCH(qint64, syncCorrelation);
    QFETCH(qint64, syncStart);
    testing::InsightFixture fixture(path("call.stallscope"), 10'000'000);
    const int64_t stack = fixture.pythonStack("train.py", 50, "main");
    format::SessionWriter& writer = fixture.writer();
    const int64_t syncName = writer.internString("cudaDeviceSynchronize");
    constexpr int kSteps = 10;
    for (int i = 0; i < kSteps; ++i) {
        const int64_t t = 1'000'000 + 20'000 * i;
        fixture.launch(t, t + 1'500, t + 1'600);
        writer.addApiCall({fixture.thread, format::ApiDomain::Runtime, 165, syncName, t + 1'000,
                           t + 9'000, syncCorrelation + i, 0});
        format::SyncRow sync;
        sync.threadId = fixture.thread;
        sync.kind = SyncKind::Device;
        sync.startNs = t + syncStart;
        sync.endNs = t + 8'000;
        sync.correlationId = syncCorrelation + i;
        sync.stackId = stack;
        writer.addSync(sync);
    }
    QVERIFY(fixture.load().ok());
    const std::unique_ptr<Built> built = buildGraph(path("call.stallscope"));
    QVERIFY(built);
    const RunGraph& graph = built->graph;
    QCOMPARE(graph.stepCount(), size_t(2 * kSteps)); // each launch and each sync call
    for (uint32_t op = 0; op < graph.opCount(); ++op)
        QCOMPARE(graph.launchStep(op), 2 * op);
    for (uint32_t s = 0; s < kSteps; ++s)
        QCOMPARE(graph.threads()[0].stepOfSync[s], 2 * s + 1);
    checkIdentity(path("call.stallscope"));
    const auto replayed = replayWithout(path("call.stallscope"), stack);
    const auto withStatements = replayWithout(path("call.stallscope"), stack, true);
    QVERIFY(replayed && withStatements);
    const auto [before, after] = *replayed;
    QCOMPARE(before - after, int64_t(kSteps - 1) * 8'000);
    QCOMPARE(before - withStatements->second, int64_t(kSteps - 1) * 8'500);
}

// PyTorch's backward pass runs on the autograd thread: each 320 µs step, the main thread
// launches the forward kernel, waits while the autograd thread launches the backward kernel
// (10 µs later), launches the optimizer kernel 9.5 µs after that, and waits for the GPU; each
// kernel runs 100 µs. The autograd thread's launch follows the main thread's (a hand-off), so
// without the wait both threads run ahead and the GPU works back to back: each step gives back
// its 20 µs of idle GPU (wake-up, host gap, launch latency).
void TestWhatIfReplay::handoffMovesTheOtherThread() {
    testing::InsightFixture fixture(path("handoff.stallscope"), 10'000'000);
    const int64_t autograd = fixture.addThread(4300);
    const int64_t stack = fixture.pythonStack("train.py", 60, "main");
    constexpr int kSteps = 5;
    constexpr int64_t kPeriod = 320'000;
    for (const int64_t t : stepStarts(kSteps, kPeriod)) {
        fixture.launch(t, t + 5'000, t + 105'000);
        fixture.launch(t + 10'000, t + 105'000, t + 205'000, {}, autograd);
        fixture.launch(t + 20'000, t + 205'000, t + 305'000);
        fixture.sync(SyncKind::Stream, t + 21'000, t + 310'000, stack, fixture.stream);
    }
    QVERIFY(fixture.load().ok());
    const std::unique_ptr<Built> built = buildGraph(path("handoff.stallscope"));
    QVERIFY(built);
    QVERIFY(built->graph.hasHandoffs());
    QCOMPARE(built->graph.handoff(built->graph.threads()[0].firstStep + 1), // main's optimizer
             built->graph.threads()[1].firstStep);                          // after backward
    const auto replayed = replayWithout(path("handoff.stallscope"), stack);
    QVERIFY(replayed);
    const auto [before, after] = *replayed;
    QCOMPARE(before - after, int64_t(kSteps - 1) * 20'000);
}

// A crafted file: each of two threads waits for a copy that the other thread launches only after
// its own wait (a cycle no real run has). The replay must not hang: it lets the earliest waiting
// step go ahead at its recorded time, counts it, and still reproduces the recording.
void TestWhatIfReplay::inconsistentWaitsStillReplay() {
    testing::InsightFixture fixture(path("cycle.stallscope"), 1'000'000);
    const int64_t other = fixture.addThread(4301);
    const int64_t side = fixture.addStream(9);
    format::SessionWriter& writer = fixture.writer();
    const int64_t copyName = writer.internString("cudaMemcpyAsync");
    using format::CopyKind;
    using format::MemoryKind;
    const int64_t toA = fixture.memcpy(61'000, 70'000, CopyKind::DtoH, MemoryKind::Device,
                                       MemoryKind::Pageable, 64, false, side);
    const int64_t toB = fixture.memcpy(20'000, 40'000, CopyKind::DtoH, MemoryKind::Device,
                                       MemoryKind::Pageable, 64, false);
    // With a stack: the loader keeps them on their threads (stackless ones move to their caller).
    const int64_t stack = fixture.pythonStack("train.py", 70, "main");
    auto waitFor = [&](int64_t thread, int64_t correlation, int64_t end) {
        format::SyncRow sync;
        sync.stackId = stack;
        sync.threadId = thread;
        sync.kind = SyncKind::PageableCopy;
        sync.startNs = 10'000;
        sync.endNs = end;
        sync.correlationId = correlation;
        writer.addSync(sync);
    };
    waitFor(fixture.thread, toB, 50'000); // waits for the copy the other thread launches later
    waitFor(other, toA, 80'000);          // and the other way round
    writer.addApiCall(
        {fixture.thread, format::ApiDomain::Runtime, 41, copyName, 60'000, 60'500, toA, 0});
    writer.addApiCall({other, format::ApiDomain::Runtime, 41, copyName, 90'000, 90'500, toB, 0});
    QVERIFY(fixture.load().ok());
    const std::unique_ptr<Built> built = buildGraph(path("cycle.stallscope"));
    QVERIFY(built);
    model::whatif::ReplayOptions options;
    options.keepShifts = true;
    const auto result = Replayer(built->graph).replay(WhatIf{}, options);
    QVERIFY(!result.cancelled);
    QVERIFY(result.forcedNodes >= 1);
    QVERIFY(std::all_of(result.opEndShift.begin(), result.opEndShift.end(),
                        [](int64_t shift) { return shift == 0; }));
}

// A light recording has no API calls: the replay infers each launch from the correlation ids
// (the launch comes after the last sync before it, on that sync's thread) and must give the
// savings the full recording of the same run gives. Loops of 20 steps:
//   gpu-bound:    three 1 ms kernels queued back to back, a stream sync (GPU idle 20 µs a step);
//   host-bound:   one 500 µs kernel, a stream sync, 1.5 ms of host work;
//   short-kernel: three 60 µs kernels launched 2 µs apart, 50 µs of host work, a stream sync;
//                 its return, the host's next step and the launch leave the GPU idle 17 µs.
void TestWhatIfReplay::lightRecordingInfersTheLaunches_data() {
    QTest::addColumn<int>("loop");
    QTest::addColumn<qint64>("saving");
    QTest::newRow("gpu-bound") << 0 << qint64(19 * (20'000 - 1'000));
    QTest::newRow("host-bound") << 1 << qint64(19 * (2'010'000 - 1'501'000));
    QTest::newRow("short-kernel") << 2 << qint64(19 * (17'000 - 1'000));
}

void TestWhatIfReplay::lightRecordingInfersTheLaunches() {
    QFETCH(int, loop);
    QFETCH(qint64, saving);
    constexpr int kSteps = 20;
    for (const bool light : {false, true}) {
        const QString name = QStringLiteral("loop%1-%2.stallscope").arg(loop).arg(light);
        testing::InsightFixture fixture(path(qPrintable(name)), 100'000'000);
        fixture.setLightRecording(light);
        const int64_t stack = fixture.pythonStack("train.py", 12, "main");
        if (loop == 0) {
            for (const int64_t t0 : stepStarts(kSteps, 3'022'000)) {
                for (int k = 0; k < 3; ++k)
                    fixture.launch(t0 + 1'000 * k, t0 + 5'000 + 1'001'000 * k,
                                   t0 + 1'005'000 + 1'001'000 * k);
                fixture.sync(SyncKind::Stream, t0 + 3'000, t0 + 3'012'000, stack, fixture.stream);
            }
        } else if (loop == 1) {
            for (const int64_t t0 : stepStarts(kSteps, 2'010'000)) {
                fixture.launch(t0, t0 + 5'000, t0 + 505'000);
                fixture.sync(SyncKind::Stream, t0 + 1'000, t0 + 510'000, stack, fixture.stream);
            }
        } else {
            // Launches at t0, +2, +4 µs; the GPU runs them back to back from t0 + 5 µs (1 µs
            // apart) to t0 + 187 µs; the sync [t0 + 56 µs, t0 + 190 µs]; the next step at +199 µs.
            for (const int64_t t0 : stepStarts(kSteps, 199'000)) {
                for (int k = 0; k < 3; ++k)
                    fixture.launch(t0 + 2'000 * k, t0 + 5'000 + 61'000 * k,
                                   t0 + 65'000 + 61'000 * k);
                fixture.sync(SyncKind::Stream, t0 + 56'000, t0 + 190'000, stack, fixture.stream);
            }
        }
        QVERIFY(fixture.load().ok());
        const std::unique_ptr<Built> built = buildGraph(path(qPrintable(name)));
        QVERIFY(built);
        QCOMPARE(built->graph.launchesInferred(), light);
        const auto replayed = replayWithout(path(qPrintable(name)), stack);
        QVERIFY(replayed);
        const auto [before, after] = *replayed;
        QVERIFY2(before - after == saving, qPrintable(QStringLiteral("%1: saved %2 ns, not %3")
                                                          .arg(light ? "light" : "full")
                                                          .arg(before - after)
                                                          .arg(saving)));
        checkIdentity(path(qPrintable(name)));
    }
}

// A real light recording (stallscope-record --mode light on an H200, bench/whatif/pageable_copy.py
// "before": 400 + 20 warm-up steps, each a .cpu() of its prediction into pageable memory): no API
// calls, every operation after the first sync gets an inferred launch, and the finding is the
// full recording's — pageable-copy at pageable_copy.py:33, one call a step, a simulated saving.
void TestWhatIfReplay::lightRecordingOfARealLoop() {
    const std::string path =
        STALLSCOPE_SOURCE_DIR "/tests/model/data/light-pageable-copy.stallscope";
    const std::unique_ptr<Built> built = buildGraph(path);
    QVERIFY(built);
    QCOMPARE(built->session->metaValue("recorder_mode"), std::string("light"));
    QVERIFY(built->graph.launchesInferred());
    size_t unknown = 0;
    for (uint32_t op = 0; op < built->graph.opCount(); ++op)
        unknown += built->graph.launchStep(op) == model::whatif::kNone;
    QVERIFY2(unknown < 50, qPrintable(QString::number(unknown))); // the start-up's, before a sync
    model::SessionDatabase database;
    std::string error;
    QVERIFY2(database.open(path, &error), error.c_str());
    const model::InsightReport report =
        model::InsightEngine::analyze(*built->session, database, model::AnalysisOptions{});
    QVERIFY(report.summary.launchesInferred);
    QVERIFY(!report.insights.empty());
    const model::Insight& top = report.insights.front();
    QCOMPARE(top.rule, model::InsightRule::PageableCopy);
    QVERIFY(top.site.file.ends_with("pageable_copy.py"));
    QCOMPARE(top.site.line, int64_t(33));
    QCOMPARE(top.count, int64_t(419)); // in the loop: the first iteration is warm-up
    QVERIFY(top.simulated);
    QVERIFY(top.savingsNs > 0 && top.savingsNs < report.summary.windowNs);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestWhatIfReplay)
#include "test_whatif_replay.moc"
