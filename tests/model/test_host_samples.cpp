// The Python sampler's samples in the analysis (docs/insights.md, "Sampled lines", "host-gap"), on
// generated sessions with planted samples (SyntheticOptions::sampleHz): the straggler's cause
// names the line its host sat at, with the share of samples; a single process's GPU idle gaps
// get a host-gap finding at the collate line, or evidence on the sync site's finding when the line
// is one; every threshold on both sides; the samples round-trip through the file.
#include "model/analysis/insight_engine.h"
#include "model/session/session_database.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/generated_session.h"
#include "tests/support/test_suite.h"

#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace stallscope;
using model::InsightRule;

namespace {

using Run = testing::GeneratedSession;
using testing::generateSession;

// Rank 1 of 2 sleeps 20 ms in plain Python before each all-reduce; 200 Hz: 4 samples a step.
model::SyntheticOptions straggler(int sampleHz, int secondLineEvery = 0) {
    model::SyntheticOptions options;
    options.seed = 7;
    options.ranks = 2;
    options.rankSteps = 30;
    options.kernelsPerStep = 8;
    options.stragglerRank = 1;
    options.stragglerDelayNs = 20'000'000;
    options.rankJitterNs = 50'000;
    options.sampleHz = sampleHz;
    options.sampleSecondLineEvery = secondLineEvery;
    return options;
}

// One process, one thread: 5 ms of collate before each step, the GPU drained by loss.item().
model::SyntheticOptions collating(int sampleHz, bool atSyncSite = false) {
    model::SyntheticOptions options;
    options.seed = 11;
    options.targetEvents = 4'000;
    options.threadsPerProcess = 1;
    options.kernelsPerStep = 8;
    options.hostWorkNs = 5'000'000;
    options.sampleHz = sampleHz;
    options.hostWorkAtSyncSite = atSyncSite;
    return options;
}

const model::Insight* ruleOf(const model::InsightReport& report, InsightRule rule) {
    for (const model::Insight& insight : report.insights)
        if (insight.rule == rule)
            return &insight;
    return nullptr;
}
// The finding lives in its report: a temporary report would leave the pointer dangling.
const model::Insight* ruleOf(const model::InsightReport&& report, InsightRule rule) = delete;

bool hasRule(const model::InsightReport& report, InsightRule rule) {
    return ruleOf(report, rule) != nullptr;
}

QString causeOf(const model::InsightReport& report) {
    const model::Insight* insight = ruleOf(report, InsightRule::Straggler);
    return insight && insight->straggler ? QString::fromStdString(insight->straggler->cause)
                                         : QString();
}

// "of N samples" in a cause: the samples of the straggler's gaps.
int64_t samplesInCause(const QString& cause) {
    const QRegularExpressionMatch m = QRegularExpression("of (\\d+) samples").match(cause);
    return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

} // namespace

class TestHostSamples : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void samplesRoundTrip();
    void stragglerCauseNamesTheSampledLine();
    void stragglerLineIsOneFinding();
    void collectiveFromAThreadWithoutPython();
    void withoutSamplesTheCauseNamesNoLine();
    void minSamplesOfTheGapsBothSides();
    void minLineShareBothSides();
    void gpuIdleNamesTheCollateLine();
    void noSamplesNoHostGap();
    void hostGapThresholdsBothSides();
    void sampledSyncSiteLineIsEvidenceOfItsFinding();

private:
    testing::ScratchDir m_dir;
    Run m_straggler, m_collate;
};

void TestHostSamples::initTestCase() {
    m_straggler = generateSession(m_dir, "straggler.stallscope", straggler(200));
    QVERIFY(m_straggler.ok());
    m_collate = generateSession(m_dir, "collate.stallscope", collating(1000));
    QVERIFY(m_collate.ok());
}

void TestHostSamples::samplesRoundTrip() {
    QVERIFY(m_straggler.stats.hostSamples > 0);
    QCOMPARE(m_straggler.session->hostSamples, m_straggler.stats.hostSamples);
    QCOMPARE(m_straggler.session->formatVersion, format::kFormatVersion);
    // 20 ms at 200 Hz: 4 samples a step, all of rank 1's main thread, in one run per step.
    int64_t runs = 0;
    for (const model::HostLane& lane : m_straggler.session->hostLanes)
        runs += static_cast<int64_t>(lane.samples.size());
    QCOMPARE(m_straggler.stats.hostSamples, 4 * int64_t(30));
    QCOMPARE(runs, int64_t(30));
    QCOMPARE(m_collate.session->hostSamples, m_collate.stats.hostSamples);
}

void TestHostSamples::stragglerCauseNamesTheSampledLine() {
    const model::InsightReport report = m_straggler.analyze();
    const model::Insight* insight = ruleOf(report, InsightRule::Straggler);
    QVERIFY(insight);
    const QString cause = causeOf(report);
    QVERIFY2(cause.contains("sampled, the host was at train.py:41 in train_step (100.0 % of "),
             qPrintable(cause));
    QVERIFY2(samplesInCause(cause) >= 100, qPrintable(cause));
    QVERIFY2(QString::fromStdString(insight->evidence).contains("train.py:41 in train_step"),
             insight->evidence.c_str());
    // The finding's site is the line: the card's source chip and the gutter show it.
    QCOMPARE(insight->site.file, std::string("train.py"));
    QCOMPARE(insight->site.line, int64_t(41));
}

// The late rank's GPU idles while its host runs the straggler's line: that is evidence of the
// straggler finding, not a host-gap finding of its own on the same line (one finding per site).
void TestHostSamples::stragglerLineIsOneFinding() {
    const model::InsightReport report = m_straggler.analyze();
    int onTheLine = 0;
    for (const model::Insight& insight : report.insights)
        if (insight.site.file == "train.py" && insight.site.line == 41)
            ++onTheLine;
    QCOMPARE(onTheLine, 1);
    const model::Insight* straggler = ruleOf(report, InsightRule::Straggler);
    QVERIFY(straggler);
    QVERIFY(std::count(straggler->rules.begin(), straggler->rules.end(), InsightRule::HostGap) ==
            1);
    QVERIFY2(QString::fromStdString(straggler->evidence).contains(". Sampled: "),
             straggler->evidence.c_str());
}

// DDP launches the all-reduce from autograd's thread, which runs no Python: the samples that name
// the gap are the main thread's (seen on 2 × H200: ddp_straggler.py:23 in load_batch).
void TestHostSamples::collectiveFromAThreadWithoutPython() {
    model::SyntheticOptions options = straggler(200);
    options.collectivesFromSecondThread = true;
    const Run run = generateSession(m_dir, "straggler-autograd.stallscope", options);
    QVERIFY(run.ok());
    QCOMPARE(run.session->threads.size(), size_t(4)); // two threads per rank
    const QString cause = causeOf(run.analyze());
    QVERIFY2(cause.contains("sampled, the host was at train.py:41 in train_step (100.0 % of "),
             qPrintable(cause));
    QVERIFY2(samplesInCause(cause) >= 100, qPrintable(cause));
}

void TestHostSamples::withoutSamplesTheCauseNamesNoLine() {
    const Run run = generateSession(m_dir, "straggler-unsampled.stallscope", straggler(0));
    QVERIFY(run.ok());
    QCOMPARE(run.session->hostSamples, int64_t(0));
    const QString cause = causeOf(run.analyze());
    QVERIFY2(cause.startsWith("host work between") && !cause.contains("sampled"),
             qPrintable(cause));
}

void TestHostSamples::minSamplesOfTheGapsBothSides() {
    const int64_t samples = samplesInCause(causeOf(m_straggler.analyze()));
    QVERIFY(samples > 0);
    model::InsightThresholds t;
    t.sampledLines.minSamples = samples;
    QVERIFY(causeOf(m_straggler.analyze(t)).contains("train.py:41"));
    t.sampledLines.minSamples = samples + 1;
    const QString cause = causeOf(m_straggler.analyze(t));
    QVERIFY2(cause.startsWith("host work between") && !cause.contains("sampled"),
             qPrintable(cause));
}

void TestHostSamples::minLineShareBothSides() {
    // Every 4th sample at data.py:75: the sleep line holds 75 %, the second 25 %.
    const Run run = generateSession(m_dir, "straggler-two-lines.stallscope", straggler(200, 4));
    QVERIFY(run.ok());
    QVERIFY(run.stats.secondLineSamples * 4 == run.stats.hostSamples);
    model::InsightThresholds t;
    t.sampledLines.minLineShare = 0.25;
    QString cause = causeOf(run.analyze(t));
    QVERIFY2(cause.contains("train.py:41 in train_step (75.0 % of") &&
                 cause.contains("; data.py:75 in collate (25.0 % of"),
             qPrintable(cause));
    t.sampledLines.minLineShare = 0.26;
    cause = causeOf(run.analyze(t));
    QVERIFY2(cause.contains("train.py:41") && !cause.contains("data.py:75"), qPrintable(cause));
    t.sampledLines.minLineShare = 0.75;
    QVERIFY(causeOf(run.analyze(t)).contains("train.py:41"));
    t.sampledLines.minLineShare = 0.76;
    QVERIFY(!causeOf(run.analyze(t)).contains("sampled"));
    t.sampledLines.minLineShare = 0.25;
    t.sampledLines.maxLines = 1;
    cause = causeOf(run.analyze(t));
    QVERIFY2(cause.contains("train.py:41") && !cause.contains("data.py:75"), qPrintable(cause));
}

void TestHostSamples::gpuIdleNamesTheCollateLine() {
    const model::InsightReport report = m_collate.analyze();
    const model::Insight* insight = ruleOf(report, InsightRule::HostGap);
    QVERIFY(insight);
    QCOMPARE(insight->site.file, std::string("data.py"));
    QCOMPARE(insight->site.line, int64_t(72));
    QCOMPARE(insight->site.function, std::string("collate"));
    QVERIFY2(QString::fromStdString(insight->title).startsWith("GPU idle "),
             insight->title.c_str());
    QVERIFY2(QString::fromStdString(insight->evidence)
                 .contains("while the host was at "
                           "data.py:72 in collate"),
             insight->evidence.c_str());
    // Every planted sample lies in an idle gap of the window but those cut by its edges.
    QVERIFY(insight->count > m_collate.stats.hostSamples / 2);
    QVERIFY(insight->count <= m_collate.stats.hostSamples);
    QVERIFY(insight->share > 0.2);
    QVERIFY(!insight->recommendation.empty());
}

void TestHostSamples::noSamplesNoHostGap() {
    const Run run = generateSession(m_dir, "collate-unsampled.stallscope", collating(0));
    QVERIFY(run.ok());
    QVERIFY(!hasRule(run.analyze(), InsightRule::HostGap));
}

void TestHostSamples::hostGapThresholdsBothSides() {
    const model::InsightReport report = m_collate.analyze();
    const model::Insight* found = ruleOf(report, InsightRule::HostGap);
    QVERIFY(found);
    const int64_t samples = found->count;
    const double share = found->share;
    auto fires = [&](const model::InsightThresholds& t) {
        return hasRule(m_collate.analyze(t), InsightRule::HostGap);
    };
    model::InsightThresholds t;
    t.sampledLines.minSamples = samples;
    QVERIFY(fires(t));
    t.sampledLines.minSamples = samples + 1;
    QVERIFY(!fires(t));
    t = {};
    t.sampledLines.minIdleShare = share - 1e-6;
    QVERIFY(fires(t));
    t.sampledLines.minIdleShare = share + 1e-6;
    QVERIFY(!fires(t));
    // The gaps last the 5 ms of collate plus the few microseconds of the calls around it.
    t = {};
    t.sampledLines.minIdleNs = 5'000'000;
    QVERIFY(fires(t));
    t.sampledLines.minIdleNs = 6'000'000;
    QVERIFY(!fires(t));
}

void TestHostSamples::sampledSyncSiteLineIsEvidenceOfItsFinding() {
    const Run run = generateSession(m_dir, "collate-at-item.stallscope", collating(1000, true));
    QVERIFY(run.ok());
    const model::InsightReport report = run.analyze();
    QVERIFY(!ruleOf(report, InsightRule::HostGap)); // no finding of its own
    const model::Insight* site = nullptr;
    for (const model::Insight& insight : report.insights)
        if (insight.siteIndex >= 0 && insight.site.file == "train.py" && insight.site.line == 48)
            site = &insight;
    QVERIFY(site);
    QVERIFY(std::find(site->rules.begin(), site->rules.end(), InsightRule::HostGap) !=
            site->rules.end());
    QVERIFY2(QString::fromStdString(site->evidence).contains("Sampled: GPU 0"),
             site->evidence.c_str());
}

STALLSCOPE_TEST_GUILESS_MAIN(TestHostSamples)
#include "test_host_samples.moc"
