// The default analysis window is the program's loop (model/analysis/steady_state.h): found from
// the kernel sequence's period after a long start-up, on both sides of the fewest steps, with a
// slow first step left to warm-up, an extra kernel every ten steps, one kernel name launched
// several times a step, batches of several shapes in turn, and from profiler steps; the finding's
// share and severity are per step of the loop where the active window dilutes them. Also the fix
// each card recommends is the one replayed: a device-wide sync beside a busy side stream waits for
// its own stream alone; a pageable host->device copy is a finding whose fix pins the source. The
// syncs of a line's op in its backward pass: test_backward_syncs.
#include "model/analysis/analysis_window.h"
#include "model/analysis/insight_json.h"
#include "model/analysis/insight_text.h"
#include "model/analysis/steady_state.h"
#include "model/analysis/sync_operations.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using testing::insightAt;
using testing::InsightFixture;
using Kind = format::SyncKind;

namespace {

constexpr int64_t kStepNs = 1'000'000;
constexpr int64_t kLoopStartNs = 1'000'000'000; // a second of start-up before the loop

// One training step at t0: forward, backward and optimizer kernels (600 µs of GPU work) launched
// by the main thread, then a loss read that waits for them; the host then prepares the next batch
// until t0 + stepNs, while the GPU sits idle.
void trainingStep(InsightFixture& f, int64_t t0, int64_t stack, int64_t stepNs = kStepNs) {
    f.setKernelName("fwd");
    f.launch(t0, t0 + 20'000, t0 + 220'000);
    f.setKernelName("bwd");
    f.launch(t0 + 10'000, t0 + 220'000, t0 + 520'000);
    f.setKernelName("opt");
    f.launch(t0 + 20'000, t0 + 520'000, t0 + 620'000);
    f.sync(Kind::Stream, t0 + 30'000, std::min(t0 + 625'000, t0 + stepNs - 1'000), stack, f.stream);
}

// Start-up kernels (cuBLAS, the model's initialisation) at 10–20 ms, then `steps` training steps
// from kLoopStartNs, then an evaluation kernel 500 ms after the loop.
struct TrainingRun {
    int64_t stack = 0;
    int64_t firstKernelNs = 10'000'000;
    int64_t evalEndNs = 0;
};
TrainingRun writeTrainingRun(InsightFixture& f, int steps) {
    TrainingRun run;
    run.stack = f.pythonStack("/home/u/train.py", 41, "main");
    f.setKernelName("init_weights");
    for (int i = 0; i < 3; ++i)
        f.launch(run.firstKernelNs - 5'000 + i * 3'000'000, run.firstKernelNs + i * 3'000'000,
                 run.firstKernelNs + i * 3'000'000 + 50'000);
    for (int i = 0; i < steps; ++i)
        trainingStep(f, kLoopStartNs + i * kStepNs, run.stack);
    const int64_t evalStart = kLoopStartNs + steps * kStepNs + 500'000'000;
    f.setKernelName("eval");
    f.launch(evalStart - 5'000, evalStart, evalStart + 100'000);
    run.evalEndNs = evalStart + 100'000;
    return run;
}

} // namespace

class TestSteadyState : public QObject {
    Q_OBJECT
private slots:
    void loopAfterLongStartup();
    void sharesAndSeverityPerStep();
    void siteSharesAreOfTheWindow();
    void fewestSteps_data();
    void fewestSteps();
    void slowFirstStepIsWarmup();
    void extraKernelEveryTenSteps();
    void oneKernelSeveralTimesAStep_data();
    void oneKernelSeveralTimesAStep();
    void batchesOfSeveralShapes();
    void kernelsRepeatEveryFewSyncs_data();
    void kernelsRepeatEveryFewSyncs();
    void profilerStepsFirst();
    void deviceSyncBesideBusySideStream_data();
    void deviceSyncBesideBusySideStream();
    void pageableUploadIsAFinding();
    void controlFlowRead_data();
    void controlFlowRead();

private:
    std::string path(const std::string& name) { return m_dir.filePath(name.c_str()).toStdString(); }
    QTemporaryDir m_dir;
};

void TestSteadyState::loopAfterLongStartup() {
    InsightFixture f(path("startup.stallscope"), 3'000'000'000);
    const TrainingRun run = writeTrainingRun(f, 40);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::AnalysisWindow window = model::defaultWindow(*loaded.session);
    QCOMPARE(window.kind, model::AnalysisWindow::Kind::Loop);
    QCOMPARE(window.loop.source, model::SteadyState::Source::KernelPeriod);
    QCOMPARE(window.loop.kernelsPerStep, int64_t(3));
    // Steps run from one forward kernel to the next; the last one ends with its optimizer kernel.
    QCOMPARE(window.steps, int64_t(40));
    QCOMPARE(window.startNs, kLoopStartNs + 20'000);
    QCOMPARE(window.endNs, kLoopStartNs + 39 * kStepNs + 620'000);
    QCOMPARE(window.loop.stepNs(), (39 * kStepNs + 600'000) / 40);
    QCOMPARE(window.loop.warmupNs, window.startNs - run.firstKernelNs);
    QCOMPARE(window.loop.tailNs, run.evalEndNs - window.endNs);
    QCOMPARE(window.label, std::string("loop: 40 steps of 990 µs (the repeating kernel sequence, 3 "
                                       "kernels a step)"));

    const model::InsightReport report = loaded.analyze();
    const model::SessionStatistics& s = report.summary;
    QCOMPARE(s.steps, int64_t(40));
    QCOMPARE(s.stepNs, window.loop.stepNs());
    QCOMPARE(s.warmupNs, window.loop.warmupNs);
    QCOMPARE(s.tailNs, window.loop.tailNs);
    QCOMPARE(s.startupNs, window.startNs);
    const std::string text = model::insightReportToText(report);
    QVERIFY2(text.find("Outside the loop: start-up 10 ms, warm-up 990 ms, tail 500 ms") !=
                 std::string::npos,
             text.c_str());
    const QJsonObject loop =
        model::insightReportToJsonObject(report)["summary"].toObject()["loop"].toObject();
    QCOMPARE(loop["steps"].toInteger(), 40);
    QCOMPARE(loop["step_ns"].toInteger(), window.loop.stepNs());
    // `--window active` keeps the old window: from the first kernel.
    std::string error;
    const auto active = model::parseWindow("active", *loaded.session, &error);
    QVERIFY(active);
    QCOMPARE(active->startNs, run.firstKernelNs);
    QCOMPARE(active->steps, int64_t(0));
    QCOMPARE(model::parseWindow("loop", *loaded.session, &error)->startNs, window.startNs);
}

void TestSteadyState::sharesAndSeverityPerStep() {
    InsightFixture f(path("per-step.stallscope"), 3'000'000'000);
    writeTrainingRun(f, 40);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::InsightReport perStep = loaded.analyze();
    const model::Insight* read = insightAt(perStep, 41);
    QVERIFY(read);
    // The host's 375 µs of batch preparation a step overlaps the GPU's 600 µs once the read goes.
    QVERIFY2(read->stepSavingsNs >= 300'000 && read->stepSavingsNs <= 420'000,
             std::to_string(read->stepSavingsNs).c_str());
    QCOMPARE(read->stepSavingsNs, read->savingsNs / 40);
    QVERIFY(read->share > 0.3);
    QCOMPARE(read->severity, model::Severity::High);
    QVERIFY2(model::savingText(*read, perStep.summary)
                     .find("390 µs a step of 990 µs (39.4 %; 15.6 ms over 40 steps)") !=
                 std::string::npos,
             model::savingText(*read, perStep.summary).c_str());
    const QJsonObject json = model::insightReportToJsonObject(perStep)["insights"][0].toObject();
    QCOMPARE(json["step_savings_ns"].toInteger(), read->stepSavingsNs);

    // Over the active window (start-up and tail included) the same fix reads as under 1 %: LOW.
    model::AnalysisOptions options;
    options.window = model::activeWindow(*loaded.session);
    const model::InsightReport diluted = loaded.analyze(options);
    const model::Insight* same = insightAt(diluted, 41);
    QVERIFY(same);
    QVERIFY(same->share < 0.02);
    QCOMPARE(same->severity, model::Severity::Low);
    QCOMPARE(same->stepSavingsNs, int64_t(0));
}

// A site's share is of the same window as a finding's (issue 42: a card's 27.7 % beside a table's
// 7.8 % of the wall time): the loop site's syncs in the window over the window without the
// recorder's cost; a start-up site counts in no share and shows "–".
void TestSteadyState::siteSharesAreOfTheWindow() {
    InsightFixture f(path("site-shares.stallscope"), 3'000'000'000);
    const int64_t setup = f.pythonStack("/home/u/train.py", 12, "main");
    f.sync(Kind::Device, 30'000'000, 130'000'000, setup); // 100 ms in start-up
    writeTrainingRun(f, 40);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::InsightReport report = loaded.analyze();
    const model::SessionStatistics& s = report.summary;
    const auto site = [&](int64_t line) {
        for (const model::SyncSiteStats& stats : report.sites)
            if (stats.site.line == line)
                return stats;
        return model::SyncSiteStats{};
    };
    const model::SyncSiteStats loop = site(41), startup = site(12);
    QCOMPARE(loop.blockedNs, 40 * 595'000LL);
    QCOMPARE(loop.windowBlockedNs, loop.blockedNs); // every loop sync begins in the window
    QCOMPARE(loop.share,
             double(loop.windowBlockedNs) / double(s.windowNs - s.recorderCostInWindowNs));
    QCOMPARE(startup.blockedNs, 100'000'000LL);
    QCOMPARE(startup.windowBlockedNs, 0LL);
    QCOMPARE(startup.share, 0.0);
    QCOMPARE(model::siteShareText(startup), std::string("–"));
    QCOMPARE(model::siteShareText(loop), model::formatShare(loop.share));
    const QJsonArray sites = model::insightReportToJsonObject(report)["sites"].toArray();
    for (const QJsonValue& value : sites)
        if (value["site"]["line"].toInteger() == 12)
            QCOMPARE(value["window_blocked_ns"].toInteger(), 0);
    const std::string text = model::insightReportToText(report);
    QVERIFY2(text.find("share of the window") != std::string::npos, text.c_str());
}

void TestSteadyState::fewestSteps_data() {
    QTest::addColumn<int>("iterations");
    QTest::addColumn<bool>("loop");
    // kSteadyStateMinKernelPeriods steps between boundaries, and the last iteration after them.
    QTest::newRow("20 iterations: no loop") << int(model::kSteadyStateMinKernelPeriods) << false;
    QTest::newRow("21 iterations: a loop") << int(model::kSteadyStateMinKernelPeriods + 1) << true;
}

void TestSteadyState::fewestSteps() {
    QFETCH(int, iterations);
    QFETCH(bool, loop);
    InsightFixture f(path("fewest.stallscope"), 2'000'000'000);
    const int64_t stack = f.pythonStack("/home/u/train.py", 41, "main");
    for (int i = 0; i < iterations; ++i)
        trainingStep(f, kLoopStartNs + i * kStepNs, stack);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::AnalysisWindow window = model::defaultWindow(*loaded.session);
    QCOMPARE(window.kind == model::AnalysisWindow::Kind::Loop, loop);
    QCOMPARE(window.steps, loop ? int64_t(iterations) : int64_t(0));
    if (!loop)
        QCOMPARE(window.startNs, model::activeWindow(*loaded.session).startNs);
}

void TestSteadyState::slowFirstStepIsWarmup() {
    InsightFixture f(path("warmup.stallscope"), 2'000'000'000);
    const int64_t stack = f.pythonStack("/home/u/train.py", 41, "main");
    // The first step takes 5 ms (CUDA loads the kernels' modules), the second 2.1 ms: both more
    // than twice the median step; the third is a step like the others.
    trainingStep(f, kLoopStartNs, stack, 5 * kStepNs);
    trainingStep(f, kLoopStartNs + 5 * kStepNs, stack, 2'100'000);
    const int64_t steady = kLoopStartNs + 5 * kStepNs + 2'100'000;
    for (int i = 0; i < 30; ++i)
        trainingStep(f, steady + i * kStepNs, stack);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::AnalysisWindow window = model::defaultWindow(*loaded.session);
    QCOMPARE(window.kind, model::AnalysisWindow::Kind::Loop);
    QCOMPARE(window.startNs, steady + 20'000);
    QCOMPARE(window.steps, int64_t(30));
    QCOMPARE(window.loop.warmupNs, steady - kLoopStartNs);
}

void TestSteadyState::extraKernelEveryTenSteps() {
    // Steps of 30 kernels (k0 … k29, 20 µs each), a stream sync, and every tenth step one more
    // kernel (the logged loss's mean): the kernels repeat exactly every 301, but the step is 30.
    InsightFixture f(path("log-every-ten.stallscope"), 2'000'000'000);
    const int64_t stack = f.pythonStack("/home/u/train.py", 41, "main");
    for (int i = 0; i < 60; ++i) {
        const int64_t t0 = kLoopStartNs + i * kStepNs;
        for (int k = 0; k < 30; ++k) {
            f.setKernelName("k" + std::to_string(k));
            f.launch(t0 + k * 1'000, t0 + 40'000 + k * 20'000, t0 + 60'000 + k * 20'000);
        }
        if (i % 10 == 9) {
            f.setKernelName("mean");
            f.launch(t0 + 31'000, t0 + 640'000, t0 + 650'000);
        }
        f.sync(Kind::Stream, t0 + 35'000, t0 + 655'000, stack, f.stream);
    }
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::AnalysisWindow window = model::defaultWindow(*loaded.session);
    QCOMPARE(window.kind, model::AnalysisWindow::Kind::Loop);
    QCOMPARE(window.loop.kernelsPerStep, int64_t(30));
    QCOMPARE(window.steps, int64_t(60));
    QCOMPARE(window.startNs, kLoopStartNs + 40'000);
}

void TestSteadyState::oneKernelSeveralTimesAStep_data() {
    QTest::addColumn<int>("launches");
    QTest::addColumn<bool>("pauses");
    // Three: a third of the steps by name would be long. Ten: nine in ten such steps are near
    // the median, but the long tenth holds 40 % of the loop's time. With a pause: once, the GPU
    // also sits idle before a step's fifth kernel (the host was slow to launch it), which looks
    // like a step's start and is not a boundary.
    QTest::newRow("3 a step") << 3 << false;
    QTest::newRow("10 a step") << 10 << false;
    QTest::newRow("10 a step, a pause inside one") << 10 << true;
}

void TestSteadyState::oneKernelSeveralTimesAStep() {
    // A C++ loop that launches one kernel several times, then synchronizes and works on the
    // host: the names repeat every kernel, the steps every `launches`.
    QFETCH(int, launches);
    QFETCH(bool, pauses);
    InsightFixture f(path("same-kernel.stallscope"), 2'000'000'000);
    const int64_t stack = f.nativeStack("/src/solver.cu", 88, "main");
    const int64_t kernelNs = 500'000 / launches;
    for (int i = 0; i < 30; ++i) {
        const int64_t t0 = kLoopStartNs + i * kStepNs;
        for (int k = 0; k < launches; ++k) {
            const int64_t pause = pauses && i == 17 && k >= 4 ? 50'000 : 0;
            f.launch(t0 + k * 1'000, t0 + 10'000 + k * kernelNs + pause,
                     t0 + 10'000 + (k + 1) * kernelNs + pause);
        }
        f.sync(Kind::Stream, t0 + 4'000, t0 + 615'000, stack, f.stream);
    }
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::AnalysisWindow window = model::defaultWindow(*loaded.session);
    QCOMPARE(window.kind, model::AnalysisWindow::Kind::Loop);
    QCOMPARE(window.loop.kernelsPerStep, int64_t(launches));
    QCOMPARE(window.steps, int64_t(30));
    QCOMPARE(window.startNs, kLoopStartNs + 10'000);
}

void TestSteadyState::batchesOfSeveralShapes() {
    // Inference over batches bucketed by length, the buckets in turn, a sync after each batch
    // (torch.cuda.empty_cache()): the kernels repeat every three batches, and every name occurs
    // more than once in those three (the norms and activation of each batch, each bucket's GEMM
    // twice), so no single kernel marks where a batch starts; the bucket's GEMM after it does.
    InsightFixture f(path("length-buckets.stallscope"), 2'000'000'000);
    const int64_t stack = f.pythonStack("/home/u/infer.py", 34, "run");
    // A batch's kernels take time in proportion to its length: its intervals between syncs
    // differ fourfold (no one population), and repeat every three.
    const char* gemms[] = {"gemm_64", "gemm_128", "gemm_256"};
    const int64_t kernelNs[] = {50'000, 100'000, 200'000};
    int64_t t0 = kLoopStartNs;
    for (int i = 0; i < 90; ++i) {
        const char* kernelsOfBatch[] = {"norm", gemms[i % 3], "act", gemms[i % 3], "norm"};
        const int64_t gpuNs = 5 * kernelNs[i % 3];
        for (int k = 0; k < 5; ++k) {
            f.setKernelName(kernelsOfBatch[k]);
            f.launch(t0 + k * 2'000, t0 + 20'000 + k * kernelNs[i % 3],
                     t0 + 20'000 + (k + 1) * kernelNs[i % 3]);
        }
        f.sync(Kind::Device, t0 + 12'000, t0 + 25'000 + gpuNs, stack, f.stream);
        t0 += 25'000 + gpuNs + 100'000; // the host then prepares the next batch
    }
    const int64_t lastBatchEndNs = t0 - 105'000;
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::AnalysisWindow window = model::defaultWindow(*loaded.session);
    QCOMPARE(window.kind, model::AnalysisWindow::Kind::Loop);
    QCOMPARE(window.loop.kernelsPerStep, int64_t(15));
    QCOMPARE(window.loop.syncsPerPeriod, int64_t(3));
    // A batch's first kernel starts the period (the GPU waited for it, not for the GEMM after
    // it): the first batch's; the loop ends with the last batch's last kernel; a step is a batch.
    QCOMPARE(window.startNs, kLoopStartNs + 20'000);
    QCOMPARE(window.endNs, lastBatchEndNs);
    QCOMPARE(window.steps, int64_t(90));
}

void TestSteadyState::kernelsRepeatEveryFewSyncs_data() {
    QTest::addColumn<int>("pattern");
    QTest::addColumn<int>("syncsPerPeriod");
    // Two syncs of one line with no launch between are one call of it (x.cuda() and y.cuda()
    // from pageable memory; empty_cache() freeing several blocks): a step an iteration, whether
    // 20 µs or half an iteration apart; with a launch between, two calls, so two steps.
    QTest::newRow("a sync an iteration") << 0 << 5;
    QTest::newRow("two syncs an iteration") << 1 << 5;
    QTest::newRow("two reads half an iteration apart") << 2 << 5;
    QTest::newRow("two syncs half an iteration apart, a launch between") << 3 << 10;
    // Without stacks (a light recording) there are no lines: all the thread's syncs, whose
    // intervals 20 µs apart are short and long by turns, so the step stays the kernels' period.
    QTest::newRow("two syncs an iteration, no stacks") << 5 << 1;
    // The same at two lines (a loss read after the forward, a norm read after the backward):
    // each line syncs once an iteration, so the step is the iteration, not half of it.
    QTest::newRow("two lines an iteration, a launch between") << 4 << 5;
}

void TestSteadyState::kernelsRepeatEveryFewSyncs() {
    // Each iteration launches a step kernel and syncs; every fifth also launches a snapshot
    // kernel: the kernels repeat every five iterations, the syncs every one.
    QFETCH(int, pattern);
    QFETCH(int, syncsPerPeriod);
    InsightFixture f(path("snapshot-every-five.stallscope"), 2'000'000'000);
    const std::optional<int64_t> stack =
        pattern == 5 ? std::nullopt
                     : std::optional<int64_t>(f.nativeStack("/src/filter.cu", 128, "main"));
    const std::optional<int64_t> secondStack =
        pattern == 4 ? f.nativeStack("/src/filter.cu", 140, "main") : stack;
    const bool twoSyncsAtOnce = pattern == 1 || pattern == 5;
    for (int i = 0; i < 200; ++i) {
        const int64_t t0 = kLoopStartNs + i * kStepNs;
        f.setKernelName("propagate");
        f.launch(t0, t0 + 10'000, t0 + 300'000);
        if (i % 5 == 0) {
            f.setKernelName("snapshot");
            f.launch(t0 + 1'000, t0 + 300'000, t0 + 350'000);
        }
        f.sync(Kind::Stream, t0 + (twoSyncsAtOnce ? 340'000 : 4'000), t0 + 355'000, stack,
               f.stream);
        if (twoSyncsAtOnce)
            f.sync(Kind::Stream, t0 + 360'000, t0 + 361'000, stack, f.stream);
        if (pattern >= 2 && pattern <= 4) {
            if (pattern >= 3) // a launch call (its kernel not recorded: the period stays)
                f.writer().addApiCall({f.thread, format::ApiDomain::Runtime, 211,
                                       f.writer().internString("cudaLaunchKernel"),
                                       t0 + kStepNs / 2 - 3'000, t0 + kStepNs / 2 - 2'500,
                                       900'000 + i, 0});
            f.sync(Kind::Stream, t0 + kStepNs / 2, t0 + kStepNs / 2 + 1'000, secondStack, f.stream);
        }
    }
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::AnalysisWindow window = model::defaultWindow(*loaded.session);
    QCOMPARE(window.kind, model::AnalysisWindow::Kind::Loop);
    QCOMPARE(window.loop.kernelsPerStep, int64_t(6));
    QCOMPARE(window.loop.syncsPerPeriod, int64_t(syncsPerPeriod));
    // From the first snapshot to the last (whose period the session ends inside): 39 periods.
    QCOMPARE(window.steps, int64_t(39 * syncsPerPeriod));
    if (pattern != 0)
        return;
    QCOMPARE(window.startNs, kLoopStartNs + 300'000);
    QCOMPARE(window.loop.stepNs() / 10'000, kStepNs / 10'000);
}

void TestSteadyState::profilerStepsFirst() {
    InsightFixture f(path("profiler-steps.stallscope"), 2'000'000'000);
    const int64_t stack = f.pythonStack("/home/u/train.py", 41, "main");
    // Eight ProfilerStep ranges; the first is the slow one (warm-up), and the kernels would make
    // a loop of their own: the ranges come first.
    int64_t t = kLoopStartNs;
    for (int i = 0; i < 8; ++i) {
        const int64_t length = i == 0 ? 4 * kStepNs : kStepNs;
        trainingStep(f, t, stack, length);
        f.writer().addRange({f.thread, format::RangeKind::NvtxPushPop,
                             f.writer().internString("ProfilerStep#" + std::to_string(i + 1)), t,
                             t + length, 0});
        t += length;
    }
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::AnalysisWindow window = model::defaultWindow(*loaded.session);
    QCOMPARE(window.kind, model::AnalysisWindow::Kind::Loop);
    QCOMPARE(window.loop.source, model::SteadyState::Source::Steps);
    QCOMPARE(window.steps, int64_t(7));
    QCOMPARE(window.startNs, kLoopStartNs + 4 * kStepNs);
    QCOMPARE(window.endNs, t);
}

void TestSteadyState::deviceSyncBesideBusySideStream_data() {
    QTest::addColumn<bool>("sideLaunchedLast");
    // The host's own stream is the one it launched to last, or, where it queued a copy to the host
    // (the value it reads), that copy's stream, even with the side work launched after it.
    QTest::newRow("main stream launched last") << false;
    QTest::newRow("side launched after the read's copy") << true;
}

void TestSteadyState::deviceSyncBesideBusySideStream() {
    // Each step: the main stream's 500 µs kernel, whose result the host reads, beside a side
    // stream's 700 µs kernel; torch.cuda.synchronize() waits for both, then 300 µs of host work.
    // The recommended fix, a sync on the main stream, still waits 500 µs: the step becomes
    // 500 µs + 300 µs of host work (saving ~200 µs), not the side stream's 700 µs that removing
    // the wait altogether would give (saving ~300 µs).
    QFETCH(bool, sideLaunchedLast);
    InsightFixture f(path("side-stream.stallscope"), 2'000'000'000);
    const int64_t side = f.addStream(9);
    const int64_t stack = f.pythonStack("/home/u/overlap.py", 30, "main");
    const int64_t copyName = f.writer().internString("cudaMemcpyAsync");
    for (int i = 0; i < 30; ++i) {
        const int64_t t0 = kLoopStartNs + i * kStepNs;
        const int64_t sideLaunch = sideLaunchedLast ? t0 + 3'000 : t0;
        f.setKernelName("side_work");
        f.launch(sideLaunch, sideLaunch + 10'000, sideLaunch + 710'000, side);
        f.setKernelName("main_work");
        f.launch(t0 + 1'000, t0 + 11'000, t0 + 510'000);
        if (sideLaunchedLast) { // the result's copy to the host, queued on the main stream
            const int64_t copy =
                f.memcpy(t0 + 510'000, t0 + 512'000, format::CopyKind::DtoH,
                         format::MemoryKind::Device, format::MemoryKind::Pinned, 4, true);
            f.writer().addApiCall({f.thread, format::ApiDomain::Runtime, 41, copyName, t0 + 2'000,
                                   t0 + 2'500, copy, 0});
        }
        f.sync(Kind::Device, t0 + 4'000, std::max(sideLaunch + 710'000, t0 + 700'000) + 15'000,
               stack);
    }
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::InsightReport report = loaded.analyze();
    QCOMPARE(report.summary.steps, int64_t(30));
    const model::Insight* sync = insightAt(report, 30);
    QVERIFY(sync);
    QCOMPARE(sync->assumption, std::string("if it waited for its own stream's work alone"));
    QVERIFY2(sync->recommendation.rfind("torch.cuda.synchronize() here also waits", 0) == 0,
             sync->recommendation.c_str());
    QVERIFY2(sync->stepSavingsNs >= 150'000 && sync->stepSavingsNs <= 250'000,
             std::to_string(sync->stepSavingsNs).c_str());
}

void TestSteadyState::pageableUploadIsAFinding() {
    // Each step uploads a 16 MiB batch from pageable memory (.to("cuda", non_blocking=True)): the
    // host waits 400 µs for the staged copy, then launches the step's kernel.
    InsightFixture f(path("pageable-upload.stallscope"), 2'000'000'000);
    const int64_t stack = f.pythonStack("/home/u/loader.py", 12, "main");
    for (int i = 0; i < 30; ++i) {
        const int64_t t0 = kLoopStartNs + i * kStepNs;
        const int64_t copy =
            f.memcpy(t0 + 50'000, t0 + 400'000, format::CopyKind::HtoD,
                     format::MemoryKind::Pageable, format::MemoryKind::Device, 16 << 20, true);
        f.sync(Kind::PageableCopy, t0 + 10'000, t0 + 405'000, stack, f.stream, std::nullopt, copy);
        f.setKernelName("forward");
        f.launch(t0 + 410'000, t0 + 420'000, t0 + 900'000);
    }
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::InsightReport report = loaded.analyze();
    const model::Insight* upload = insightAt(report, 12);
    QVERIFY(upload);
    QCOMPARE(upload->rule, model::InsightRule::PageableCopy);
    QVERIFY2(upload->title.find("locking copy from pageable memory") != std::string::npos,
             upload->title.c_str());
    QVERIFY2(upload->recommendation.find("pin_memory=True") != std::string::npos,
             upload->recommendation.c_str());
    QVERIFY2(upload->evidence.find("host→device copies from pageable memory (480.0 MiB)") !=
                 std::string::npos,
             upload->evidence.c_str());
    QVERIFY(upload->stepSavingsNs > 0);
}

void TestSteadyState::controlFlowRead_data() {
    QTest::addColumn<QString>("calledOp");
    QTest::addColumn<bool>("decides");
    // `if torch.isfinite(norm):` calls is_nonzero; `norms.append(norm.item())` calls item.
    QTest::newRow("if on a tensor") << "at::_ops::is_nonzero::call(at::Tensor const&)" << true;
    QTest::newRow("a logged read") << "at::_ops::item::call(at::Tensor const&)" << false;
}

void TestSteadyState::controlFlowRead() {
    QFETCH(QString, calledOp);
    QFETCH(bool, decides);
    InsightFixture f(path("control-flow.stallscope"), 2'000'000'000);
    format::FrameRow line;
    line.kind = format::FrameKind::Python;
    line.file = "/home/u/train.py";
    line.line = 77;
    line.function = "main";
    const int64_t python = f.writer().addFrame(line);
    const int64_t stack =
        f.stackOf({f.driverFrame(),
                   f.nativeFrame("", 0, "at::_ops::_local_scalar_dense::call(at::Tensor const&)"),
                   f.nativeFrame("", 0, calledOp.toStdString()), python});
    for (int i = 0; i < 20; ++i)
        trainingStep(f, kLoopStartNs + i * kStepNs, stack);
    const auto loaded = f.load({python});
    QVERIFY(loaded.ok());
    const model::InsightReport report = loaded.analyze();
    const model::Insight* read = insightAt(report, 77);
    QVERIFY(read);
    // The catalog's operation names the card and gives its fix (sync_operations.h).
    QVERIFY(read->operation);
    QCOMPARE(std::string(read->operation->id), std::string(decides ? "bool-condition" : "item"));
    QVERIFY2(read->title.starts_with(decides ? "if/bool() on a CUDA tensor × 20 at train.py:77"
                                             : ".item() × 20 at train.py:77"),
             read->title.c_str());
    QVERIFY2((read->recommendation.find("torch.where") != std::string::npos) == decides,
             read->recommendation.c_str());
    QCOMPARE(read->assumption == "if the decision stayed on the GPU and the host did not wait here",
             decides);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSteadyState)
#include "test_steady_state.moc"
