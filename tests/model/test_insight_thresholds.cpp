// Every threshold of InsightThresholds at its boundary, from both sides, with the default values
// written out as docs/insights.md documents them (not read from the struct, so that a changed
// constant fails too): a threshold moved by one unit, or a comparison turned from < to <=, fails
// one of these. The
// rules' full output is tested in test_insight_rules; here only "fires or not" and the number the
// threshold bounds. Shares are over the active window (first kernel to last GPU work).
#include "format/session_meta.h"
#include "tests/model/insight_fixture.h"

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <map>
#include <string_view>
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
    void powerCapFromMinimumBusySamples();
    void powerCapFromMinimumCappedShare();
    void powerCapIgnoresMalformedCounts();
    void powerCapKeepsRemovedGpuTime();
    void powerProjectionAtTheLimit();
    void powerProjectionAtMinimumSteadySamples();
    void powerProjectionAtMinimumRecordedDuty();
    void powerProjectionIgnoresMalformedMeta();

private:
    std::string path(const std::string& name) { return m_dir.filePath(name.c_str()).toStdString(); }
    // The severity of a site whose simulated saving is `savingNs` of a 1 ms window.
    // The report of a C++ sync site whose replayed saving is savingNs of a 1 ms window.
    model::InsightReport savingReport(int64_t savingNs);
    Severity severityOfSaving(int64_t savingNs);
    // The saving of severityOfSaving's site (200 µs replayed) in a recording whose meta says
    // `busy` busy GPU samples and `capped` of them at the power cap (empty: no such key).
    int64_t savingWithPowerSamples(const std::string& busy, const std::string& capped,
                                   bool* cappedText = nullptr);
    // The saving of the sync in a loop of 20 steps: a 600 µs kernel, the sync that waits for it,
    // 400 µs of host work. Without the sync the GPU runs the kernels back to back. `meta`:
    // gpu_power_* keys and values written to the recording.
    int64_t projectedSaving(const std::map<std::string_view, std::string>& meta,
                            std::string* evidence = nullptr,
                            const model::InsightThresholds& thresholds = {});
    // The bubble of a site whose one sync returns `gapNs` before the next kernel starts, in a
    // window of `windowNs`.
    model::InsightReport bubbleAfter(int64_t gapNs, int64_t windowNs);
    // Three default-stream kernels, each `beforeNs` after stream 7's work and `afterNs` before
    // stream 9's.
    size_t defaultStreamInsights(int64_t beforeNs, int64_t afterNs, int ops = 3);
    // `count` kernels of `durationNs`, each `gapNs` after the previous one; the launch-bound
    // stretches' kernel count (0: no insight).
    int64_t stretchKernels(int count, int64_t durationNs, int64_t gapNs);
    QTemporaryDir m_dir;
    int m_files = 0;
};

// A kernel of D = saving + 1 µs waited for by a stream sync that returns as it ends, 300 µs of
// host work, then a second kernel that ends the 1 ms window. Without the wait the second launch
// comes D - 1 µs sooner (the sync began 1 µs after the first kernel's start).
model::InsightReport TestInsightThresholds::savingReport(int64_t savingNs) {
    InsightFixture f(path("severity" + std::to_string(++m_files) + ".stallscope"), 2'000'000);
    const int64_t first = savingNs + 1'000, hostWork = 300'000;
    const int64_t second = 1'000'000 - first - hostWork - 1'000;
    f.launch(9'000, 10'000, 10'000 + first);
    // A C++ site: its CPU time before the call is its own work, and stays.
    f.sync(SyncKind::Stream, 11'000, 10'000 + first, f.nativeStack("/t.cpp", 1, "f"), f.stream);
    const int64_t launch = 10'000 + first + hostWork;
    f.launch(launch, launch + 1'000, launch + 1'000 + second);
    return f.load().analyze();
}

Severity TestInsightThresholds::severityOfSaving(int64_t savingNs) {
    const model::InsightReport report = savingReport(savingNs);
    const auto found = insightsOf(report, InsightRule::SyncAttribution);
    if (found.size() != 1 || found[0]->savingsNs != savingNs)
        qFatal("expected one finding saving %lld ns", static_cast<long long>(savingNs));
    return found[0]->severity;
}

void TestInsightThresholds::severityAtMediumShare() {
    QCOMPARE(severityOfSaving(50'000), Severity::Low); // exactly 5 %: not above it
    QCOMPARE(severityOfSaving(50'001), Severity::Medium);
}

void TestInsightThresholds::severityAtHighShare() {
    QCOMPARE(severityOfSaving(200'000), Severity::Medium); // exactly 20 %
    QCOMPARE(severityOfSaving(200'001), Severity::High);
}

// A simulated site is a card from a saving of 0.5 % of the window (5 µs of 1 ms); below that it
// is a row of the sites table, with its saving, and no card.
void TestInsightThresholds::cardAtMinimumSavingShare() {
    for (int64_t saving : {int64_t(4'999), int64_t(5'000)}) {
        const model::InsightReport report = savingReport(saving);
        QCOMPARE(report.sites.size(), size_t(1));
        QCOMPARE(report.sites[0].savingsNs, saving);
        QCOMPARE(insightsOf(report, InsightRule::SyncAttribution).size(),
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
        const auto loops = insightsOf(report, InsightRule::InLoopSync);
        QCOMPARE(loops.size(), size_t(between >= launches ? 1 : 0));
        if (!loops.empty())
            QCOMPARE(loops[0]->medianLaunchesBetween, between);
    }
}

model::InsightReport TestInsightThresholds::bubbleAfter(int64_t gapNs, int64_t windowNs) {
    InsightFixture f(path("bubble" + std::to_string(++m_files) + ".stallscope"), windowNs + 20'000);
    const int64_t side = f.addStream(9);
    f.launch(9'000, 10'000, 19'000);
    f.sync(SyncKind::Stream, 12'000, 20'000, f.pythonStack("/t.py", 5, "f"), f.stream);
    f.launch(20'000 + gapNs - 1'000, 20'000 + gapNs, 20'000 + gapNs + 1'000);
    f.kernel(8'000 + windowNs, 10'000 + windowNs, 0, side); // ends the window
    return f.load().analyze(testing::everySimulatedSiteAFinding());
}

void TestInsightThresholds::bubbleAtPerSyncCap() {
    const int64_t cap = 1'000'000;
    QCOMPARE(bubbleAfter(cap - 1, 3'000'000).sites.at(0).bubbleNs, cap - 1);
    QCOMPARE(bubbleAfter(cap, 3'000'000).sites.at(0).bubbleNs, cap);
    QCOMPARE(bubbleAfter(cap + 1, 3'000'000).sites.at(0).bubbleNs, cap);
}

void TestInsightThresholds::bubbleAtMinimumShare() {
    // 1 % of a 1 ms window is 10 µs.
    const auto below = bubbleAfter(9'999, 1'000'000);
    QCOMPARE(below.sites.at(0).bubbleNs, int64_t(9'999));
    QVERIFY(insightsOf(below, InsightRule::GpuBubble).empty());
    const auto at = bubbleAfter(10'000, 1'000'000);
    const auto bubbles = insightsOf(at, InsightRule::GpuBubble);
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
        const auto found = insightsOf(report, InsightRule::SyncAttribution);
        QCOMPARE(found.size(), size_t(1));
        QVERIFY(found[0]->share < 0.05);
        QCOMPARE(found[0]->evidence.find("GPU-bound here") != std::string::npos,
                 busy + 2'000 >= 850'000);
    }
}

size_t TestInsightThresholds::defaultStreamInsights(int64_t beforeNs, int64_t afterNs, int ops) {
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
    const model::InsightReport report = f.load().analyze();
    const auto found = insightsOf(report, InsightRule::DefaultStream);
    if (!found.empty() && found[0]->count != ops)
        qFatal("default-stream insight counts %lld of %d", (long long)found[0]->count, ops);
    return found.size();
}

void TestInsightThresholds::defaultStreamAtWindow() {
    const int64_t window = 100'000;
    QCOMPARE(defaultStreamInsights(window, window), size_t(1));
    QCOMPARE(defaultStreamInsights(window + 1, window), size_t(0));
    QCOMPARE(defaultStreamInsights(window, window + 1), size_t(0));
}

void TestInsightThresholds::defaultStreamAtMinimumOps() {
    const int ops = 3;
    QCOMPARE(defaultStreamInsights(1'000, 1'000, ops), size_t(1));
    QCOMPARE(defaultStreamInsights(1'000, 1'000, ops - 1), size_t(0));
}

int64_t TestInsightThresholds::stretchKernels(int count, int64_t durationNs, int64_t gapNs) {
    const int64_t period = durationNs + gapNs;
    InsightFixture f(path("stretch" + std::to_string(++m_files) + ".stallscope"),
                     10'000 + period * (count + 1));
    for (int i = 0; i < count; ++i)
        f.kernel(10'000 + period * i, 10'000 + period * i + durationNs);
    const model::InsightReport report = f.load().analyze();
    const auto bound = insightsOf(report, InsightRule::LaunchBound);
    return bound.empty() ? 0 : bound[0]->kernelCount;
}

void TestInsightThresholds::launchBoundAtShortKernel() {
    const int64_t shortNs = 20'000;
    // 41 kernels: the first has no gap before it, so 40 qualify.
    QCOMPARE(stretchKernels(41, shortNs, shortNs + 1), int64_t(40));
    QCOMPARE(stretchKernels(41, shortNs + 1, shortNs + 2), int64_t(0));
    // The gap must be longer than the kernel, not equal.
    QCOMPARE(stretchKernels(41, 2'000, 2'000), int64_t(0));
    QCOMPARE(stretchKernels(41, 2'000, 2'001), int64_t(40));
}

void TestInsightThresholds::launchBoundAtMaximumGap() {
    const int64_t maxGap = 1'000'000;
    QCOMPARE(stretchKernels(41, 2'000, maxGap), int64_t(40));
    QCOMPARE(stretchKernels(41, 2'000, maxGap + 1), int64_t(0));
}

void TestInsightThresholds::launchBoundAtMinimumKernels() {
    const int minimum = 32;
    QCOMPARE(stretchKernels(minimum + 1, 2'000, 8'000), int64_t(minimum));
    QCOMPARE(stretchKernels(minimum, 2'000, 8'000), int64_t(0));
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

int64_t TestInsightThresholds::savingWithPowerSamples(const std::string& busy,
                                                      const std::string& capped, bool* cappedText) {
    InsightFixture f(path("power" + std::to_string(++m_files) + ".stallscope"), 2'000'000);
    const int64_t first = 201'000, hostWork = 300'000;
    f.launch(9'000, 10'000, 10'000 + first);
    f.sync(SyncKind::Stream, 11'000, 10'000 + first, f.nativeStack("/t.cpp", 1, "f"), f.stream);
    const int64_t launch = 10'000 + first + hostWork;
    f.launch(launch, launch + 1'000, 1'000'000);
    if (!busy.empty())
        f.writer().setMeta(format::meta::kGpuPowerBusySamples, busy);
    if (!capped.empty())
        f.writer().setMeta(format::meta::kGpuPowerCappedSamples, capped);
    const model::InsightReport report = f.load().analyze();
    const auto found = insightsOf(report, InsightRule::SyncAttribution);
    if (found.size() != 1)
        qFatal("expected one finding");
    if (cappedText)
        *cappedText = report.assumptions.find("power limit") != std::string::npos &&
                      found[0]->evidence.find("power limit") == std::string::npos; // said once
    if (report.summary.gpuPowerCapped != (found[0]->savingsNs != 200'000))
        qFatal("the summary's gpuPowerCapped disagrees with the finding");
    return found[0]->savingsNs;
}

// A GPU at its power cap keeps 60 % of the idle time a fix fills (slowdownShare 0.40), from 10
// busy samples on (9: too few to tell).
void TestInsightThresholds::powerCapFromMinimumBusySamples() {
    QCOMPARE(model::InsightThresholds{}.powerCap.slowdownShare, 0.40);
    QCOMPARE(model::InsightThresholds{}.powerCap.minBusySamples, int64_t(10));
    bool text = true;
    QCOMPARE(savingWithPowerSamples("", "", &text), int64_t(200'000)); // no samples: no discount
    QVERIFY(!text);
    QCOMPARE(savingWithPowerSamples("9", "9", &text), int64_t(200'000));
    QVERIFY(!text);
    QCOMPARE(savingWithPowerSamples("10", "10", &text), int64_t(120'000));
    QVERIFY(text);
}

// ... when at least half of the busy samples were held back by power.
void TestInsightThresholds::powerCapFromMinimumCappedShare() {
    QCOMPARE(model::InsightThresholds{}.powerCap.minCappedShare, 0.5);
    QCOMPARE(savingWithPowerSamples("20", "9"), int64_t(200'000));
    QCOMPARE(savingWithPowerSamples("20", "10"), int64_t(120'000));
}

// Counts that are not counts, or more capped samples than busy ones, leave the saving alone.
void TestInsightThresholds::powerCapIgnoresMalformedCounts() {
    QCOMPARE(savingWithPowerSamples("20", "21"), int64_t(200'000));
    QCOMPARE(savingWithPowerSamples("-20", "-20"), int64_t(200'000));
    QCOMPARE(savingWithPowerSamples("20x", "20"), int64_t(200'000));
    QCOMPARE(savingWithPowerSamples("99999999999999999999", "20"), int64_t(200'000));
}

// The GPU time a fix takes away (a 64 MiB pageable copy made pinned) is saved whole at the power
// cap; only the rest — idle time the fix fills — is discounted.
void TestInsightThresholds::powerCapKeepsRemovedGpuTime() {
    auto saving = [this](bool capped) {
        InsightFixture f(path("power-copy" + std::string(capped ? "1" : "0") + ".stallscope"),
                         10'000'000);
        const int64_t stack = f.pythonStack("/t.py", 5, "f");
        f.launch(9'000, 10'000, 110'000);
        const int64_t copy =
            f.memcpy(110'000, 8'110'000, format::CopyKind::DtoH, format::MemoryKind::Device,
                     format::MemoryKind::Pageable, 64 << 20, false);
        f.sync(SyncKind::PageableCopy, 12'000, 8'112'000, stack, f.stream, {}, copy);
        f.launch(8'412'000, 8'413'000, 9'000'000); // after 300 µs of host work
        if (capped) {
            f.writer().setMeta(format::meta::kGpuPowerBusySamples, "20");
            f.writer().setMeta(format::meta::kGpuPowerCappedSamples, "20");
        }
        const model::InsightReport report = f.load().analyze();
        const auto found = insightsOf(report, InsightRule::PageableCopy);
        if (found.size() != 1)
            qFatal("expected one pageable-copy finding");
        return found[0]->savingsNs;
    };
    // 64 MiB at the default pinned rate of 48.8 GB/s, plus the recording's typical queue gap
    // (whatif::Latencies: none here, no operation waited in a queue).
    const int64_t pinnedNs = static_cast<int64_t>(double(64 << 20) / 48.8e9 * 1e9);
    const int64_t removed = 8'000'000 - pinnedNs;
    const int64_t uncapped = saving(false);
    QVERIFY(uncapped > removed + 100'000); // the host work overlapped too
    QCOMPARE(saving(true), removed + std::llround(0.6 * double(uncapped - removed)));
}
int64_t TestInsightThresholds::projectedSaving(const std::map<std::string_view, std::string>& meta,
                                               std::string* evidence,
                                               const model::InsightThresholds& thresholds) {
    InsightFixture f(path("projected" + std::to_string(++m_files) + ".stallscope"), 100'000'000);
    const int64_t stack = f.nativeStack("/loop.cpp", 7, "step");
    for (int i = 0; i < 20; ++i) {
        const int64_t t0 = 1'000'000 + 1'010'000 * i;
        f.launch(t0, t0 + 5'000, t0 + 605'000);
        f.sync(SyncKind::Stream, t0 + 6'000, t0 + 610'000, stack, f.stream);
    }
    for (const auto& [key, value] : meta)
        f.writer().setMeta(key, value);
    model::AnalysisOptions options;
    options.thresholds = thresholds;
    const model::InsightReport report = f.load().analyze(options);
    for (const model::Insight& insight : report.insights)
        if (insight.site.line == 7) {
            if (evidence) // the card's own text, then what the whole report assumes
                *evidence = insight.evidence + "\nassumed: " + report.assumptions;
            return insight.savingsNs;
        }
    qFatal("no finding at the loop's sync");
}

namespace {

// A recording below its power limit: lowest sample 100 W, 10 steady samples at 460 W; the limit
// in W.
std::map<std::string_view, std::string> belowTheLimit(int limitW) {
    namespace meta = format::meta;
    return {{meta::kGpuPowerMinW, "100"},
            {meta::kGpuPowerSteadySamples, "10"},
            {meta::kGpuPowerSteadyW, "460"},
            {meta::kGpuPowerLimitW, std::to_string(limitW)}};
}

// projectedSaving's GPU is busy 12 ms of the 19.79 ms from its first kernel to its last one in
// the recording, and of 12.019 ms once fixed (the replay's 1 µs queue gap between kernels).
constexpr double kRecordedDuty = 12'000'000.0 / 19'790'000.0;
constexpr double kFixedDuty = 12'000'000.0 / 12'019'000.0;

// The kernel time the fixed loop loses where its GPU, 1.65 times as busy, draws 1.65 x 360 W
// above the lowest sample of the `limitW` - 100 W available: 20 kernels of 600 µs, each
// (drawn / available)^0.4 times longer.
int64_t projectedLoss(int limitW) {
    const double drawn = 360.0 * kFixedDuty / kRecordedDuty;
    return std::llround(20 * 600'000.0 * (std::pow(drawn / (limitW - 100), 0.40) - 1.0));
}

} // namespace

// The fixed loop keeps the GPU busy 99.8 % of the time, 1.65 times the recorded 60.6 %, where it
// draws 593 W above the lowest sample: with 450 W available (limit 550 W) its kernels run 11.7 %
// longer and the saving shrinks by that; with 593 W available (693 W) nothing changes; a slowdown
// below 0.1 % is not replayed (692 W: 0.05 %), one above it is (691 W: 0.12 %).
void TestInsightThresholds::powerProjectionAtTheLimit() {
    QCOMPARE(model::InsightThresholds{}.powerCap.slowdownShare, 0.40);
    const int64_t unlimited = projectedSaving({});
    QVERIFY(unlimited > 7'000'000); // about 19 x 400 µs of host work now overlapped
    std::string evidence;
    QCOMPARE(projectedSaving(belowTheLimit(693), &evidence), unlimited);
    QVERIFY(evidence.find("W limit") == std::string::npos);
    QCOMPARE(projectedSaving(belowTheLimit(692)), unlimited);
    QVERIFY(projectedLoss(691) > 10'000);
    QVERIFY(qAbs(projectedSaving(belowTheLimit(691)) - (unlimited - projectedLoss(691))) <= 100);
    const int64_t limited = projectedSaving(belowTheLimit(550), &evidence);
    QVERIFY(qAbs(limited - (unlimited - projectedLoss(550))) <= 100);
    QVERIFY2(evidence.find("the fix keeps the GPU busy 99.8 % of the time (60.6 % recorded, at 460 "
                           "W), where it would draw about 693 W of its 550 W limit: a lower clock "
                           "makes its kernels 11.7 % longer") != std::string::npos,
             evidence.c_str());
}

// At least 10 steady samples (9: too few to tell).
void TestInsightThresholds::powerProjectionAtMinimumSteadySamples() {
    QCOMPARE(model::InsightThresholds{}.powerCap.minSamples, int64_t(10));
    const int64_t unlimited = projectedSaving({});
    auto meta = belowTheLimit(550);
    meta[format::meta::kGpuPowerSteadySamples] = "9";
    QCOMPARE(projectedSaving(meta), unlimited);
    meta[format::meta::kGpuPowerSteadySamples] = "10";
    QVERIFY(qAbs(projectedSaving(meta) - (unlimited - projectedLoss(550))) <= 100);
}

// The recorded duty must be at least minRecordedDuty (5 %): moved to just below and just above
// this recording's 60.6 %.
void TestInsightThresholds::powerProjectionAtMinimumRecordedDuty() {
    QCOMPARE(model::InsightThresholds{}.powerCap.minRecordedDuty, 0.05);
    const int64_t unlimited = projectedSaving({});
    model::InsightThresholds thresholds;
    thresholds.powerCap.minRecordedDuty = kRecordedDuty - 1e-6;
    QVERIFY(qAbs(projectedSaving(belowTheLimit(550), nullptr, thresholds) -
                 (unlimited - projectedLoss(550))) <= 100);
    thresholds.powerCap.minRecordedDuty = kRecordedDuty + 1e-6;
    QCOMPARE(projectedSaving(belowTheLimit(550), nullptr, thresholds), unlimited);
}

// A recording at its power cap is discounted as such, not projected; meta that is not
// consistent (steady power at or above the limit, below the lowest sample, not a number, a key
// missing) projects nothing.
void TestInsightThresholds::powerProjectionIgnoresMalformedMeta() {
    namespace meta = format::meta;
    const int64_t unlimited = projectedSaving({});
    auto capped = belowTheLimit(550);
    capped[meta::kGpuPowerBusySamples] = "20";
    capped[meta::kGpuPowerCappedSamples] = "20";
    std::string evidence;
    projectedSaving(capped, &evidence);
    QVERIFY(evidence.find("power limit (20 of 20 busy samples)") != std::string::npos);
    QVERIFY(evidence.find("the fix keeps the GPU busy") == std::string::npos);
    const std::vector<std::pair<std::string_view, std::string>> bad = {
        {meta::kGpuPowerLimitW, "460"}, {meta::kGpuPowerLimitW, "459"},
        {meta::kGpuPowerSteadyW, "99"}, {meta::kGpuPowerSteadyW, "46O"},
        {meta::kGpuPowerMinW, "-5"},    {meta::kGpuPowerLimitW, "99999999999999999999"}};
    for (const auto& [key, value] : bad) {
        auto meta = belowTheLimit(550);
        meta[key] = value;
        QCOMPARE(projectedSaving(meta), unlimited);
    }
    for (const std::string_view key : {meta::kGpuPowerMinW, meta::kGpuPowerSteadySamples,
                                       meta::kGpuPowerSteadyW, meta::kGpuPowerLimitW}) {
        auto meta = belowTheLimit(550);
        meta.erase(key);
        QCOMPARE(projectedSaving(meta), unlimited);
    }
}

QTEST_GUILESS_MAIN(TestInsightThresholds)
#include "test_insight_thresholds.moc"
