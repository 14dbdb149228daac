// The power thresholds of InsightThresholds (powerCap) at their boundaries, from both sides, with
// the default values written out as docs/insights.md documents them: a GPU held at its power cap
// keeps part of the idle time a fix fills, and one below its limit is projected to slow down when
// the fix keeps it busier. The other thresholds are tested in test_insight_thresholds.
#include "format/session_meta.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/optional_text.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

using namespace stallscope;
using format::SyncKind;
using model::InsightRule;
using testing::InsightFixture;
using testing::insightsOf;
using Saving = std::optional<int64_t>; // nothing when the fixture failed (which failed the test)

class TestPowerThresholds : public QObject {
    Q_OBJECT
private slots:
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
    // The saving of a C++ sync site replayed at 200 µs of a 1 ms window (as
    // test_insight_thresholds' severityOfSaving's) in a recording whose meta says `busy` busy GPU
    // samples and `capped` of them at the power cap (empty: no such key).
    Saving savingWithPowerSamples(const std::string& busy, const std::string& capped,
                                  bool* cappedText = nullptr);
    // The saving of the sync in a loop of 20 steps: a 600 µs kernel, the sync that waits for it,
    // 400 µs of host work. Without the sync the GPU runs the kernels back to back. `meta`:
    // gpu_power_* keys and values written to the recording.
    Saving projectedSaving(const std::map<std::string_view, std::string>& meta,
                           std::string* evidence = nullptr,
                           const model::InsightThresholds& thresholds = {});
    QTemporaryDir m_dir;
    int m_files = 0;
};

Saving TestPowerThresholds::savingWithPowerSamples(const std::string& busy,
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
    const testing::LoadedFixture loaded = f.load();
    if (!loaded.ok())
        return std::nullopt;
    const model::InsightReport report = loaded.analyze();
    const auto found = insightsOf(report, InsightRule::SyncAttribution);
    if (found.size() != 1) {
        STALLSCOPE_FAIL("expected one finding, found %zu", found.size());
        return std::nullopt;
    }
    if (cappedText)
        *cappedText = report.assumptions.find("power limit") != std::string::npos &&
                      found[0]->evidence.find("power limit") == std::string::npos; // said once
    if (report.summary.gpuPowerCapped != (found[0]->savingsNs != 200'000)) {
        STALLSCOPE_FAIL("the summary's gpuPowerCapped (%d) disagrees with the finding's saving of "
                        "%lld ns",
                        int(report.summary.gpuPowerCapped),
                        static_cast<long long>(found[0]->savingsNs));
        return std::nullopt;
    }
    return found[0]->savingsNs;
}

// A GPU at its power cap keeps 60 % of the idle time a fix fills (slowdownShare 0.40), from 10
// busy samples on (9: too few to tell).
void TestPowerThresholds::powerCapFromMinimumBusySamples() {
    QCOMPARE(model::InsightThresholds{}.powerCap.slowdownShare, 0.40);
    QCOMPARE(model::InsightThresholds{}.powerCap.minBusySamples, int64_t(10));
    bool text = true;
    QCOMPARE(savingWithPowerSamples("", "", &text), Saving(200'000)); // no samples: no discount
    QVERIFY(!text);
    QCOMPARE(savingWithPowerSamples("9", "9", &text), Saving(200'000));
    QVERIFY(!text);
    QCOMPARE(savingWithPowerSamples("10", "10", &text), Saving(120'000));
    QVERIFY(text);
}

// ... when at least half of the busy samples were held back by power.
void TestPowerThresholds::powerCapFromMinimumCappedShare() {
    QCOMPARE(model::InsightThresholds{}.powerCap.minCappedShare, 0.5);
    QCOMPARE(savingWithPowerSamples("20", "9"), Saving(200'000));
    QCOMPARE(savingWithPowerSamples("20", "10"), Saving(120'000));
}

// Counts that are not counts, or more capped samples than busy ones, leave the saving alone.
void TestPowerThresholds::powerCapIgnoresMalformedCounts() {
    QCOMPARE(savingWithPowerSamples("20", "21"), Saving(200'000));
    QCOMPARE(savingWithPowerSamples("-20", "-20"), Saving(200'000));
    QCOMPARE(savingWithPowerSamples("20x", "20"), Saving(200'000));
    QCOMPARE(savingWithPowerSamples("99999999999999999999", "20"), Saving(200'000));
}

// The GPU time a fix takes away (a 64 MiB pageable copy made pinned) is saved whole at the power
// cap; only the rest — idle time the fix fills — is discounted.
void TestPowerThresholds::powerCapKeepsRemovedGpuTime() {
    auto saving = [this](bool capped) -> Saving {
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
        const testing::LoadedFixture loaded = f.load();
        if (!loaded.ok())
            return std::nullopt;
        const model::InsightReport report = loaded.analyze();
        const auto found = insightsOf(report, InsightRule::PageableCopy);
        if (found.size() != 1) {
            STALLSCOPE_FAIL("expected one pageable-copy finding, found %zu", found.size());
            return std::nullopt;
        }
        return found[0]->savingsNs;
    };
    // 64 MiB at the default pinned rate of 48.8 GB/s, plus the typical queue gap (the default
    // 1 µs of whatif::Latencies: no operation here waited in a queue, and the staged copy's start
    // is no measure of it).
    const int64_t pinnedNs = static_cast<int64_t>(double(64 << 20) / 48.8e9 * 1e9) + 1'000;
    const int64_t removed = 8'000'000 - pinnedNs;
    const Saving uncapped = saving(false);
    QVERIFY(uncapped);
    QVERIFY(*uncapped > removed + 100'000); // the host work overlapped too
    QCOMPARE(saving(true), Saving(removed + std::llround(0.6 * double(*uncapped - removed))));
}
Saving TestPowerThresholds::projectedSaving(const std::map<std::string_view, std::string>& meta,
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
    const testing::LoadedFixture loaded = f.load();
    if (!loaded.ok())
        return std::nullopt;
    const model::InsightReport report = loaded.analyze(options);
    for (const model::Insight& insight : report.insights)
        if (insight.site.line == 7) {
            if (evidence) // the card's own text, then what the whole report assumes
                *evidence = insight.evidence + "\nassumed: " + report.assumptions;
            return insight.savingsNs;
        }
    STALLSCOPE_FAIL("no finding at the loop's sync (line 7) among %zu", report.insights.size());
    return std::nullopt;
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
void TestPowerThresholds::powerProjectionAtTheLimit() {
    QCOMPARE(model::InsightThresholds{}.powerCap.slowdownShare, 0.40);
    const Saving unlimited = projectedSaving({});
    QVERIFY(unlimited);
    QVERIFY(*unlimited > 7'000'000); // about 19 x 400 µs of host work now overlapped
    std::string evidence;
    QCOMPARE(projectedSaving(belowTheLimit(693), &evidence), unlimited);
    QVERIFY(evidence.find("W limit") == std::string::npos);
    QCOMPARE(projectedSaving(belowTheLimit(692)), unlimited);
    QVERIFY(projectedLoss(691) > 10'000);
    const Saving slowed = projectedSaving(belowTheLimit(691));
    QVERIFY(slowed);
    QVERIFY(qAbs(*slowed - (*unlimited - projectedLoss(691))) <= 100);
    const Saving limited = projectedSaving(belowTheLimit(550), &evidence);
    QVERIFY(limited);
    QVERIFY(qAbs(*limited - (*unlimited - projectedLoss(550))) <= 100);
    QVERIFY2(evidence.find("the fix keeps the GPU busy 99.8 % of the time (60.6 % recorded, at 460 "
                           "W), where it would draw about 693 W of its 550 W limit: a lower clock "
                           "makes its kernels 11.7 % longer") != std::string::npos,
             evidence.c_str());
}

// At least 10 steady samples (9: too few to tell).
void TestPowerThresholds::powerProjectionAtMinimumSteadySamples() {
    QCOMPARE(model::InsightThresholds{}.powerCap.minSamples, int64_t(10));
    const Saving unlimited = projectedSaving({});
    QVERIFY(unlimited);
    auto meta = belowTheLimit(550);
    meta[format::meta::kGpuPowerSteadySamples] = "9";
    QCOMPARE(projectedSaving(meta), unlimited);
    meta[format::meta::kGpuPowerSteadySamples] = "10";
    const Saving projected = projectedSaving(meta);
    QVERIFY(projected);
    QVERIFY(qAbs(*projected - (*unlimited - projectedLoss(550))) <= 100);
}

// The recorded duty must be at least minRecordedDuty (5 %): moved to just below and just above
// this recording's 60.6 %.
void TestPowerThresholds::powerProjectionAtMinimumRecordedDuty() {
    QCOMPARE(model::InsightThresholds{}.powerCap.minRecordedDuty, 0.05);
    const Saving unlimited = projectedSaving({});
    QVERIFY(unlimited);
    model::InsightThresholds thresholds;
    thresholds.powerCap.minRecordedDuty = kRecordedDuty - 1e-6;
    const Saving projected = projectedSaving(belowTheLimit(550), nullptr, thresholds);
    QVERIFY(projected);
    QVERIFY(qAbs(*projected - (*unlimited - projectedLoss(550))) <= 100);
    thresholds.powerCap.minRecordedDuty = kRecordedDuty + 1e-6;
    QCOMPARE(projectedSaving(belowTheLimit(550), nullptr, thresholds), unlimited);
}

// A recording at its power cap is discounted as such, not projected; meta that is not
// consistent (steady power at or above the limit, below the lowest sample, not a number, a key
// missing) projects nothing.
void TestPowerThresholds::powerProjectionIgnoresMalformedMeta() {
    namespace meta = format::meta;
    const Saving unlimited = projectedSaving({});
    QVERIFY(unlimited);
    auto capped = belowTheLimit(550);
    capped[meta::kGpuPowerBusySamples] = "20";
    capped[meta::kGpuPowerCappedSamples] = "20";
    std::string evidence;
    QVERIFY(projectedSaving(capped, &evidence));
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

STALLSCOPE_TEST_GUILESS_MAIN(TestPowerThresholds)
#include "test_power_thresholds.moc"
