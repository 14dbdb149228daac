#include "model/analysis/insight_engine.h"

#include "model/analysis/gpu_activity.h"
#include "model/analysis/insight_rules.h"
#include "model/analysis/kernel_launch_index.h"
#include "model/analysis/session_statistics.h"
#include "model/analysis/sync_sites.h"

#include <algorithm>
#include <chrono>
#include <iterator>

namespace stallscope::model {

namespace {

// Among equal savings, the more specific (more actionable) rule comes first.
int rulePriority(InsightRule rule) {
    static constexpr InsightRule kMostSpecificFirst[] = {
        InsightRule::InLoopSync, InsightRule::PageableCopy, InsightRule::SyncAttribution,
        InsightRule::GpuBubble,  InsightRule::LaunchBound,  InsightRule::DefaultStream,
        InsightRule::DeviceSync};
    static_assert(std::size(kMostSpecificFirst) == kInsightRuleCount);
    return static_cast<int>(
        std::find(std::begin(kMostSpecificFirst), std::end(kMostSpecificFirst), rule) -
        std::begin(kMostSpecificFirst));
}

} // namespace

InsightReport InsightEngine::analyze(const Session& session, const SessionDatabase& database,
                                     const AnalysisOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    InsightReport report;
    auto cancelled = [&] {
        if (options.cancel && options.cancel->load())
            report.cancelled = true;
        return report.cancelled;
    };

    GpuActivity gpu;
    if (!gpu.build(session, options.cancel) || cancelled())
        return report;
    SyncSites sites;
    if (!sites.build(session, database, gpu, options.thresholds, options.cancel, &report.warning) ||
        cancelled())
        return report;
    KernelLaunchIndex launches;
    launches.build(session);

    AnalysisContext context{session,
                            options.thresholds,
                            gpu,
                            sites,
                            launches,
                            options.cancel,
                            std::max<int64_t>(session.durationNs(), 1),
                            sites.dominantLanguage()};
    using Rule = void (*)(const AnalysisContext&, std::vector<Insight>&);
    static constexpr Rule kRules[] = {
        insight_rules::syncAttribution, insight_rules::inLoopSync,    insight_rules::pageableCopy,
        insight_rules::deviceSync,      insight_rules::defaultStream, insight_rules::gpuBubble,
        insight_rules::launchBound,
    };
    for (Rule rule : kRules) {
        rule(context, report.insights);
        if (cancelled()) {
            report.insights.clear();
            return report;
        }
    }
    std::stable_sort(report.insights.begin(), report.insights.end(),
                     [](const Insight& a, const Insight& b) {
                         if (a.savingsNs != b.savingsNs)
                             return a.savingsNs > b.savingsNs;
                         if (a.rule != b.rule)
                             return rulePriority(a.rule) < rulePriority(b.rule);
                         if (a.siteIndex != b.siteIndex)
                             return a.siteIndex < b.siteIndex;
                         return a.site.function < b.site.function;
                     });
    for (Insight& insight : report.insights)
        if (!insight.events)
            insight.events = std::make_shared<const EventSpans>();

    report.summary = SessionStatisticsBuilder::compute(
        session, gpu, sites, options.window ? *options.window : activeWindow(session));
    report.sites = sites.stats();
    report.analysisSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

InsightReport InsightEngine::analyzeFile(const Session& session, const AnalysisOptions& options) {
    SessionDatabase database;
    std::string error;
    const bool opened = database.open(session.path, &error);
    InsightReport report = analyze(session, database, options);
    if (!opened && report.warning.empty())
        report.warning = "call stacks unavailable (" + error + "): sync sites are unknown";
    return report;
}

} // namespace stallscope::model
