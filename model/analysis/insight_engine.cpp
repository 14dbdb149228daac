#include "model/analysis/insight_engine.h"

#include "format/session_schema.h"
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
        InsightRule::Straggler,       InsightRule::InLoopSync,    InsightRule::PageableCopy,
        InsightRule::SyncAttribution, InsightRule::HostGap,       InsightRule::GpuBubble,
        InsightRule::LaunchBound,     InsightRule::DefaultStream, InsightRule::DeviceSync};
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

    // The run graph is built on another thread meanwhile (RunGraphBuild). It needs the CUDA
    // events once its steps and streams are done, which takes about as long as reading them.
    RunGraphBuild graphBuild(session, options.cancel);
    graphBuild.provideCudaEvents(database.cudaEvents());
    GpuActivity gpu;
    if (!gpu.build(session, options.cancel) || cancelled())
        return report;
    SyncSites sites;
    if (!sites.build(session, database, gpu, options.thresholds, options.cancel, &report.warning) ||
        cancelled())
        return report;
    KernelLaunchIndex launches;
    launches.build(session);
    HostSamples samples;
    samples.build(session, database, sites.modules());

    const AnalysisWindow window = options.window ? *options.window : defaultWindow(session);
    const int64_t windowStart = window.startNs, windowEnd = window.endNs;
    SimulatedSavings savings;
    if (!savings.build(session, graphBuild.take(), sites, samples, windowStart, windowEnd,
                       options.thresholds, options.cancel) ||
        cancelled())
        return report;
    AnalysisContext context{session, options.thresholds, gpu, sites, launches, savings,
                            samples, options.cancel};
    context.windowStartNs = windowStart;
    context.windowEndNs = windowEnd;
    // A capture range may leave stretches of the window unrecorded (a range opened again and
    // again): shares are of the time that was recorded.
    context.windowNs = std::max<int64_t>(
        windowEnd - windowStart - session.notRecordedNsWithin(windowStart, windowEnd), 1);
    context.savingsWindowNs =
        std::max<int64_t>(context.windowNs - savings.recorderCostInWindowNs(), 1);
    for (size_t d = 0; d < gpu.deviceCount(); ++d) {
        const int64_t busy = window.overlapNs(gpu.busy(static_cast<int32_t>(d)));
        if (busy <= 0)
            continue;
        const int64_t filled = window.overlapNs(gpu.fillingBusy(static_cast<int32_t>(d)));
        context.gpuIdleNs = std::max(context.gpuIdleNs, context.windowNs - filled);
        context.gpuBusyShare = std::max(context.gpuBusyShare, context.shareOf(busy));
    }
    context.language = sites.dominantLanguage();
    SessionCalls sessionCalls;
    context.sessionCalls = &sessionCalls;
    using Rule = void (*)(const AnalysisContext&, std::vector<Insight>&);
    // hostGaps after syncSites and straggler: a sampled line that is a sync site, or the
    // straggler's cause, is evidence of that finding.
    static constexpr Rule kRules[] = {insight_rules::syncSites, insight_rules::defaultStream,
                                      insight_rules::launchBound, insight_rules::straggler,
                                      insight_rules::hostGaps};
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
    for (Insight& insight : report.insights) {
        if (!insight.events)
            insight.events = std::make_shared<const EventSpans>();
        if (window.steps > 0)
            insight.stepSavingsNs = insight.savingsNs / window.steps;
    }

    report.assumptions = insight_rules::assumptionsText(context);
    report.summary = SessionStatisticsBuilder::compute(session, gpu, sites, window);
    report.summary.gpuPowerCapped = savings.powerCap().capped;
    report.summary.launchesInferred = savings.launchesInferred();
    report.summary.recorderRestartOverheadNs = savings.recorderRestartNs();
    report.summary.recorderLaunchOverheadNs = savings.recorderLaunchNs();
    report.summary.recorderCostInWindowNs = savings.recorderCostInWindowNs();
    report.summary.gpuDeepQueueDelayNs = savings.deepQueueDelayNs();
    report.sites = sites.stats();
    report.runGraph = savings.sharedGraph();
    // A site's calls: its finding's, in the window (below), else those of the whole session.
    for (size_t s = 0; s < report.sites.size(); ++s) {
        SyncSiteStats& site = report.sites[s];
        const bool counted = s < sessionCalls.calls.size();
        site.calls = counted ? sessionCalls.calls[s] : site.count;
        for (size_t r = 0; r < site.ranks.size(); ++r)
            site.ranks[r].calls = !counted ? site.ranks[r].count
                                  : r < sessionCalls.rankCalls[s].size()
                                      ? sessionCalls.rankCalls[s][r]
                                      : 0;
        site.savingsNs = savings.savingOf(static_cast<int32_t>(s));
        for (const EventRef& ref : sites.syncsOf(static_cast<int32_t>(s)))
            if (const SyncColumns& syncs = session.hostLanes[ref.lane].syncs;
                context.inWindow(syncs.start[ref.index]))
                site.windowBlockedNs =
                    format::addSaturated(site.windowBlockedNs, syncs.duration(ref.index));
        site.share = std::min(1.0, static_cast<double>(site.windowBlockedNs) /
                                       static_cast<double>(context.savingsWindowNs));
    }
    for (const Insight& insight : report.insights)
        if (insight.siteIndex >= 0) {
            report.sites[insight.siteIndex].calls = insight.count;
            if (insight.ranks.size() == report.sites[insight.siteIndex].ranks.size())
                report.sites[insight.siteIndex].ranks = insight.ranks;
            report.sites[insight.siteIndex].savingsNs = insight.savingsNs;
        }
    report.analysisSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

InsightReport InsightEngine::analyzeFile(const Session& session, const AnalysisOptions& options) {
    SessionDatabase database;
    std::string error;
    const bool opened = database.open(session, &error);
    InsightReport report = analyze(session, database, options);
    if (!opened && report.warning.empty())
        report.warning = "call stacks unavailable (" + error + "): sync sites are unknown";
    return report;
}

} // namespace stallscope::model
