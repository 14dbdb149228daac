#include "model/fleet/fleet_output.h"

#include "model/analysis/insight.h"
#include "model/analysis/insight_thresholds.h"
#include "model/session/number_format.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <algorithm>
#include <vector>

namespace stallscope::model::fleet {

namespace {

constexpr const char* kDash = "–";

// Display width of UTF-8 text: its code points (the table holds no wide characters).
size_t width(const std::string& text) {
    return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

// Rows of cells as aligned columns: column c left-aligned where align[c] is 'l', else
// right-aligned.
std::string table(const std::vector<std::vector<std::string>>& rows, std::string_view align) {
    std::vector<size_t> widths;
    for (const auto& row : rows)
        for (size_t c = 0; c < row.size(); ++c) {
            widths.resize(std::max(widths.size(), row.size()));
            widths[c] = std::max(widths[c], width(row[c]));
        }
    std::string text;
    for (const auto& row : rows) {
        std::string line;
        for (size_t c = 0; c < row.size(); ++c) {
            const std::string pad(widths[c] - width(row[c]), ' ');
            line += c == 0 ? "" : "  ";
            line += c < align.size() && align[c] == 'l' ? row[c] + pad : pad + row[c];
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        text += line + "\n";
    }
    return text;
}

std::string stepsFrom(const RankSummary& rank) {
    return rank.stepSource == StepSource::SyncPeriod ? "syncs at " + rank.stepSite
                                                     : stepSourceName(rank.stepSource);
}

// "~" before a quantile counted in buckets (within 1.6 %), not kept exactly.
std::string quantileText(const BoundedQuantiles& values, int64_t value) {
    if (values.count() == 0)
        return kDash;
    return (values.exact() ? "" : "~") + formatDuration(value);
}

std::string rankTable(const FleetSummary& summary) {
    std::vector<std::vector<std::string>> rows = {
        {"rank", "steps", "from", "median step", "p90 step", "host blocked", "% of span",
         "GPU busy", "% of span", "collectives", "last at", "median late"}};
    for (const RankSummary& rank : summary.ranks)
        rows.push_back({rank.label, formatCount(rank.steps), stepsFrom(rank),
                        quantileText(rank.stepNs, rank.stepNs.median()),
                        quantileText(rank.stepNs, rank.stepNs.p90()),
                        formatDuration(rank.blockedNs), formatShare(rank.blockedShare()),
                        formatDuration(rank.gpuBusyNs), formatShare(rank.gpuBusyShare()),
                        formatCount(rank.collectives), formatCount(rank.lastAt),
                        quantileText(rank.latenessNs, rank.latenessNs.median())});
    return table(rows, "lrl");
}

std::string collectivesText(const FleetSummary& summary) {
    if (summary.collectiveRanks < 2)
        return "Collectives: " +
               std::string(summary.collectiveRanks == 0 ? "none (no NCCL kernels)"
                                                        : "on one rank only: nothing to match") +
               ".\n";
    std::string text = "Collectives: " + formatCount(summary.matchedCollectives) +
                       " matched across " + formatCount(summary.collectiveRanks) + " ranks, " +
                       formatCount(summary.contendedCollectives) +
                       " reached apart (the last rank " + formatDuration(summary.contendedNs) +
                       " or more after the next-latest).\n";
    if (summary.mostOftenLast < 0)
        return text + "No rank arrived last at any of them.\n";
    const RankSummary& last = summary.ranks[size_t(summary.mostOftenLast)];
    const InsightThresholds thresholds;
    const auto& rule = thresholds.straggler;
    text += summary.straggler
                ? "Straggler: " + last.label + " (the straggler rule's thresholds: last at " +
                      formatShare(rule.minLastShare) + " or more of them, " +
                      formatDuration(rule.minLatenessNs) + " or more late on average).\n"
                : "No straggler by the straggler rule's thresholds (last at " +
                      formatShare(rule.minLastShare) + " or more of them, " +
                      formatDuration(rule.minLatenessNs) + " or more late on average).\n";
    return text + "Most often last: " + last.label + ", at " + formatCount(last.lastAt) + " of " +
           formatCount(summary.contendedCollectives) + " (" +
           formatShare(static_cast<double>(last.lastAt) /
                       static_cast<double>(summary.contendedCollectives)) +
           "), median " + quantileText(last.latenessNs, last.latenessNs.median()) + " late.\n";
}

std::string sitesText(const FleetSummary& summary) {
    if (summary.sites.empty())
        return "Top sync sites: none (no host-blocking syncs).\n";
    std::vector<std::vector<std::string>> rows = {{"#", "site", "blocked", "syncs", "ranks"}};
    for (size_t i = 0; i < summary.sites.size(); ++i) {
        const FleetSite& site = summary.sites[i];
        rows.push_back(
            {std::to_string(i + 1), site.label(),
             (site.exact ? "" : "≥ ") + formatDuration(site.blockedNs), formatCount(site.syncs),
             formatCount(site.ranks) + " of " + formatCount(int64_t(summary.ranks.size()))});
    }
    std::string text = "Top sync sites over the fleet (host-blocked time summed over ranks):\n" +
                       table(rows, "rl");
    if (!summary.sitesExact)
        text +=
            "(Each rank passed on its largest sites only: a site marked ≥ lacks its time on the "
            "ranks that did not list it, and the order may differ from the exact one.)\n";
    return text;
}

QJsonValue quantileJson(const BoundedQuantiles& values, int64_t value) {
    return values.count() == 0 ? QJsonValue() : QJsonValue(static_cast<qint64>(value));
}

QString qstring(const std::string& text) {
    return QString::fromStdString(text);
}

} // namespace

std::string fleetSummaryToText(const FleetSummary& summary) {
    std::string text = "Fleet summary of " + summary.path + ": " +
                       formatCount(int64_t(summary.ranks.size())) +
                       (summary.ranks.size() == 1 ? " rank" : " ranks") + "\n\n";
    text += "Per rank (shares of each rank's GPU span, its first to last GPU work; \"~\": counted "
            "in buckets, within 1.6 %):\n";
    text += rankTable(summary) + "\n" + collectivesText(summary) + "\n" + sitesText(summary);
    if (!summary.notes.empty()) {
        text += "\nNotes:\n";
        for (const std::string& note : summary.notes)
            text += "  " + note + "\n";
    }
    return text;
}

QByteArray fleetSummaryToJson(const FleetSummary& summary) {
    QJsonArray ranks;
    for (const RankSummary& rank : summary.ranks) {
        QJsonObject steps{{"count", static_cast<qint64>(rank.steps)},
                          {"source", stepSourceName(rank.stepSource)},
                          {"median_ns", quantileJson(rank.stepNs, rank.stepNs.median())},
                          {"p90_ns", quantileJson(rank.stepNs, rank.stepNs.p90())},
                          {"exact", rank.stepNs.exact()}};
        if (rank.stepSource == StepSource::SyncPeriod)
            steps["site"] = qstring(rank.stepSite);
        ranks.append(QJsonObject{
            {"label", qstring(rank.label)},
            {"rank", rank.rank >= 0 ? QJsonValue(static_cast<qint64>(rank.rank)) : QJsonValue()},
            {"file", qstring(rank.file)},
            {"host", qstring(rank.host)},
            {"steps", steps},
            {"blocking_syncs", static_cast<qint64>(rank.blockingSyncs)},
            {"blocked_ns", static_cast<qint64>(rank.blockedNs)},
            {"blocked_share", rank.blockedShare()},
            {"gpu_start_ns", static_cast<qint64>(rank.gpuStartNs)},
            {"gpu_end_ns", static_cast<qint64>(rank.gpuEndNs)},
            {"gpu_busy_ns", static_cast<qint64>(rank.gpuBusyNs)},
            {"gpu_busy_share", rank.gpuBusyShare()},
            {"devices", static_cast<qint64>(rank.devices)},
            {"collectives", static_cast<qint64>(rank.collectives)},
            {"last_at", static_cast<qint64>(rank.lastAt)},
            {"lateness_total_ns", static_cast<qint64>(rank.latenessTotalNs)},
            {"lateness_median_ns", quantileJson(rank.latenessNs, rank.latenessNs.median())},
        });
    }
    QJsonArray sites;
    for (const FleetSite& site : summary.sites)
        sites.append(QJsonObject{{"file", qstring(site.file)},
                                 {"line", static_cast<qint64>(site.line)},
                                 {"blocked_ns", static_cast<qint64>(site.blockedNs)},
                                 {"syncs", static_cast<qint64>(site.syncs)},
                                 {"ranks", static_cast<qint64>(site.ranks)},
                                 {"exact", site.exact}});
    QJsonArray notes;
    for (const std::string& note : summary.notes)
        notes.append(qstring(note));
    const QJsonObject collectives{
        {"ranks", static_cast<qint64>(summary.collectiveRanks)},
        {"matched", static_cast<qint64>(summary.matchedCollectives)},
        {"contended", static_cast<qint64>(summary.contendedCollectives)},
        {"contended_ns", static_cast<qint64>(summary.contendedNs)},
        {"straggler", summary.straggler},
        {"most_often_last",
         summary.mostOftenLast >= 0
             ? QJsonValue(qstring(summary.ranks[size_t(summary.mostOftenLast)].label))
             : QJsonValue()}};
    const QJsonObject root{{"format", "stallscope-fleet-summary"}, {"version", 1},
                           {"path", qstring(summary.path)},        {"ranks", ranks},
                           {"collectives", collectives},           {"sites", sites},
                           {"sites_exact", summary.sitesExact},    {"notes", notes}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace stallscope::model::fleet
