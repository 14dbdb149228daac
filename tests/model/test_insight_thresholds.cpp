// Every threshold of InsightThresholds at its boundary, from both sides, with the default values
// written out as docs/insights.md documents them (not read from the struct, so that a changed
// constant fails too): a threshold moved by one unit, or a comparison turned from < to <=, fails
// one of these. The
// rules' full output is tested in test_insight_rules; here only "fires or not" and the number the
// threshold bounds. Wall time is 1 ms unless stated.
#include "tests/model/insight_fixture.h"

#include <QTemporaryDir>
#include <QTest>

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
    void attributionSitesAtMaximum();
    void inLoopAtMinimumSyncs();
    void inLoopAtMinimumLaunches();
    void bubbleAtPerSyncCap();
    void bubbleAtMinimumShare();
    void defaultStreamAtWindow();
    void defaultStreamAtMinimumOps();
    void launchBoundAtShortKernel();
    void launchBoundAtMaximumGap();
    void launchBoundAtMinimumKernels();

private:
    std::string path(const std::string& name) { return m_dir.filePath(name.c_str()).toStdString(); }
    // The sync-attribution severity of one sync that blocks `blockedNs` of 1 ms.
    Severity attributionSeverity(int64_t blockedNs);
    // The bubble of a site whose one sync returns `gapNs` before the next kernel starts.
    model::InsightReport bubbleAfter(int64_t gapNs, int64_t wallNs);
    // Three default-stream kernels, each `beforeNs` after stream 7's work and `afterNs` before
    // stream 9's.
    size_t defaultStreamInsights(int64_t beforeNs, int64_t afterNs, int ops = 3);
    // `count` kernels of `durationNs`, each `gapNs` after the previous one; the launch-bound
    // stretches' kernel count (0: no insight).
    int64_t stretchKernels(int count, int64_t durationNs, int64_t gapNs);
    QTemporaryDir m_dir;
    int m_files = 0;
};

Severity TestInsightThresholds::attributionSeverity(int64_t blockedNs) {
    InsightFixture f(path("severity" + std::to_string(++m_files) + ".stallscope"));
    f.sync(SyncKind::Device, 10'000, 10'000 + blockedNs, f.pythonStack("/t.py", 1, "f"));
    const model::InsightReport report = f.load().analyze();
    const auto found = insightsOf(report, InsightRule::SyncAttribution);
    if (found.size() != 1)
        qFatal("expected one sync-attribution insight, got %zu", found.size());
    return found[0]->severity;
}

void TestInsightThresholds::severityAtMediumShare() {
    QCOMPARE(attributionSeverity(100'000), Severity::Low); // exactly 10 %: not above it
    QCOMPARE(attributionSeverity(100'001), Severity::Medium);
}

void TestInsightThresholds::severityAtHighShare() {
    QCOMPARE(attributionSeverity(500'000), Severity::Medium); // exactly 50 %
    QCOMPARE(attributionSeverity(500'001), Severity::High);
}

void TestInsightThresholds::attributionSitesAtMaximum() {
    const int maximum = 20;
    for (int sites : {maximum, maximum + 1}) {
        InsightFixture f(path("sites" + std::to_string(sites) + ".stallscope"));
        // Site i blocks 1,000 + i ns: the last one written is the largest.
        for (int i = 0; i < sites; ++i)
            f.sync(SyncKind::Device, 10'000 * (i + 1), 10'000 * (i + 1) + 1'000 + i,
                   f.pythonStack("/t.py", i + 1, "f"));
        const auto report = f.load().analyze();
        QCOMPARE(report.sites.size(), size_t(sites));
        const auto shown = insightsOf(report, InsightRule::SyncAttribution);
        QCOMPARE(shown.size(), size_t(maximum));
        QCOMPARE(shown.front()->blockedNs, int64_t(1'000 + sites - 1));
        // With one site too many the smallest (line 1) is the one left out.
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

model::InsightReport TestInsightThresholds::bubbleAfter(int64_t gapNs, int64_t wallNs) {
    InsightFixture f(path("bubble" + std::to_string(++m_files) + ".stallscope"), wallNs);
    f.launch(9'000, 10'000, 19'000);
    f.sync(SyncKind::Stream, 12'000, 20'000, f.pythonStack("/t.py", 5, "f"), f.stream);
    f.launch(20'000 + gapNs - 1'000, 20'000 + gapNs, 20'000 + gapNs + 1'000);
    return f.load().analyze();
}

void TestInsightThresholds::bubbleAtPerSyncCap() {
    const int64_t cap = 1'000'000;
    QCOMPARE(bubbleAfter(cap - 1, 3'000'000).sites.at(0).bubbleNs, cap - 1);
    QCOMPARE(bubbleAfter(cap, 3'000'000).sites.at(0).bubbleNs, cap);
    QCOMPARE(bubbleAfter(cap + 1, 3'000'000).sites.at(0).bubbleNs, cap);
}

void TestInsightThresholds::bubbleAtMinimumShare() {
    // 1 % of 1 ms is 10 µs.
    const auto below = bubbleAfter(9'999, 1'000'000);
    QCOMPARE(below.sites.at(0).bubbleNs, int64_t(9'999));
    QVERIFY(insightsOf(below, InsightRule::GpuBubble).empty());
    const auto at = bubbleAfter(10'000, 1'000'000);
    const auto bubbles = insightsOf(at, InsightRule::GpuBubble);
    QCOMPARE(bubbles.size(), size_t(1));
    QCOMPARE(bubbles[0]->bubbleNs, int64_t(10'000));
    QCOMPARE(bubbles[0]->count, int64_t(1));
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

QTEST_GUILESS_MAIN(TestInsightThresholds)
#include "test_insight_thresholds.moc"
