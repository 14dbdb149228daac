#include "model/analysis/insight_json.h"

#include "model/analysis/sync_operations.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace stallscope::model {

namespace {

QString text(const std::string& value) {
    return QString::fromStdString(value);
}
QString text(std::string_view value) {
    return QString::fromUtf8(value.data(), static_cast<qsizetype>(value.size()));
}
// JSON numbers are doubles: nanosecond times stay exact up to 2^53 ns (104 days).
QJsonValue integer(int64_t value) {
    return QJsonValue(static_cast<qint64>(value));
}

QJsonObject siteStatsFields(const SyncSiteStats& stats);

// Per-rank numbers of a site or finding (sessions of several ranks).
QJsonArray ranksArray(const std::vector<RankNumbers>& ranks) {
    QJsonArray array;
    for (const RankNumbers& rank : ranks)
        array.append(QJsonObject{{"rank", integer(rank.rank)},
                                 {"label", text(rank.label)},
                                 {"count", integer(rank.count)},
                                 {"calls", integer(rank.calls)},
                                 {"blocked_ns", integer(rank.blockedNs)}});
    return array;
}

QJsonObject stragglerObject(const StragglerNumbers& s) {
    QJsonArray waits;
    for (const StragglerNumbers::Wait& wait : s.waits)
        waits.append(QJsonObject{
            {"label", text(wait.label)}, {"wait_ns", integer(wait.waitNs)}, {"share", wait.share}});
    return {{"rank", text(s.label)},
            {"collectives", integer(s.collectives)},
            {"matched_collectives", integer(s.matchedCollectives)},
            {"last_collectives", integer(s.lastCollectives)},
            {"mean_lateness_ns", integer(s.meanLatenessNs)},
            {"period_ns", integer(s.periodNs)},
            {"wait_ns", integer(s.waitNs)},
            {"wait_share", s.waitShare},
            {"cause", text(s.cause)},
            {"waits", waits}};
}

QJsonObject siteStatsObject(const SyncSiteStats& stats) {
    QJsonObject object = siteStatsFields(stats);
    if (!stats.ranks.empty())
        object.insert("ranks", ranksArray(stats.ranks));
    if (!stats.joinedLines.empty()) {
        QJsonArray lines;
        for (const SyncSiteStats::JoinedLine& line : stats.joinedLines)
            lines.append(QJsonObject{{"line", integer(line.line)},
                                     {"count", integer(line.count)},
                                     {"blocked_ns", integer(line.blockedNs)}});
        object.insert("joined_lines", lines);
    }
    if (stats.operation)
        object.insert("operation", text(stats.operation->id));
    if (stats.backwardSyncs > 0)
        object.insert("backward_syncs", integer(stats.backwardSyncs));
    return object;
}

QJsonObject siteStatsFields(const SyncSiteStats& stats) {
    return {{"site", sourceSiteToJson(stats.site)},
            {"count", integer(stats.count)},
            {"calls", integer(stats.calls)},
            {"savings_ns", integer(stats.savingsNs)},
            {"blocked_ns", integer(stats.blockedNs)},
            {"window_blocked_ns", integer(stats.windowBlockedNs)},
            {"median_blocked_ns", integer(stats.medianBlockedNs)},
            {"bubble_ns", integer(stats.bubbleNs)},
            {"share", stats.share}};
}

QJsonObject summaryObject(const InsightReport& report) {
    const SessionStatistics& s = report.summary;
    QJsonArray devices;
    for (const DeviceBusy& device : s.devices)
        devices.append(QJsonObject{{"device", text(device.label)},
                                   {"busy_ns", integer(device.busyNs)},
                                   {"busy_share", device.busyShare}});
    QJsonArray sites;
    for (int32_t site : s.topSites)
        sites.append(siteStatsObject(report.sites[site]));
    QJsonArray kernels;
    for (const KernelStats& kernel : s.topKernels)
        kernels.append(QJsonObject{{"name", text(kernel.name)},
                                   {"count", integer(kernel.count)},
                                   {"total_ns", integer(kernel.totalNs)},
                                   {"max_ns", integer(kernel.maxNs)},
                                   {"share_of_gpu", kernel.shareOfGpu}});
    return {{"start_ns", integer(s.startNs)},
            {"end_ns", integer(s.endNs)},
            {"wall_ns", integer(s.wallNs)},
            {"event_count", integer(s.eventCount)},
            {"window", QJsonObject{{"start_ns", integer(s.windowStartNs)},
                                   {"end_ns", integer(s.windowEndNs)},
                                   {"ns", integer(s.windowNs)},
                                   {"label", text(s.windowLabel)}}},
            {"recorded", text(s.captured)},
            {"startup_ns", integer(s.startupNs)},
            {"loop", QJsonObject{{"steps", integer(s.steps)},
                                 {"step_ns", integer(s.stepNs)},
                                 {"warmup_ns", integer(s.warmupNs)},
                                 {"tail_ns", integer(s.tailNs)}}},
            {"gpu_busy_ns", integer(s.gpuBusyNs)},
            {"gpu_busy_share", s.gpuBusyShare},
            {"gpu_power_capped", s.gpuPowerCapped},
            {"launches_inferred", s.launchesInferred},
            {"recorder_overhead", QJsonObject{{"restart_ns", integer(s.recorderRestartOverheadNs)},
                                              {"launch_ns", integer(s.recorderLaunchOverheadNs)},
                                              {"window_ns", integer(s.recorderCostInWindowNs)}}},
            {"gpu_deep_queue_delay_ns", integer(s.gpuDeepQueueDelayNs)},
            {"devices", devices},
            {"host_sync_count", integer(s.hostSyncCount)},
            {"host_blocked_ns", integer(s.hostBlockedNs)},
            {"host_blocked_share", s.hostBlockedShare},
            {"host_blocking_processes", integer(s.hostBlockingProcesses)},
            {"top_sync_sites", sites},
            {"top_kernels", kernels}};
}

QJsonObject insightFields(const Insight& insight);

QJsonObject insightObject(const Insight& insight) {
    QJsonObject object = insightFields(insight);
    if (!insight.ranks.empty())
        object.insert("ranks", ranksArray(insight.ranks));
    if (insight.straggler)
        object.insert("straggler", stragglerObject(*insight.straggler));
    return object;
}

// The user's line rewritten ({"line": "", ...} deletes it), null where no template fits.
QJsonValue lineRewriteObject(const std::optional<LineRewrite>& rewrite) {
    if (!rewrite)
        return QJsonValue::Null;
    return QJsonObject{{"line", text(rewrite->line)}, {"note", text(rewrite->note)}};
}

QJsonObject insightFields(const Insight& insight) {
    QJsonArray rules;
    for (InsightRule rule : insight.rules)
        rules.append(text(ruleId(rule)));
    return {{"rule", text(ruleId(insight.rule))},
            {"rules", rules},
            {"simulated", insight.simulated},
            {"assumption", text(insight.assumption)},
            {"median_period_ns", integer(insight.medianPeriodNs)},
            {"severity", text(severityName(insight.severity))},
            {"title", text(insight.title)},
            {"evidence", text(insight.evidence)},
            {"site", sourceSiteToJson(insight.site)},
            {"count", integer(insight.count)},
            {"blocked_ns", integer(insight.blockedNs)},
            {"bubble_ns", integer(insight.bubbleNs)},
            {"share", insight.share},
            {"savings_ns", integer(insight.savingsNs)},
            {"step_savings_ns", integer(insight.stepSavingsNs)},
            {"bytes", integer(insight.bytes)},
            {"median_blocked_ns", integer(insight.medianBlockedNs)},
            {"median_launches_between", integer(insight.medianLaunchesBetween)},
            {"kernel_count", integer(insight.kernelCount)},
            {"start_ns", integer(insight.startNs)},
            {"end_ns", integer(insight.endNs)},
            {"operation", text(insight.operation ? insight.operation->id : std::string_view())},
            {"recommendation", text(insight.recommendation)},
            {"line_rewrite", lineRewriteObject(insight.lineRewrite)},
            {"event_count", integer(insight.eventCount)}};
}

} // namespace

QJsonObject sourceSiteToJson(const SourceSite& site) {
    QJsonObject object{{"file", text(site.file)},
                       {"line", integer(site.line)},
                       {"line_is_definition", site.lineIsDefinition},
                       {"function", text(site.function)},
                       {"language", text(languageName(site.language))}};
    if (!site.library.empty())
        object.insert("library", QJsonObject{{"file", text(site.library.file)},
                                             {"line", integer(site.library.line)},
                                             {"function", text(site.library.function)}});
    return object;
}

QJsonObject insightReportToJsonObject(const InsightReport& report) {
    QJsonArray insights;
    for (const Insight& insight : report.insights)
        insights.append(insightObject(insight));
    QJsonArray sites;
    for (const SyncSiteStats& stats : report.sites)
        sites.append(siteStatsObject(stats));
    QJsonObject root{{"format", "stallscope-insights"},
                     {"version", 1},
                     {"summary", summaryObject(report)},
                     {"insights", insights},
                     {"sites", sites}};
    if (!report.warning.empty())
        root.insert("warning", text(report.warning));
    if (!report.assumptions.empty())
        root.insert("assumptions", text(report.assumptions));
    return root;
}

QByteArray insightReportToJson(const InsightReport& report, bool compact) {
    QByteArray json = QJsonDocument(insightReportToJsonObject(report))
                          .toJson(compact ? QJsonDocument::Compact : QJsonDocument::Indented);
    if (!json.endsWith('\n'))
        json += '\n';
    return json;
}

} // namespace stallscope::model
