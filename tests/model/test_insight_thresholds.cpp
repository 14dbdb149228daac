// Every threshold of InsightThresholds at its boundary, from both sides, with the default values
// written out as docs/insights.md documents them (not read from the struct, so that a changed
// constant fails too): a threshold moved by one unit, or a comparison turned from < to <=, fails
// one of these. The
// rules' full output is tested in test_insight_rules; here only "fires or not" and the number the
// threshold bounds. Shares are over the active window (first kernel to last GPU work). The power
// thresholds are tested in test_power_thresholds.
#include "tests/model/insight_fixture.h"
#include "tests/support/optional_text.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>
#include <optional>
#include <vector>

using namespace stallscope;
using format::SyncKind;
using model::InsightRule;
using model::Severity;
using testing::InsightFixture;
using testing::insightsOf;

class TestInsightThresholds : public QObject {
    Q_OBJECT
private slots:
    void severityAtMediumShare();
    void severityAtHighShare();
    void cardAtMinimumSavingShare();
    void attributionSitesAtMaximum();
    void simulationAtMinimumBlockedShare();
    void inLoopAtMinimumSavingShareOfPeriod();
    void callsAtSameCallGap();
    void gpuBoundAtBusyShare();
    void inLoopAtMinimumSyncs();
    void inLoopAtMinimumLaunches();
    void bubbleAtPerSyncCap();
    void bubbleAtMinimumShare();
    void defaultStreamAtWindow();
    void defaultStreamAtMinimumOps();
    void launchBoundAtShortKernel();
    void launchBoundAtMaximumGap();
    void launchBoundAtMinimumKernels();
    void launchBoundIsReplayedAsCudaGraphs();

private:
    std::string path(const std::string& name) { return m_dir.filePath(name.c_str()).toStdString(); }
    // The helpers give nothing when their fixture or an expectation of theirs failed (which failed
    // the test).
    // The severity of a site whose simulated saving is `savingNs` of a 1 ms window.
    // The report of a C++ sync site whose replayed saving is savingNs of a 1 ms window.
    std::optional<model::InsightReport> savingReport(int64_t savingNs);
    std::optional<Severity> severityOfSaving(int64_t savingNs);
    // The bubble of a site whose one sync returns `gapNs` before the next kernel starts, in a
    // window of `windowNs`.
    std::optional<model::InsightReport> bubbleAfter(int64_t gapNs, int64_t windowNs);
    // Three default-stream kernels, each `beforeNs` after stream 7's work and `afterNs` before
    // stream 9's.
    std::optional<size_t> defaultStreamInsights(int64_t beforeNs, int64_t afterNs, int ops = 3);
    // `count` kernels of `durationNs`, each `gapNs` after the previous one; the launch-bound
    // stretches' kernel count (0: no insight).
    std::optional<int64_t> stretchKernels(int count, int64_t durationNs, int64_t gapNs);
    QTemporaryDir m_dir;
    int m_files = 0;
};

// A kernel of D = saving + 1 µs waited for by a stream sync that returns as it ends, 300 µs of
// host work, then a second kernel that ends the 1 ms window. Without the wait the second launch
// comes D - 1 µs sooner (the sync began 1 µs after the first kernel's start).
std::optional<model::InsightReport> TestInsightThresholds::savingReport(int64_t savingNs) {
    InsightFixture f(path("severity" + std::to_string(++m_files) + ".stallscope"), 2'000'000);
    const int64_t first = savingNs + 1'000, hostWork = 300'000;
    const int64_t second = 1'000'000 - first - hostWork - 1'000;
    f.launch(9'000, 10'000, 10'000 + first);
    // A C++ site: its CPU time before the call is its own work, and stays.
    f.sync(SyncKind::Stream, 11'000, 10'000 + first, f.nativeStack("/t.cpp", 1, "f"), f.stream);
    const int64_t launch = 10'000 + first + hostWork;
    f.launch(launch, launch + 1'000, launch + 1'000 + second);
    const testing::LoadedFixture loaded = f.load();
    if (!loaded.ok())
        return std::nullopt;
    return loaded.analyze();
}

std::optional<Severity> TestInsightThresholds::severityOfSaving(int64_t savingNs) {
    const std::optional<model::InsightReport> report = savingReport(savingNs);
    if (!report)
        return std::nullopt;
    const auto found = insightsOf(*report, InsightRule::SyncAttribution);
    if (found.size() != 1 || found[0]->savingsNs != savingNs) {
        STALLSCOPE_FAIL("expected one finding saving %lld ns, found %zu",
                        static_cast<long long>(savingNs), found.size());
        return std::nullopt;
    }
    return found[0]->severity;
}

void TestInsightThresholds::severityAtMediumShare() {
    QCOMPARE(severityOfSaving(50'000), std::optional(Severity::Low)); // exactly 5 %: not above it
    QCOMPARE(severityOfSaving(50'001), std::optional(Severity::Medium));
}

void TestInsightThresholds::severityAtHighShare() {
    QCOMPARE(severityOfSaving(200'000), std::optional(Severity::Medium)); // exactly 20 %
    QCOMPARE(severityOfSaving(200'001), std::optional(Severity::High));
}

// A simulated site is a card from a saving of 0.5 % of the window (5 µs of 1 ms); below that it
// is a row of the sites table, with its saving, and no card.
void TestInsightThresholds::cardAtMinimumSavingShare() {
    for (int64_t saving : {int64_t(4'999), int64_t(5'000)}) {
        const std::optional<model::InsightReport> report = savingReport(saving);
        QVERIFY(report);
        QCOMPARE(report->sites.size(), size_t(1));
        QCOMPARE(report->sites[0].savingsNs, saving);
        QCOMPARE(insightsOf(*report, InsightRule::SyncAttribution).size(),
                 size_t(saving >= 5'000 ? 1 : 0));
    }
}

void TestInsightThresholds::attributionSitesAtMaximum() {
    const int maximum = 20;
    for (int sites : {maximum, maximum + 1}) {
        InsightFixture f(path("sites" + std::to_string(sites) + ".stallscope"));
        // Site i blocks 1,000 + i ns: the last one written is the largest. Ten lines apart:
        // statements of one fix lie closer (fixGroup).
        for (int i = 0; i < sites; ++i)
            f.sync(SyncKind::Device, 10'000 * (i + 1), 10'000 * (i + 1) + 1'000 + i,
                   f.pythonStack("/t.py", 10 * (i + 1), "f"));
        const auto report = f.load().analyze(testing::everySimulatedSiteAFinding());
        QVERIFY(f.ok());
        QCOMPARE(report.sites.size(), size_t(sites));
        const auto shown = insightsOf(report, InsightRule::SyncAttribution);
        QCOMPARE(shown.size(), size_t(maximum));
        QCOMPARE(shown.front()->blockedNs, int64_t(1'000 + sites - 1));
        // With one site too many the smallest (line 10) is the one left out.
        QCOMPARE(shown.back()->blockedNs, int64_t(1'000 + sites - maximum));
    }
}

void TestInsightThresholds::inLoopAtMinimumSyncs() {
    const int64_t syncs = 3;
    for (int64_t count : {syncs - 1, syncs}) {
        InsightFixture f(path("syncs" + std::to_string(count) + ".stallscope"));
        f.writeLoop(f.pythonStack("/t.py", 9, "step"), int(count), 4);
        const model::InsightReport report = f.load().analyze();
        QVERIFY(f.ok());
        const auto loops = insightsOf(report, InsightRule::InLoopSync);
        QCOMPARE(loops.size(), size_t(count >= syncs ? 1 : 0));
        if (!loops.empty())
            QCOMPARE(loops[0]->count, count);
    }
}

void TestInsightThresholds::inLoopAtMinimumLaunches() {
    const int64_t launches = 3;
    for (int64_t between : {launches - 1, launches}) {
        InsightFixture f(path("launches" + std::to_string(between) + ".stallscope"));
        f.writeLoop(f.pythonStack("/t.py", 9, "step"), 5, int(between));
        const model::InsightReport report = f.load().analyze();
        QVERIFY(f.ok());
        const auto loops = insightsOf(report, InsightRule::InLoopSync);
        QCOMPARE(loops.size(), size_t(between >= launches ? 1 : 0));
        if (!loops.empty())
            QCOMPARE(loops[0]->medianLaunchesBetween, between);
    }
}

std::optional<model::InsightReport> TestInsightThresholds::bubbleAfter(int64_t gapNs,
                                                                       int64_t windowNs) {
    InsightFixture f(path("bubble" + std::to_string(++m_files) + ".stallscope"), windowNs + 20'000);
    const int64_t side = f.addStream(9);
    f.launch(9'000, 10'000, 19'000);
    f.sync(SyncKind::Stream, 12'000, 20'000, f.pythonStack("/t.py", 5, "f"), f.stream);
    f.launch(20'000 + gapNs - 1'000, 20'000 + gapNs, 20'000 + gapNs + 1'000);
    f.kernel(8'000 + windowNs, 10'000 + windowNs, 0, side); // ends the window
    const testing::LoadedFixture loaded = f.load();
    if (!loaded.ok())
        return std::nullopt;
    return loaded.analyze(testing::everySimulatedSiteAFinding());
}

void TestInsightThresholds::bubbleAtPerSyncCap() {
    const int64_t cap = 1'000'000;
    const auto below = bubbleAfter(cap - 1, 3'000'000);
    const auto at = bubbleAfter(cap, 3'000'000);
    const auto above = bubbleAfter(cap + 1, 3'000'000);
    QVERIFY(below && at && above);
    QCOMPARE(below->sites.at(0).bubbleNs, cap - 1);
    QCOMPARE(at->sites.at(0).bubbleNs, cap);
    QCOMPARE(above->sites.at(0).bubbleNs, cap);
}

void TestInsightThresholds::bubbleAtMinimumShare() {
    // 1 % of a 1 ms window is 10 µs.
    const auto below = bubbleAfter(9'999, 1'000'000);
    QVERIFY(below);
    QCOMPARE(below->sites.at(0).bubbleNs, int64_t(9'999));
    QVERIFY(insightsOf(*below, InsightRule::GpuBubble).empty());
    const auto at = bubbleAfter(10'000, 1'000'000);
    QVERIFY(at);
    const auto bubbles = insightsOf(*at, InsightRule::GpuBubble);
    QCOMPARE(bubbles.size(), size_t(1));
    QCOMPARE(bubbles[0]->bubbleNs, int64_t(10'000));
    QCOMPARE(bubbles[0]->count, int64_t(1));
}

// Sites are simulated (and become findings) from 0.1 % of the window: blocked + bubble of a sync
// that returns as its kernel ends, in a 10 ms window (10 µs is 0.1 %).
void TestInsightThresholds::simulationAtMinimumBlockedShare() {
    for (int64_t blocked : {int64_t(9'999), int64_t(10'000)}) {
        InsightFixture f(path("simulated" + std::to_string(blocked) + ".stallscope"), 20'000'000);
        const int64_t side = f.addStream(9);
        f.launch(9'000, 10'000, 20'000 + blocked);
        f.sync(SyncKind::Stream, 20'000, 20'000 + blocked, f.pythonStack("/t.py", 3, "f"),
               f.stream);
        // Busy on the side stream from before the sync returns to the window's end: no bubble.
        f.kernel(19'000 + blocked, 10'010'000, 0, side);
        const model::InsightReport report = f.load().analyze(testing::everySimulatedSiteAFinding());
        QVERIFY(f.ok());
        QCOMPARE(report.sites.at(0).bubbleNs, int64_t(0));
        QCOMPARE(report.sites.at(0).savingsNs >= 0, blocked >= 10'000);
        QCOMPARE(insightsOf(report, InsightRule::SyncAttribution).size(),
                 size_t(blocked >= 10'000 ? 1 : 0));
    }
}

// writeLoop's site saves 31.2 µs per call (test_insight_rules) every 100 µs: in-loop from a
// saving of minSavingShareOfPeriod of the period, 5 % by default.
void TestInsightThresholds::inLoopAtMinimumSavingShareOfPeriod() {
    QCOMPARE(model::InsightThresholds{}.inLoop.minSavingShareOfPeriod, 0.05);
    InsightFixture f(path("period.stallscope"));
    f.writeLoop(f.pythonStack("/t.py", 9, "step"), 5, 4);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    model::AnalysisOptions options;
    options.thresholds.inLoop.minSavingShareOfPeriod = 0.312;
    QCOMPARE(insightsOf(loaded.analyze(options), InsightRule::InLoopSync).size(), size_t(1));
    options.thresholds.inLoop.minSavingShareOfPeriod = 0.312001;
    QVERIFY(insightsOf(loaded.analyze(options), InsightRule::InLoopSync).empty());
}

// Two syncs of one site with no launch between them are one call when the second starts at most
// 100 µs after the first ends (a `.cpu()`: its copy, then its stream sync).
void TestInsightThresholds::callsAtSameCallGap() {
    for (int64_t gap : {int64_t(100'000), int64_t(100'001)}) {
        InsightFixture f(path("call" + std::to_string(gap) + ".stallscope"));
        const int64_t stack = f.pythonStack("/t.py", 7, "f");
        f.launch(9'000, 10'000, 60'000);
        f.sync(SyncKind::Stream, 20'000, 60'500, stack, f.stream);
        f.sync(SyncKind::Stream, 60'500 + gap, 61'000 + gap, stack, f.stream);
        f.launch(300'000, 301'000, 310'000);
        const model::InsightReport report = f.load().analyze(); // the findings point into it
        QVERIFY(f.ok());
        const auto found = insightsOf(report, InsightRule::SyncAttribution);
        QCOMPARE(found.size(), size_t(1));
        QCOMPARE(found[0]->count, int64_t(gap <= 100'000 ? 1 : 2));
    }
}

// A site that saves under 5 % of the window is called GPU-bound when the GPU was busy at least
// 85 % of it: a 100 µs kernel and a sync that ends with it, then side-stream kernels: busy + 2 µs
// of the 1 ms window.
void TestInsightThresholds::gpuBoundAtBusyShare() {
    for (int64_t busy : {int64_t(847'999), int64_t(848'000)}) {
        InsightFixture f(path("bound" + std::to_string(busy) + ".stallscope"), 2'000'000);
        const int64_t side = f.addStream(9);
        f.launch(9'000, 10'000, 110'000);
        f.sync(SyncKind::Stream, 12'000, 110'000, f.pythonStack("/t.py", 4, "f"), f.stream);
        f.kernel(110'000, 110'000 + busy - 100'000, 0, side);
        f.kernel(1'008'000, 1'010'000, 0, side); // ends the window
        const model::InsightReport report =
            f.load().analyze(testing::everySimulatedSiteAFinding()); // the findings point into it
        QVERIFY(f.ok());
        const auto found = insightsOf(report, InsightRule::SyncAttribution);
        QCOMPARE(found.size(), size_t(1));
        QVERIFY(found[0]->share < 0.05);
        QCOMPARE(found[0]->evidence.find("GPU-bound here") != std::string::npos,
                 busy + 2'000 >= 850'000);
    }
}

std::optional<size_t> TestInsightThresholds::defaultStreamInsights(int64_t beforeNs,
                                                                   int64_t afterNs, int ops) {
    InsightFixture f(path("default" + std::to_string(++m_files) + ".stallscope"), 4'000'000);
    const int64_t legacy = f.addStream(0, true);
    const int64_t side = f.addStream(9);
    for (int i = 0; i < ops; ++i) {
        const int64_t p = 1'000'000 * i;
        f.kernel(p, p + 10'000);
        const int64_t start = p + 10'000 + beforeNs;
        f.kernel(start, start + 10'000, 0, legacy);
        f.kernel(start + 10'000 + afterNs, start + 20'000 + afterNs, 0, side);
    }
    const testing::LoadedFixture loaded = f.load();
    if (!loaded.ok())
        return std::nullopt;
    const model::InsightReport report = loaded.analyze();
    const auto found = insightsOf(report, InsightRule::DefaultStream);
    if (!found.empty() && found[0]->count != ops) {
        STALLSCOPE_FAIL("default-stream insight counts %lld of %d", (long long)found[0]->count,
                        ops);
        return std::nullopt;
    }
    return found.size();
}

void TestInsightThresholds::defaultStreamAtWindow() {
    const int64_t window = 100'000;
    QCOMPARE(defaultStreamInsights(window, window), std::optional<size_t>(1));
    QCOMPARE(defaultStreamInsights(window + 1, window), std::optional<size_t>(0));
    QCOMPARE(defaultStreamInsights(window, window + 1), std::optional<size_t>(0));
}

void TestInsightThresholds::defaultStreamAtMinimumOps() {
    const int ops = 3;
    QCOMPARE(defaultStreamInsights(1'000, 1'000, ops), std::optional<size_t>(1));
    QCOMPARE(defaultStreamInsights(1'000, 1'000, ops - 1), std::optional<size_t>(0));
}

std::optional<int64_t> TestInsightThresholds::stretchKernels(int count, int64_t durationNs,
                                                             int64_t gapNs) {
    const int64_t period = durationNs + gapNs;
    InsightFixture f(path("stretch" + std::to_string(++m_files) + ".stallscope"),
                     10'000 + period * (count + 1));
    for (int i = 0; i < count; ++i)
        f.kernel(10'000 + period * i, 10'000 + period * i + durationNs);
    const testing::LoadedFixture loaded = f.load();
    if (!loaded.ok())
        return std::nullopt;
    const model::InsightReport report = loaded.analyze();
    const auto bound = insightsOf(report, InsightRule::LaunchBound);
    return bound.empty() ? 0 : bound[0]->kernelCount;
}

void TestInsightThresholds::launchBoundAtShortKernel() {
    const int64_t shortNs = 20'000;
    // 41 kernels: the first has no gap before it, so 40 qualify.
    QCOMPARE(stretchKernels(41, shortNs, shortNs + 1), std::optional<int64_t>(40));
    QCOMPARE(stretchKernels(41, shortNs + 1, shortNs + 2), std::optional<int64_t>(0));
    // The gap must be longer than the kernel, not equal.
    QCOMPARE(stretchKernels(41, 2'000, 2'000), std::optional<int64_t>(0));
    QCOMPARE(stretchKernels(41, 2'000, 2'001), std::optional<int64_t>(40));
}

void TestInsightThresholds::launchBoundAtMaximumGap() {
    const int64_t maxGap = 1'000'000;
    QCOMPARE(stretchKernels(41, 2'000, maxGap), std::optional<int64_t>(40));
    QCOMPARE(stretchKernels(41, 2'000, maxGap + 1), std::optional<int64_t>(0));
}

void TestInsightThresholds::launchBoundAtMinimumKernels() {
    const int minimum = 32;
    QCOMPARE(stretchKernels(minimum + 1, 2'000, 8'000), std::optional<int64_t>(minimum));
    QCOMPARE(stretchKernels(minimum, 2'000, 8'000), std::optional<int64_t>(0));
}

// 41 launches (0.5 µs calls) 10 µs apart of 2 µs kernels that start 5 µs after their calls, and a
// host sync after launch 20 that waits for its kernel, 10 µs more host time after it: kernels
// 1..40 are the stretch (the device's first kernel has no gap). The estimate counts each gap less
// launchBound.graphGapNs: 38 x 7.75 µs and 17.75 µs across the sync. Replayed as CUDA graphs, split
// at the sync: each graph's launch (launches 1 and 21) loses the thread's typical 9.5 µs between
// two calls of the CPU time before it (its first kernel's dispatch). Kernel 1 then runs 1 µs (the
// default queue gap) after kernel 0 (t0 + 8..10 µs), kernels 2..20 0.25 µs apart (t0 + 52.75 µs),
// the sync returns 1 µs later, launch 21 comes its recorded 12 µs less 9.5 µs after that and its
// kernel 5 µs later (t0 + 61.25..63.25 µs), kernels 22..40 0.25 µs apart: t0 + 106 µs against
// the recorded t0 + 417 µs, 311 µs sooner. Kernels without their launch calls cannot be replayed as
// graphs and keep the estimate.
void TestInsightThresholds::launchBoundIsReplayedAsCudaGraphs() {
    for (const bool withLaunches : {true, false}) {
        InsightFixture f(path("graphs" + std::to_string(++m_files) + ".stallscope"), 3'000'000);
        const int64_t stack = f.pythonStack("train.py", 9, "main");
        const int64_t t0 = 1'000'000;
        for (int i = 0; i < 41; ++i) {
            const int64_t call = t0 + 10'000 * i + (i > 20 ? 10'000 : 0);
            if (withLaunches)
                f.launch(call, call + 5'000, call + 7'000);
            else
                f.kernel(call + 5'000, call + 7'000);
            if (i == 20)
                f.sync(SyncKind::Stream, call + 1'000, call + 8'000, stack, f.stream);
        }
        const model::InsightReport report = f.load().analyze();
        QVERIFY(f.ok());
        const auto bound = insightsOf(report, InsightRule::LaunchBound);
        QCOMPARE(bound.size(), size_t(1));
        QCOMPARE(bound[0]->kernelCount, int64_t(40));
        QCOMPARE(bound[0]->simulated, withLaunches);
        QCOMPARE(bound[0]->savingsNs,
                 withLaunches ? int64_t(311'000) : int64_t(38 * 7'750 + 17'750));
        QCOMPARE(bound[0]->evidence.find("as CUDA graphs (2 graphs") != std::string::npos,
                 withLaunches);
    }
}

STALLSCOPE_TEST_GUILESS_MAIN(TestInsightThresholds)
#include "test_insight_thresholds.moc"
