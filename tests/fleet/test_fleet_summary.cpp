// The fleet summary's numbers (issue 43 item 4) on generated run folders, each against what the
// full model computes from the same files (per-rank sessions loaded by SessionLoader, the run
// loaded by RunMerger and analysed by InsightEngine) or what the generator wrote (SyntheticStats).
#include "format/session_enums.h"
#include "model/analysis/collective_match.h"
#include "model/analysis/insight_engine.h"
#include "model/fleet/fleet_summary.h"
#include "model/interop/run_merge.h"
#include "model/session/event_ref.h"
#include "model/session/session_loader.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/sqlite_edit.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

using namespace stallscope;
using model::fleet::FleetOptions;
using model::fleet::FleetSummary;
using model::fleet::RankSummary;
using model::fleet::StepSource;

namespace {

constexpr int kRanks = 4;
constexpr int kStraggler = 2;
constexpr int64_t kSteps = 40;

model::SyntheticOptions runOptions(int64_t steps = kSteps) {
    model::SyntheticOptions options;
    options.seed = 43;
    options.ranks = kRanks;
    options.rankSteps = steps;
    options.kernelsPerStep = 8;
    options.stragglerRank = kStraggler;
    options.stragglerDelayNs = 3'000'000;
    options.rankJitterNs = 200'000;
    return options;
}

// The upper median and nearest-rank p90 of `values`, as BoundedQuantiles defines them.
std::pair<int64_t, int64_t> medianAndP90(std::vector<int64_t> values) {
    std::sort(values.begin(), values.end());
    const auto n = static_cast<int64_t>(values.size());
    return {values[size_t(n / 2)], values[size_t((9 * n + 9) / 10 - 1)]};
}

// What the loaded session of one rank says: its step ranges' times ("step N", depth 0), its
// host-blocking syncs, its GPU work's union.
struct Expected {
    int64_t steps = 0, medianStepNs = 0, p90StepNs = 0;
    int64_t blockingSyncs = 0, blockedNs = 0;
    int64_t gpuStartNs = 0, gpuEndNs = 0, gpuBusyNs = 0;
    int64_t collectives = 0;
};

Expected expectedOf(const model::Session& session) {
    Expected expected;
    std::vector<std::pair<int64_t, int64_t>> steps, gpu;
    for (const model::HostLane& lane : session.hostLanes) {
        for (size_t i = 0; i < lane.syncs.size(); ++i)
            if (model::isHostBlocking(lane.syncs.kind[i])) {
                ++expected.blockingSyncs;
                expected.blockedNs += lane.syncs.end[i] - lane.syncs.start[i];
            }
        if (!lane.rangesByDepth.empty())
            for (size_t i = 0; i < lane.rangesByDepth[0].size(); ++i)
                if (session.strings[lane.rangesByDepth[0].nameId[i]].starts_with("step "))
                    steps.emplace_back(lane.rangesByDepth[0].start[i],
                                       lane.rangesByDepth[0].end[i]);
    }
    std::sort(steps.begin(), steps.end());
    std::vector<int64_t> durations;
    for (size_t i = 0; i < steps.size(); ++i)
        durations.push_back(i + 1 < steps.size() ? steps[i + 1].first - steps[i].first
                                                 : steps[i].second - steps[i].first);
    expected.steps = static_cast<int64_t>(steps.size());
    if (!durations.empty())
        std::tie(expected.medianStepNs, expected.p90StepNs) = medianAndP90(durations);
    for (const model::StreamLane& lane : session.streamLanes) {
        for (size_t i = 0; i < lane.kernels.size(); ++i) {
            gpu.emplace_back(lane.kernels.start[i], lane.kernels.end[i]);
            expected.collectives +=
                session.strings[lane.kernels.nameId[i]].find("nccl") != std::string::npos;
        }
        for (const model::TransferColumns* ops : {&lane.memcpys, &lane.memsets})
            for (size_t i = 0; i < ops->size(); ++i)
                gpu.emplace_back(ops->start[i], ops->end[i]);
    }
    std::sort(gpu.begin(), gpu.end());
    int64_t reach = std::numeric_limits<int64_t>::min();
    for (const auto& [start, end] : gpu) {
        expected.gpuBusyNs += std::max<int64_t>(0, end - std::max(start, reach));
        reach = std::max(reach, end);
    }
    expected.gpuStartNs = gpu.front().first;
    expected.gpuEndNs = reach;
    return expected;
}

} // namespace

class TestFleetSummary : public QObject {
    Q_OBJECT
    testing::ScratchDir m_dir;
    std::string m_run;
    model::SyntheticStats m_stats;
    FleetSummary m_summary;

    // Nothing when the summary fails (which fails the test).
    std::optional<FleetSummary> summarize(const std::string& path,
                                          const FleetOptions& options = {}) {
        model::fleet::FleetResult result = model::fleet::summarizeRun(path, options);
        if (!result.ok()) {
            STALLSCOPE_FAIL("summary of %s failed: %s", path.c_str(), result.error.c_str());
            return std::nullopt;
        }
        return std::move(*result.summary);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_run = m_dir.file("run");
        std::string error;
        QVERIFY2(model::writeSyntheticRun(m_run, runOptions(), &m_stats, &error), error.c_str());
        std::optional<FleetSummary> summary = summarize(m_run);
        QVERIFY(summary);
        m_summary = std::move(*summary);
    }

    // Every rank, the first and the last included, against its own file loaded in full.
    void perRankNumbersMatchTheLoadedSession() {
        QCOMPARE(m_summary.ranks.size(), size_t(kRanks));
        for (int r = 0; r < kRanks; ++r) {
            const RankSummary& rank = m_summary.ranks[size_t(r)];
            QCOMPARE(rank.rank, int64_t(r));
            QCOMPARE(rank.label, "rank " + std::to_string(r));
            const std::string file = m_run + "/rank" + std::to_string(r) + ".stallscope";
            const model::LoadResult loaded = model::SessionLoader::load(file);
            QVERIFY2(loaded.ok(), loaded.error.c_str());
            const Expected expected = expectedOf(*loaded.session);
            QCOMPARE(rank.stepSource, StepSource::NvtxSteps);
            QCOMPARE(rank.steps, kSteps);
            QCOMPARE(expected.steps, kSteps);
            QVERIFY(rank.stepNs.exact());
            QCOMPARE(rank.stepNs.median(), expected.medianStepNs);
            QCOMPARE(rank.stepNs.p90(), expected.p90StepNs);
            QCOMPARE(rank.blockingSyncs, expected.blockingSyncs);
            QCOMPARE(rank.blockedNs, expected.blockedNs);
            QCOMPARE(rank.gpuStartNs, expected.gpuStartNs);
            QCOMPARE(rank.gpuEndNs, expected.gpuEndNs);
            QCOMPARE(rank.gpuBusyNs, expected.gpuBusyNs);
            QCOMPARE(rank.devices, int64_t(1));
            QCOMPARE(rank.collectives, kSteps);
            QCOMPARE(expected.collectives, kSteps);
            QVERIFY(rank.blockedShare() > 0 && rank.blockedShare() < 1);
            QVERIFY(rank.gpuBusyShare() > 0 && rank.gpuBusyShare() <= 1);
        }
        // The straggler's steps take longer than the others' only by what it holds them up: every
        // rank waits at the all-reduce, so the step times agree within the jitter.
        QVERIFY(m_summary.ranks[kStraggler].stepNs.median() > 3'000'000);
    }

    // Sites summed over ranks: the generator's own totals per line (its sites, all ranks).
    void topSitesAreTheGeneratorsTotals() {
        QVERIFY(m_summary.sitesExact);
        QVERIFY(!m_summary.sites.empty());
        int64_t blockingSites = 0;
        for (const model::SyntheticSyncSite& site : m_stats.sites) {
            if (site.kind == format::SyncKind::StreamWaitEvent || site.count == 0)
                continue;
            ++blockingSites;
            const auto found =
                std::find_if(m_summary.sites.begin(), m_summary.sites.end(), [&](const auto& s) {
                    return s.file == site.file && s.line == site.line;
                });
            QVERIFY2(found != m_summary.sites.end(),
                     (site.file + ":" + std::to_string(site.line)).c_str());
            QCOMPARE(found->blockedNs, site.blockedNs);
            QCOMPARE(found->syncs, site.count);
            QVERIFY(found->exact);
        }
        QCOMPARE(int64_t(m_summary.sites.size()), std::min<int64_t>(blockingSites, 10));
        for (size_t i = 1; i < m_summary.sites.size(); ++i)
            QVERIFY(m_summary.sites[i - 1].blockedNs >= m_summary.sites[i].blockedNs);
        // loss.item() blocks on every rank every step.
        const auto item = std::find_if(m_summary.sites.begin(), m_summary.sites.end(),
                                       [](const auto& s) { return s.label() == "train.py:48"; });
        QVERIFY(item != m_summary.sites.end());
        QCOMPARE(item->ranks, int64_t(kRanks));
    }

    // The straggler: the full analysis names the rank the summary found most often last, and the
    // counts are CollectiveMatch's over the whole run.
    void stragglerAgreesWithTheFullAnalysis() {
        const model::LoadResult run = model::RunMerger::load({m_run});
        QVERIFY2(run.ok(), run.error.c_str());
        const model::InsightReport report = model::InsightEngine::analyzeFile(*run.session);
        const auto straggler =
            std::find_if(report.insights.begin(), report.insights.end(),
                         [](const auto& i) { return i.rule == model::InsightRule::Straggler; });
        QVERIFY(straggler != report.insights.end());
        QVERIFY(m_summary.mostOftenLast >= 0);
        QCOMPARE(m_summary.ranks[size_t(m_summary.mostOftenLast)].label,
                 straggler->straggler->label);
        QCOMPARE(straggler->straggler->label, "rank " + std::to_string(kStraggler));

        model::CollectiveMatch match;
        match.build(*run.session, 0, std::numeric_limits<int64_t>::max());
        QCOMPARE(m_summary.matchedCollectives, int64_t(match.collectives().size()));
        std::map<size_t, std::vector<int64_t>> lateness;
        int64_t contended = 0;
        for (const model::MatchedCollective& collective : match.collectives()) {
            size_t last = 0;
            for (size_t r = 1; r < collective.ranks.size(); ++r)
                if (collective.ranks[r].arrivalNs > collective.ranks[last].arrivalNs)
                    last = r;
            int64_t second = std::numeric_limits<int64_t>::min();
            for (size_t r = 0; r < collective.ranks.size(); ++r)
                if (r != last)
                    second = std::max(second, collective.ranks[r].arrivalNs);
            if (collective.ranks[last].arrivalNs - second < m_summary.contendedNs)
                continue;
            ++contended;
            lateness[last].push_back(collective.ranks[last].arrivalNs - second);
        }
        QCOMPARE(m_summary.contendedCollectives, contended);
        for (int r = 0; r < kRanks; ++r) {
            const RankSummary& rank = m_summary.ranks[size_t(r)];
            QCOMPARE(rank.lastAt, int64_t(lateness[size_t(r)].size()));
            if (!lateness[size_t(r)].empty())
                QCOMPARE(rank.latenessNs.median(), medianAndP90(lateness[size_t(r)]).first);
        }
        QVERIFY(m_summary.ranks[kStraggler].lastAt > kSteps / 2);
    }

    // Both sides of the contended threshold: at 1 ns every collective counts, above the largest
    // lateness none does and no rank is named.
    void contendedThresholdBothSides() {
        FleetOptions options;
        options.contendedNs = 1;
        const std::optional<FleetSummary> all = summarize(m_run, options);
        QVERIFY(all);
        QCOMPARE(all->contendedCollectives, all->matchedCollectives);
        int64_t lastAt = 0;
        for (const RankSummary& rank : all->ranks)
            lastAt += rank.lastAt;
        QCOMPARE(lastAt, all->matchedCollectives);
        options.contendedNs = 60'000'000'000;
        const std::optional<FleetSummary> none = summarize(m_run, options);
        QVERIFY(none);
        QCOMPARE(none->matchedCollectives, all->matchedCollectives);
        QCOMPARE(none->contendedCollectives, int64_t(0));
        QCOMPARE(none->mostOftenLast, -1);
    }

    // A run without a straggler: neither the full analysis nor the summary names one.
    void evenRunHasNoStraggler() {
        const std::string even = m_dir.file("even");
        model::SyntheticOptions options = runOptions();
        options.stragglerRank = -1;
        std::string error;
        QVERIFY2(model::writeSyntheticRun(even, options, nullptr, &error), error.c_str());
        const std::optional<FleetSummary> summary = summarize(even);
        QVERIFY(summary);
        QVERIFY(!summary->straggler);
        QVERIFY(m_summary.straggler);
        const model::LoadResult run = model::RunMerger::load({even});
        QVERIFY2(run.ok(), run.error.c_str());
        const model::InsightReport report = model::InsightEngine::analyzeFile(*run.session);
        QVERIFY(std::none_of(report.insights.begin(), report.insights.end(), [](const auto& i) {
            return i.rule == model::InsightRule::Straggler;
        }));
    }

    // The limits on what a rank's reading tracks, at and one below what the run has: two
    // host-blocking sites and one collective kernel name per rank.
    void limitsBothSides() {
        FleetOptions options;
        options.maxSitesPerRank = 2;
        options.maxCollectiveNames = 1;
        const std::optional<FleetSummary> at = summarize(m_run, options);
        QVERIFY(at);
        QVERIFY(at->notes.empty());
        QCOMPARE(at->sites.size(), m_summary.sites.size());
        QCOMPARE(at->matchedCollectives, m_summary.matchedCollectives);
        options.maxSitesPerRank = 1;
        options.maxCollectiveNames = 0;
        const std::optional<FleetSummary> below = summarize(m_run, options);
        QVERIFY(below);
        QCOMPARE(below->notes.size(), size_t(2 * kRanks));
        QVERIFY(std::any_of(below->sites.begin(), below->sites.end(),
                            [](const auto& s) { return s.file == "<other sites>"; }));
        QCOMPARE(below->ranks.front().blockedNs, m_summary.ranks.front().blockedNs);
        QCOMPARE(below->matchedCollectives, int64_t(0));
        QCOMPARE(below->mostOftenLast, -1);
    }

    // Ranks that pass on only their largest site: the fleet's list says which totals are exact.
    void topSitesPerRankCutOff() {
        FleetOptions options;
        options.sitesPerRank = 1;
        const std::optional<FleetSummary> cut = summarize(m_run, options);
        QVERIFY(cut);
        QVERIFY(!cut->sitesExact);
        QCOMPARE(cut->sites.front().label(), m_summary.sites.front().label());
        QCOMPARE(cut->sites.front().blockedNs, m_summary.sites.front().blockedNs);
        QVERIFY(cut->sites.front().exact); // every rank listed it
    }

    // A user frame the compiler inlined from cuda_runtime.h's template into main(): the site is
    // main's line from the inline chain, as the loaded analysis has it (SyncSites), not the
    // header's.
    void inlinedCallerIsTheSite() {
        const std::string file = m_dir.file("inlined.stallscope");
        QVERIFY(QFile::copy(QString::fromStdString(m_run + "/rank0.stallscope"),
                            QString::fromStdString(file)));
        const std::string header = "/usr/local/cuda/include/cuda_runtime.h";
        testing::execSql(file, ("UPDATE frames SET kind = 1, is_user = 1, file = '" + header +
                                "', line = 1038 WHERE file LIKE '%train.py' AND line = 48")
                                   .c_str());
        testing::execSql(file, ("INSERT INTO frame_inlines(frame_id, depth, function, file, line) "
                                "SELECT id, 0, 'cudaMemcpyToSymbol<float [64]>', file, line FROM "
                                "frames WHERE file = '" +
                                header +
                                "' UNION ALL "
                                "SELECT id, 1, 'main', '/home/u/main.cu', 61 FROM frames WHERE "
                                "file = '" +
                                header + "'")
                                   .c_str());
        auto site = [](const FleetSummary& summary, const std::string& label) {
            const auto found = std::find_if(summary.sites.begin(), summary.sites.end(),
                                            [&label](const auto& s) { return s.label() == label; });
            return found == summary.sites.end() ? nullptr : &*found;
        };
        const std::optional<FleetSummary> before = summarize(m_run + "/rank0.stallscope");
        QVERIFY(before);
        const std::optional<FleetSummary> after = summarize(file);
        QVERIFY(after);
        QVERIFY(site(*before, "train.py:48"));
        QVERIFY(site(*after, "/home/u/main.cu:61"));
        QCOMPARE(site(*after, "/home/u/main.cu:61")->syncs, site(*before, "train.py:48")->syncs);
        QCOMPARE(site(*after, "/home/u/main.cu:61")->blockedNs,
                 site(*before, "train.py:48")->blockedNs);
        QVERIFY(!site(*after, "cuda_runtime.h:1038"));
        QVERIFY(!site(*after, "train.py:48"));
    }

    // What the summary holds does not grow with the events: four times the steps, the same peak
    // (quantiles past their exact limit, read-ahead buffers, site lists).
    void memoryDoesNotGrowWithEvents() {
        FleetOptions options;
        options.exactQuantiles = 8;
        options.arrivalsReadAhead = 16;
        const std::string longer = m_dir.file("big"); // as long a path as "run"
        std::string error;
        QVERIFY2(model::writeSyntheticRun(longer, runOptions(4 * kSteps), nullptr, &error),
                 error.c_str());
        const std::optional<FleetSummary> small = summarize(m_run, options);
        QVERIFY(small);
        const std::optional<FleetSummary> large = summarize(longer, options);
        QVERIFY(large);
        QCOMPARE(large->ranks.front().steps, 4 * kSteps);
        QVERIFY(!large->ranks.front().stepNs.exact());
        QVERIFY(small->peakStateBytes > 0);
        QCOMPARE(large->peakStateBytes, small->peakStateBytes);
        // ... and the bucketed median stays within 1/64 of the exact one.
        const std::optional<FleetSummary> whole = summarize(longer);
        QVERIFY(whole);
        const int64_t exact = whole->ranks.front().stepNs.median();
        const int64_t bucketed = large->ranks.front().stepNs.median();
        QVERIFY2(std::abs(bucketed - exact) * 64 <= exact,
                 (std::to_string(bucketed) + " vs " + std::to_string(exact)).c_str());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestFleetSummary)
#include "test_fleet_summary.moc"
