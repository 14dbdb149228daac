#include "views/compare/compared_runs.h"

#include "model/analysis/analysis_window.h"
#include "model/analysis/insight_engine.h"
#include "model/session/session_database.h"
#include "views/panels/site_event_index.h"

#include <unordered_map>

namespace stallscope::views {

namespace {

bool isCancelled(const std::atomic<bool>* cancel) {
    return cancel && cancel->load();
}

// One run's analysis and its connection to the session file, for this thread only. A session
// whose file cannot be read still compares: its sites are then unknown (the report's warning).
struct Analysis {
    std::shared_ptr<model::SessionDatabase> database = std::make_shared<model::SessionDatabase>();
    std::shared_ptr<const model::InsightReport> report;
};

Analysis analyze(const model::Session& session, const std::atomic<bool>* cancel) {
    Analysis analysis;
    std::string ignored; // InsightEngine::analyzeFile's behaviour: the report says it
    analysis.database->open(session, &ignored);
    model::AnalysisOptions options;
    options.cancel = cancel;
    analysis.report = std::make_shared<const model::InsightReport>(
        model::InsightEngine::analyze(session, *analysis.database, options));
    return analysis;
}

// Each compared site's syncs in `run`: the syncs of every site of its report whose key is the
// compared site's (a line that appears twice in a file is one compared site).
std::vector<model::EventSpans> eventsOfSites(const model::SessionComparison& comparison,
                                             const ComparedRun& run, const Analysis& analysis) {
    std::unordered_map<std::string, size_t> rowOfKey;
    for (size_t row = 0; row < comparison.sites.size(); ++row)
        rowOfKey.emplace(comparison.sites[row].key, row);
    SiteEventIndex index;
    index.reset(run.session, analysis.database, run.report);
    std::vector<model::EventSpans> events(comparison.sites.size());
    for (const model::SyncSiteStats& stats : run.report->sites) {
        const auto found = rowOfKey.find(model::siteKey(stats.site, analysis.database.get()));
        if (found == rowOfKey.end())
            continue;
        const model::EventSpans spans = index.eventsFor(stats.site);
        events[found->second].insert(events[found->second].end(), spans.begin(), spans.end());
    }
    return events;
}

} // namespace

std::shared_ptr<const ComparedRuns> compareRuns(ComparedRun before, ComparedRun after,
                                                const std::atomic<bool>* cancel) {
    const Analysis beforeAnalysis = analyze(*before.session, cancel);
    if (isCancelled(cancel))
        return nullptr;
    const Analysis afterAnalysis = analyze(*after.session, cancel);
    if (isCancelled(cancel))
        return nullptr;
    auto runs = std::make_shared<ComparedRuns>();
    before.report = beforeAnalysis.report;
    after.report = afterAnalysis.report;
    runs->comparison = model::compareSessions(
        {before.session.get(), beforeAnalysis.database.get(), before.report.get()},
        {after.session.get(), afterAnalysis.database.get(), after.report.get()});
    // As the comparison counts steps: per step exactly when both windows hold one.
    auto firstStep = [](const ComparedRun& run) {
        const model::SessionStatistics& s = run.report->summary;
        return model::firstStepInWindow(*run.session, s.windowStartNs, s.windowEndNs);
    };
    const std::optional<int64_t> beforeStep = firstStep(before), afterStep = firstStep(after);
    runs->alignedOnSteps = beforeStep && afterStep;
    before.anchorNs = runs->alignedOnSteps ? *beforeStep : before.report->summary.windowStartNs;
    after.anchorNs = runs->alignedOnSteps ? *afterStep : after.report->summary.windowStartNs;
    runs->beforeEvents = eventsOfSites(runs->comparison, before, beforeAnalysis);
    runs->afterEvents = eventsOfSites(runs->comparison, after, afterAnalysis);
    runs->before = std::move(before);
    runs->after = std::move(after);
    return runs;
}

} // namespace stallscope::views
