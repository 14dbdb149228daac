// Every insight rule on hand-written sessions: exact counts, times, shares, severities and savings
// when it fires, and the look-alike patterns that must keep it silent. One finding per sync site;
// its saving is the what-if replay's (hand-computed below from the timeline), its share is over
// the active window (first kernel to last GPU work).
#include "format/session_meta.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/optional_text.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <optional>

using namespace stallscope;
using format::CopyKind;
using format::MemoryKind;
using format::SyncKind;
using model::EventKind;
using model::EventSpan;
using model::InsightRule;
using model::Severity;
using testing::InsightFixture;
using testing::insightsOf;

class TestInsightRules : public QObject {
    Q_OBJECT
private slots:
    void inLoopSyncFires();
    void inLoopSyncNativeWording();
    void inLoopSyncFromALightRecording();
    void pipelinedLoopIsNotInLoop();
    void tooFewToBeALoop_data();
    void tooFewToBeALoop();
    void thresholdsComeFromOnePlace();
    void pageableCopyFires();
    void pinnedAsyncCopyIsNotPageable();
    void deviceSyncWithOneActiveStream();
    void deviceSyncWithTwoActiveStreamsIsSilent();
    void defaultStreamSerializes();
    void overlappingStreamsAreNotSerialized();
    void launchBoundStretch();
    void hostGapLeavesOutModuleLoads();
    void launchBoundSilent();
    void launchBoundThroughQueuedKernels();
    void inLoopFreeGetsTheAllocationAdvice();
    void savingsCappedByGpuIdleTime();
    void bubbleNeedsAnIdleGpu();
    void bubbleIsCappedPerSync();
    void syncOnIdleGpuHasNoBubble();

private:
    testing::ScratchDir m_dir;
};

void TestInsightRules::inLoopSyncFires() {
    InsightFixture f(m_dir.file("loop.stallscope"));
    f.writeLoop(f.pythonStack("/home/u/train.py", 90, "train_step"), 5, 4);
    const model::InsightReport report = f.load().analyze();
    QVERIFY(f.ok());
    QVERIFY(!report.cancelled);
    QCOMPARE(report.insights.size(), size_t(1)); // one finding for the site

    // Per step: blocked 38,500 ns; GPU idle from the sync's return (t0 + 42,500) to the next
    // step's first kernel (t0 + 102,000): 59,500 ns, four times (nothing follows the last).
    // Replayed without the wait, each step lasts 3.5 µs of launches plus the 57.5 µs of host time
    // after the sync instead of 100 µs (the sync statement's own 500 ns of CPU time go with it:
    // the thread's median gap between calls): the last kernel ends 4 × 39 µs sooner. Window: the
    // first kernel's start (12 µs) to the last one's end (452 µs).
    const model::Insight& loop = report.insights[0];
    QCOMPARE(loop.rule, InsightRule::InLoopSync);
    QCOMPARE(loop.rules,
             (std::vector<InsightRule>{InsightRule::InLoopSync, InsightRule::SyncAttribution,
                                       InsightRule::GpuBubble}));
    QCOMPARE(loop.count, int64_t(5));
    QCOMPARE(loop.medianLaunchesBetween, int64_t(4));
    QCOMPARE(loop.medianPeriodNs, int64_t(100'000));
    QCOMPARE(loop.blockedNs, int64_t(192'500));
    QCOMPARE(loop.medianBlockedNs, int64_t(38'500));
    QCOMPARE(loop.bubbleNs, int64_t(238'000));
    QVERIFY(loop.simulated);
    QCOMPARE(loop.savingsNs, int64_t(156'000));
    QCOMPARE(loop.share, 156'000.0 / 440'000.0);
    QCOMPARE(loop.severity, Severity::High);
    QCOMPARE(loop.site.file, std::string("/home/u/train.py"));
    QCOMPARE(loop.site.line, int64_t(90));
    QCOMPARE(loop.site.function, std::string("train_step"));
    QCOMPARE(loop.site.language, model::SourceLanguage::Python);
    QCOMPARE(loop.eventCount, int64_t(5));
    QCOMPARE(*loop.events, (model::EventSpans{{{EventKind::Sync, 0, 0, 0}, 5}}));
    QVERIFY(loop.title.find("In-loop sync × 5 at train.py:90 in train_step") == 0);
    QVERIFY(loop.evidence.find("median of 4 kernel launches") != std::string::npos);
    QVERIFY(loop.evidence.find("if the host did not wait here") != std::string::npos);
    QVERIFY(loop.recommendation.find("torch.cuda.CUDAGraph") != std::string::npos);
    QVERIFY(loop.recommendation.find("after the loop") != std::string::npos);

    const model::SessionStatistics& s = report.summary;
    QCOMPARE(s.wallNs, int64_t(1'000'000));
    QCOMPARE(s.gpuBusyNs, int64_t(200'000));
    QCOMPARE(s.windowNs, int64_t(440'000)); // active: the first to the last kernel, [12, 452] µs
    QCOMPARE(s.gpuBusyShare, 200'000.0 / 440'000.0);
    QCOMPARE(s.hostSyncCount, int64_t(5));
    QCOMPARE(s.hostBlockedNs, int64_t(192'000)); // the last sync's 500 ns after the window cut
    QCOMPARE(s.topSites, std::vector<int32_t>{0});
    QCOMPARE(report.sites.at(0).calls, int64_t(5));
    QCOMPARE(report.sites.at(0).savingsNs, int64_t(156'000));
    QCOMPARE(s.topKernels.size(), size_t(1));
    QCOMPARE(s.topKernels[0].name, std::string("gemm"));
    QCOMPARE(s.topKernels[0].count, int64_t(20));
    QCOMPARE(s.topKernels[0].totalNs, int64_t(200'000));
}

// The loop of inLoopSyncFires recorded light (no API calls): each sync is still one call with 4
// launches before it, counted from the kernels' correlation ids; the replay infers each launch
// from the sync before it. The saving is the host's 38.5 µs wait a step: the sync statement's
// own 500 ns stay (with syncs alone the time between two calls is not a statement's own).
void TestInsightRules::inLoopSyncFromALightRecording() {
    InsightFixture f(m_dir.file("light-loop.stallscope"));
    f.setLightRecording(true);
    f.writeLoop(f.pythonStack("/home/u/train.py", 90, "train_step"), 5, 4);
    const model::InsightReport report = f.load().analyze();
    QVERIFY(f.ok());
    QCOMPARE(report.insights.size(), size_t(1));
    const model::Insight& loop = report.insights[0];
    QCOMPARE(loop.rule, InsightRule::InLoopSync);
    QCOMPARE(loop.count, int64_t(5));
    QCOMPARE(loop.medianLaunchesBetween, int64_t(4));
    QCOMPARE(loop.medianPeriodNs, int64_t(100'000));
    QCOMPARE(loop.blockedNs, int64_t(192'500));
    QVERIFY(loop.simulated);
    QCOMPARE(loop.savingsNs, int64_t(4 * 38'500));
    QCOMPARE(report.sites.at(0).calls, int64_t(5));
    QVERIFY(report.summary.launchesInferred);
    // Said once for the report, not on every card (issue 42).
    QVERIFY(report.assumptions.find("launch times inferred") != std::string::npos);
    QVERIFY(loop.evidence.find("launch times inferred") == std::string::npos);
}

void TestInsightRules::inLoopSyncNativeWording() {
    InsightFixture f(m_dir.file("native.stallscope"));
    f.writeLoop(f.nativeStack("/src/train.cu", 120, "runStep"), 5, 4);
    const auto report = f.load().analyze();
    QVERIFY(f.ok());
    const auto loops = insightsOf(report, InsightRule::InLoopSync);
    QCOMPARE(loops.size(), size_t(1));
    QCOMPARE(loops[0]->site.language, model::SourceLanguage::Native);
    QCOMPARE(loops[0]->site.label(), std::string("train.cu:120 in runStep"));
    QVERIFY(loops[0]->recommendation.find("cudaStreamBeginCapture") != std::string::npos);
    QVERIFY(loops[0]->recommendation.find("torch") == std::string::npos);
}

void TestInsightRules::pipelinedLoopIsNotInLoop() {
    InsightFixture f(m_dir.file("pipelined.stallscope"));
    const int64_t stack = f.pythonStack("/home/u/train.py", 99, "main");
    f.writeLoop(stack, 5, 4, /*syncEachStep=*/false);
    f.sync(SyncKind::Stream, 455'000, 455'500, stack, f.stream); // total_loss.item() after the loop
    const auto report =
        f.load().analyze(testing::everySimulatedSiteAFinding()); // 500 ns saves little
    QVERIFY(f.ok());
    QVERIFY(insightsOf(report, InsightRule::InLoopSync).empty());
    QVERIFY(insightsOf(report, InsightRule::GpuBubble).empty()); // no GPU work follows it
    const auto attribution = insightsOf(report, InsightRule::SyncAttribution);
    QCOMPARE(attribution.size(), size_t(1));
    QCOMPARE(attribution[0]->count, int64_t(1));
    QCOMPARE(attribution[0]->blockedNs, int64_t(500));
    QCOMPARE(attribution[0]->severity, Severity::Low);
}

// Below either loop threshold the syncs are only attributed, never called an in-loop sync.
void TestInsightRules::tooFewToBeALoop_data() {
    QTest::addColumn<int>("steps");
    QTest::addColumn<int>("launchesBetween");
    QTest::newRow("two syncs") << 2 << 4;
    QTest::newRow("few launches between") << 6 << 2;
}

void TestInsightRules::tooFewToBeALoop() {
    QFETCH(int, steps);
    QFETCH(int, launchesBetween);
    const std::string file = std::string(QTest::currentDataTag()) + ".stallscope";
    InsightFixture f(m_dir.file(file.c_str()));
    f.writeLoop(f.pythonStack("/home/u/train.py", 90, "train_step"), steps, launchesBetween);
    const auto report = f.load().analyze();
    QVERIFY(f.ok());
    QVERIFY(insightsOf(report, InsightRule::InLoopSync).empty());
    QCOMPARE(insightsOf(report, InsightRule::SyncAttribution).at(0)->count, int64_t(steps));
}

void TestInsightRules::thresholdsComeFromOnePlace() {
    InsightFixture f(m_dir.file("thresholds.stallscope"));
    f.writeLoop(f.pythonStack("/home/u/train.py", 90, "train_step"), 5, 4);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    model::AnalysisOptions options;
    options.thresholds.inLoop.minLaunches = 5;
    QVERIFY(insightsOf(loaded.analyze(options), InsightRule::InLoopSync).empty());
    options.thresholds.inLoop.minLaunches = 4;
    QCOMPARE(insightsOf(loaded.analyze(options), InsightRule::InLoopSync).size(), size_t(1));
}

void TestInsightRules::pageableCopyFires() {
    InsightFixture f(m_dir.file("pageable.stallscope"));
    const int64_t stack = f.pythonStack("/home/u/train.py", 95, "log_loss");
    // Three `.item()` reads 200 µs apart: a 50 µs kernel, then its 4-byte result copied to
    // pageable memory while the host is blocked [t0 + 2 µs, t0 + 54 µs].
    for (int i = 0; i < 3; ++i) {
        const int64_t t0 = 200'000 * i + 10'000;
        f.launch(t0, t0 + 1'000, t0 + 51'000);
        const int64_t copy = f.memcpy(t0 + 51'000, t0 + 53'000, CopyKind::DtoH, MemoryKind::Device,
                                      MemoryKind::Pageable, 4, false);
        f.sync(SyncKind::PageableCopy, t0 + 2'000, t0 + 54'000, stack, f.stream, {}, copy);
    }
    const auto report = f.load().analyze();
    QVERIFY(f.ok());
    const auto copies = insightsOf(report, InsightRule::PageableCopy);
    QCOMPARE(copies.size(), size_t(1));
    const model::Insight& insight = *copies[0];
    QCOMPARE(insight.count, int64_t(3));
    QCOMPARE(insight.bytes, int64_t(12));
    QCOMPARE(insight.blockedNs, int64_t(156'000));
    // From each return (t0 + 54 µs) to the next read's kernel (t0 + 201 µs), twice.
    QCOMPARE(insight.bubbleNs, int64_t(294'000));
    // Replayed with the copy asynchronous into pinned memory and no wait, each read takes 2 µs of
    // host time (launch, gap) plus the 146 µs after the copy call instead of 200 µs, and the 4-byte
    // copy takes the typical 1 µs queue gap (the staged copies' delays are no measure of it): the
    // last copy ends 2 × 52 µs + 1 µs sooner. Window: 11 µs to 463 µs.
    QCOMPARE(insight.savingsNs, int64_t(105'000));
    QCOMPARE(insight.share, 105'000.0 / 452'000.0);
    QCOMPARE(insight.severity, Severity::High);
    QCOMPARE(insight.rule, InsightRule::PageableCopy);
    QCOMPARE(insight.eventCount, int64_t(6));
    QCOMPARE(*insight.events, (model::EventSpans{{{EventKind::Sync, 0, 0, 0}, 3},
                                                 {{EventKind::Memcpy, 0, 0, 0}, 3}}));
    QVERIFY(insight.evidence.find("12 B") != std::string::npos);
    QVERIFY(insight.recommendation.find("non_blocking=True") != std::string::npos);
    QVERIFY(insightsOf(report, InsightRule::InLoopSync).empty()); // one launch between reads
    QVERIFY(insight.title.find("Blocking copy to pageable memory × 3 at train.py:95") == 0);
    QVERIFY(insight.assumption.find("pinned memory") != std::string::npos);
}

void TestInsightRules::pinnedAsyncCopyIsNotPageable() {
    InsightFixture f(m_dir.file("pinned.stallscope"));
    const int64_t stack = f.pythonStack("/home/u/train.py", 96, "prefetch");
    for (int i = 0; i < 3; ++i) {
        const int64_t t0 = 200'000 * i + 10'000;
        f.launch(t0, t0 + 1'000, t0 + 51'000);
        // non_blocking copy into pinned memory: no host wait at all.
        f.memcpy(t0 + 51'000, t0 + 53'000, CopyKind::DtoH, MemoryKind::Device, MemoryKind::Pinned,
                 4096, true);
        // A synchronous cudaMemcpy into pinned memory blocks, but is not a pageable copy.
        const int64_t copy = f.memcpy(t0 + 53'000, t0 + 55'000, CopyKind::DtoH, MemoryKind::Device,
                                      MemoryKind::Pinned, 4096, false);
        f.sync(SyncKind::BlockingCopy, t0 + 2'000, t0 + 56'000, stack, f.stream, {}, copy);
    }
    const auto report = f.load().analyze();
    QVERIFY(f.ok());
    QVERIFY(insightsOf(report, InsightRule::PageableCopy).empty());
    QCOMPARE(insightsOf(report, InsightRule::SyncAttribution).at(0)->count, int64_t(3));
}

void TestInsightRules::deviceSyncWithOneActiveStream() {
    InsightFixture f(m_dir.file("device.stallscope"));
    const int64_t stack = f.pythonStack("/home/u/train.py", 100, "step");
    f.launch(9'000, 10'000, 110'000);
    f.sync(SyncKind::Device, 20'000, 110'500, stack);
    f.launch(199'000, 200'000, 300'000);
    f.sync(SyncKind::Device, 210'000, 300'500, stack);
    const auto report = f.load().analyze();
    QVERIFY(f.ok());
    const auto device = insightsOf(report, InsightRule::DeviceSync);
    QCOMPARE(device.size(), size_t(1));
    QCOMPARE(device[0]->rule, InsightRule::SyncAttribution); // narrowing is evidence, not a fix
    QCOMPARE(device[0]->count, int64_t(2));
    QCOMPARE(device[0]->blockedNs, int64_t(181'000));
    // Without the first wait the second kernel is launched at 108.5 µs and queues behind the
    // first (1 µs typical gap): it ends at 211 µs instead of 300 µs. Window: 10 µs to 300 µs.
    QCOMPARE(device[0]->savingsNs, int64_t(89'000));
    QCOMPARE(device[0]->share, 89'000.0 / 290'000.0);
    QCOMPARE(device[0]->severity, Severity::High);
    QCOMPARE(device[0]->eventCount, int64_t(2));
    QVERIFY(device[0]->evidence.find("stream 7") != std::string::npos);
    QVERIFY(device[0]->recommendation.find("torch.cuda.current_stream().synchronize()") !=
            std::string::npos);
}

void TestInsightRules::deviceSyncWithTwoActiveStreamsIsSilent() {
    InsightFixture f(m_dir.file("device2.stallscope"));
    const int64_t stack = f.pythonStack("/home/u/train.py", 100, "step");
    const int64_t side = f.addStream(9);
    f.launch(9'000, 10'000, 110'000);
    f.launch(9'500, 15'000, 100'000, side);
    f.sync(SyncKind::Device, 20'000, 110'500, stack);
    f.sync(SyncKind::Device, 500'000, 501'000, stack); // nothing running: not flagged either
    const auto report = f.load().analyze(testing::everySimulatedSiteAFinding());
    QVERIFY(f.ok());
    QVERIFY(insightsOf(report, InsightRule::DeviceSync).empty());
    // Calls count inside the window: the second sync comes after the last GPU work.
    QCOMPARE(insightsOf(report, InsightRule::SyncAttribution).at(0)->count, int64_t(1));
    QCOMPARE(report.sites.at(0).count, int64_t(2));
}

// Per 100 µs period, three periods: stream 7, then the default stream, then stream 9, each 10 µs,
// back to back: the default stream's kernel waits for stream 7 and stream 9 waits for it. In
// `overlapPeriod` the default stream's kernel starts 5 µs early, inside stream 7's.
static void writeThreeStreamPeriods(InsightFixture& f, int overlapPeriod = -1) {
    const int64_t legacy = f.addStream(0, true);
    const int64_t side = f.addStream(9);
    for (int i = 0; i < 3; ++i) {
        const int64_t p = 100'000 * i;
        f.kernel(p + 10'000, p + 20'000);
        f.kernel(p + (i == overlapPeriod ? 15'000 : 20'000), p + 30'000, 0, legacy);
        f.kernel(p + 30'000, p + 40'000, 0, side);
    }
}

void TestInsightRules::defaultStreamSerializes() {
    InsightFixture f(m_dir.file("default.stallscope"));
    writeThreeStreamPeriods(f);
    const auto report = f.load().analyze();
    QVERIFY(f.ok());
    const auto serial = insightsOf(report, InsightRule::DefaultStream);
    QCOMPARE(serial.size(), size_t(1));
    QCOMPARE(serial[0]->count, int64_t(3));
    QCOMPARE(serial[0]->savingsNs, int64_t(30'000));
    QCOMPARE(serial[0]->share, 30'000.0 / 230'000.0); // window: 10 µs to 240 µs
    QCOMPARE(serial[0]->severity, Severity::Medium);
    QCOMPARE(serial[0]->startNs, int64_t(20'000));
    QCOMPARE(serial[0]->endNs, int64_t(230'000));
    QCOMPARE(serial[0]->site.function, std::string("GPU 0 · stream 0 (default)"));
    // Streams sort by id: the default stream (0) is lane 0.
    QCOMPARE(*serial[0]->events, (model::EventSpans{{{EventKind::Kernel, 0, 0, 0}, 3}}));
    QVERIFY(serial[0]->title.find("serializes 2 other streams") != std::string::npos);
}

void TestInsightRules::overlappingStreamsAreNotSerialized() {
    InsightFixture f(m_dir.file("overlap.stallscope"));
    // Overlaps stream 7 once: the streams do not synchronize with the default stream.
    writeThreeStreamPeriods(f, /*overlapPeriod=*/1);
    const model::InsightReport report = f.load().analyze();
    QVERIFY(f.ok());
    QVERIFY(insightsOf(report, InsightRule::DefaultStream).empty());
}

void TestInsightRules::launchBoundStretch() {
    InsightFixture f(m_dir.file("launch.stallscope"));
    // 41 kernels of 2 µs, each 8 µs after the previous one ends. The first has no gap before it
    // (nothing precedes it on the device), so the stretch is kernels 1..40.
    for (int i = 0; i <= 40; ++i)
        f.kernel(10'000 + 10'000 * i, 12'000 + 10'000 * i);
    const auto report = f.load().analyze();
    QVERIFY(f.ok());
    const auto bound = insightsOf(report, InsightRule::LaunchBound);
    QCOMPARE(bound.size(), size_t(1));
    QCOMPARE(bound[0]->count, int64_t(1));
    QCOMPARE(bound[0]->kernelCount, int64_t(40));
    QCOMPARE(bound[0]->savingsNs, int64_t(39 * 7'750)); // 39 gaps of 8 µs, 0.25 µs left by a graph
    QCOMPARE(bound[0]->share, 302'250.0 / 402'000.0);   // window: 10 µs to 412 µs
    QCOMPARE(bound[0]->severity, Severity::High);
    QCOMPARE(bound[0]->startNs, int64_t(20'000));
    QCOMPARE(bound[0]->endNs, int64_t(412'000));
    QCOMPARE(*bound[0]->events, (model::EventSpans{{{EventKind::Kernel, 0, 0, 1}, 40}}));
    QVERIFY(bound[0]->evidence.find("40 kernels (avg 2 µs)") == 0);
    QVERIFY(bound[0]->evidence.find("avg 8 µs") != std::string::npos);
}

void TestInsightRules::launchBoundSilent() {
    InsightFixture f(m_dir.file("busy.stallscope"), 10'000'000);
    for (int i = 0; i <= 40; ++i) // short kernels, gaps shorter than the kernels
        f.kernel(10'000 + 3'000 * i, 12'000 + 3'000 * i);
    for (int i = 0; i <= 40; ++i) // long kernels with long gaps
        f.kernel(1'000'000 + 70'000 * i, 1'030'000 + 70'000 * i);
    for (int i = 0; i <= 20; ++i) // a short launch-bound run below the threshold
        f.kernel(5'000'000 + 10'000 * i, 5'002'000 + 10'000 * i);
    const model::InsightReport report = f.load().analyze();
    QVERIFY(f.ok());
    QVERIFY(insightsOf(report, InsightRule::LaunchBound).empty());
}

// Two threads wait 600 µs each for one kernel that keeps the GPU busy the whole window: no fix
// of the waits can end the run sooner than its GPU work.
void TestInsightRules::savingsCappedByGpuIdleTime() {
    InsightFixture f(m_dir.file("cap.stallscope"));
    const int64_t stack = f.pythonStack("/home/u/worker.py", 12, "run");
    const int64_t second = f.addThread(4243);
    f.launch(40'000, 50'000, 690'000);
    f.sync(SyncKind::Stream, 100'000, 700'000, stack, f.stream);
    f.sync(SyncKind::Stream, 100'000, 700'000, stack, f.stream, second);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    // By default a fix that saves nothing is no card (simulation.minSavingShare): a table row.
    const auto byDefault = loaded.analyze();
    QVERIFY(byDefault.insights.empty());
    QCOMPARE(byDefault.sites.at(0).savingsNs, int64_t(0));
    const auto report = loaded.analyze(testing::everySimulatedSiteAFinding());
    const auto attribution = insightsOf(report, InsightRule::SyncAttribution);
    QCOMPARE(attribution.size(), size_t(1));
    QCOMPARE(attribution[0]->blockedNs, int64_t(1'200'000));
    QCOMPARE(attribution[0]->savingsNs, int64_t(0));
    QCOMPARE(attribution[0]->share, 0.0);
    QCOMPARE(attribution[0]->severity, Severity::Low);
    QVERIFY(attribution[0]->evidence.find("GPU-bound here") != std::string::npos);
    // Over the active window [50, 690] µs, the syncs clipped to it: still above 100 %.
    QCOMPARE(report.summary.hostBlockedShare, 2 * 590'000.0 / 640'000.0);
}

void TestInsightRules::bubbleNeedsAnIdleGpu() {
    InsightFixture f(m_dir.file("busygpu.stallscope"));
    const int64_t stack = f.pythonStack("/home/u/train.py", 90, "train_step");
    const int64_t side = f.addStream(9);
    f.kernel(0, 900'000, 0, side); // keeps the device busy past every sync
    f.writeLoop(stack, 5, 4);
    const auto report = f.load().analyze(testing::everySimulatedSiteAFinding());
    QVERIFY(f.ok());
    QVERIFY(insightsOf(report, InsightRule::GpuBubble).empty());
    QCOMPARE(report.sites.at(0).bubbleNs, int64_t(0));
    // The side stream keeps the GPU busy until after the loop: the waits cost nothing, so the
    // five syncs with four launches between them are not an in-loop problem.
    QVERIFY(insightsOf(report, InsightRule::InLoopSync).empty());
    const auto site = insightsOf(report, InsightRule::SyncAttribution);
    QCOMPARE(site.size(), size_t(1));
    QCOMPARE(site[0]->savingsNs, int64_t(0));
    QVERIFY(site[0]->evidence.find("GPU-bound here") != std::string::npos);
}

void TestInsightRules::bubbleIsCappedPerSync() {
    InsightFixture f(m_dir.file("longgap.stallscope"), 3'000'000);
    const int64_t stack = f.pythonStack("/home/u/train.py", 90, "train_step");
    f.launch(9'000, 10'000, 99'000);
    f.sync(SyncKind::Stream, 20'000, 100'000, stack, f.stream);
    f.launch(2'099'000, 2'100'000, 2'200'000); // 2 ms later: only 1 ms counts
    const auto report = f.load().analyze();
    QVERIFY(f.ok());
    QCOMPARE(report.sites.at(0).bubbleNs, int64_t(1'000'000));
    const auto bubble = insightsOf(report, InsightRule::GpuBubble);
    QCOMPARE(bubble.size(), size_t(1));
    // The 2 ms before the next launch are host work: without the wait only the wait and the sync
    // statement's own 10.5 µs of CPU time go (the next kernel ends at 2.1095 ms instead of
    // 2.2 ms), not the idle time the bubble counts.
    QCOMPARE(bubble[0]->savingsNs, int64_t(90'500));
    QCOMPARE(bubble[0]->severity, Severity::Low); // 80 µs of the 2.19 ms window
}

void TestInsightRules::syncOnIdleGpuHasNoBubble() {
    InsightFixture f(m_dir.file("idle.stallscope"));
    const int64_t stack = f.pythonStack("/home/u/data.py", 88, "pin_memory_loop");
    const int64_t loader = f.addThread(4250);
    // A loader thread's event syncs find the GPU idle; the idle time after them is not theirs.
    for (int i = 0; i < 5; ++i) {
        const int64_t t0 = 100'000 * i;
        f.sync(SyncKind::Event, t0 + 60'000, t0 + 62'000, stack, f.stream, loader);
        f.launch(t0 + 80'000, t0 + 90'000, t0 + 100'000);
    }
    const auto report = f.load().analyze();
    QVERIFY(f.ok());
    QCOMPARE(report.sites.at(0).count, int64_t(5));
    QCOMPARE(report.sites.at(0).bubbleNs, int64_t(0));
    QVERIFY(insightsOf(report, InsightRule::GpuBubble).empty());
    QVERIFY(insightsOf(report, InsightRule::InLoopSync).empty()); // launches were on another thread
}

// host-gap: five 2 ms gaps in which the host sat at collate (4 samples each) between 1 ms
// kernels. When the last gap ends in a kernel's first run (another name) it is CUDA loading that
// kernel's module, not collate: 4 gaps are counted, and the evidence says why the fifth is not.
void TestInsightRules::hostGapLeavesOutModuleLoads() {
    // Nothing when the fixture or the one finding failed (which failed the test).
    auto hostGap = [this](bool lastIsFirstRun, std::string* evidence,
                          bool powerCapped = false) -> std::optional<int64_t> {
        const std::string name = std::string(lastIsFirstRun ? "module-load" : "no-load") +
                                 (powerCapped ? "-capped" : "") + ".stallscope";
        InsightFixture f(m_dir.file(name.c_str()), 20'000'000);
        const int64_t collate = f.pythonStack("/home/u/data.py", 72, "collate");
        const int64_t firstRunName = f.writer().internString("first_run_kernel");
        for (int step = 0; step < 6; ++step) {
            const int64_t start = 1'000'000 + 3'000'000 * step;
            const int64_t correlation =
                step == 5 && lastIsFirstRun ? 0 : f.launch(start - 600, start, start + 1'000'000);
            if (correlation == 0) { // the same launch, its kernel under a name of its own
                f.writer().addApiCall({f.thread, format::ApiDomain::Runtime, 211,
                                       f.writer().internString("cudaLaunchKernel"), start - 600,
                                       start - 100, 999, 0});
                f.writer().addKernel({f.stream,
                                      firstRunName,
                                      start,
                                      start + 1'000'000,
                                      999,
                                      {1, 1, 1},
                                      {128, 1, 1},
                                      32,
                                      0,
                                      0});
            }
            if (step < 5)
                f.writer().addHostSample(
                    {f.thread, start + 1'200'000, start + 2'800'000, 4, collate});
        }
        if (powerCapped) {
            f.writer().setMeta(format::meta::kGpuPowerBusySamples, "10");
            f.writer().setMeta(format::meta::kGpuPowerCappedSamples, "10");
        }
        const testing::LoadedFixture loaded = f.load();
        if (!loaded.ok())
            return std::nullopt;
        const model::InsightReport report = loaded.analyze();
        const auto found = insightsOf(report, InsightRule::HostGap);
        if (found.size() != 1) {
            STALLSCOPE_FAIL("%s: expected one host-gap finding, found %zu", name.c_str(),
                            found.size());
            return std::nullopt;
        }
        *evidence = found[0]->evidence + "\nassumed: " + report.assumptions;
        return found[0]->savingsNs;
    };
    std::string all, rest;
    QCOMPARE(hostGap(false, &all), std::optional<int64_t>(10'000'000));
    QVERIFY2(all.find("in 5 gaps") != std::string::npos &&
                 all.find("first run") == std::string::npos,
             all.c_str());
    QCOMPARE(hostGap(true, &rest), std::optional<int64_t>(8'000'000));
    QVERIFY2(rest.find("in 4 gaps") != std::string::npos, rest.c_str());
    QVERIFY2(rest.find("not counted: 1 gap before a kernel's first run") != std::string::npos,
             rest.c_str());
    // At the GPU's power cap the overlapped idle time is discounted as a sync fix's is.
    std::string capped;
    QCOMPARE(hostGap(false, &capped, true), std::optional<int64_t>(6'000'000));
    QVERIFY2(capped.find("power limit (10 of 10 busy samples)") != std::string::npos,
             capped.c_str());
}

// A cudaFree in the loop (a BlockingAlloc sync, writeLoop's timing): no sync to move after the
// loop, memory to keep: the card's fix is the allocation advice.
void TestInsightRules::inLoopFreeGetsTheAllocationAdvice() {
    InsightFixture f(m_dir.file("free.stallscope"));
    const int64_t stack = f.nativeStack("/src/train.cu", 100, "runStep");
    for (int i = 0; i < 5; ++i) {
        const int64_t t0 = 100'000 * i + 10'000;
        for (int k = 0; k < 4; ++k)
            f.launch(t0 + 1'000 * k, t0 + 2'000 + 10'000 * k, t0 + 12'000 + 10'000 * k);
        f.sync(SyncKind::BlockingAlloc, t0 + 4'000, t0 + 42'500, stack);
    }
    const model::InsightReport report = f.load().analyze(); // (insightsOf points into it)
    QVERIFY(f.ok());
    const auto loops = insightsOf(report, InsightRule::InLoopSync);
    QCOMPARE(loops.size(), size_t(1));
    QVERIFY(loops[0]->recommendation.find("preallocate buffers outside the loop") !=
            std::string::npos);
    QVERIFY(loops[0]->recommendation.find("Move the synchronize") == std::string::npos);
}

// Launch-bound loops of cuBLAS calls: each call's second kernel is queued right behind its first
// (0.5 µs later), and the stretch goes on through it. 21 pairs of a 2 µs and a 1 µs kernel, the
// pairs 8.5 µs apart: pairs 1..20 are the stretch (the device's first kernel has no gap, the
// second then has no stretch to join), 40 kernels, half of them separated by idle gaps; the
// estimate counts the 19 gaps between pairs, less launchBound.graphGapNs each. With two queued
// kernels behind each separated one the run is mostly back to back: not launch-bound.
void TestInsightRules::launchBoundThroughQueuedKernels() {
    for (const int queued : {1, 2}) {
        InsightFixture f(m_dir.file(queued == 1 ? "cublas1.stallscope" : "cublas2.stallscope"));
        for (int i = 0; i <= 20; ++i) {
            int64_t t = 10'000 + 12'000 * i;
            f.kernel(t, t + 2'000);
            t += 2'000;
            for (int k = 0; k < queued; ++k, t += 1'500)
                f.kernel(t + 500, t + 1'500);
        }
        const model::InsightReport report = f.load().analyze();
        QVERIFY(f.ok());
        const auto bound = insightsOf(report, InsightRule::LaunchBound);
        if (queued == 2) {
            QVERIFY(bound.empty());
            continue;
        }
        QCOMPARE(bound.size(), size_t(1));
        QCOMPARE(bound[0]->kernelCount, int64_t(40));
        QCOMPARE(bound[0]->startNs, int64_t(22'000));
        QCOMPARE(bound[0]->endNs, int64_t(10'000 + 12'000 * 20 + 3'500));
        QCOMPARE(bound[0]->savingsNs, int64_t(19 * (8'500 - 250)));
    }
}

STALLSCOPE_TEST_GUILESS_MAIN(TestInsightRules)
#include "test_insight_rules.moc"
