#include "model/compare/compare_output.h"

#include "format/terminal_text.h"
#include "model/analysis/insight_json.h"
#include "model/session/session_summary.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>

namespace stallscope::model {

namespace {

constexpr size_t kTextKernels = 10;

std::string duration(double ns) {
    return formatDuration(static_cast<int64_t>(std::llround(ns)));
}

std::string padded(std::string text, size_t width) {
    if (text.size() < width)
        text.append(width - text.size(), ' ');
    return text + ' ';
}

QString qtext(const std::string& value) {
    return QString::fromUtf8(value.data(), static_cast<qsizetype>(value.size()));
}

QJsonObject totalsObject(const RunTotals& totals) {
    return {{"path", qtext(totals.path)},
            {"window", qtext(totals.windowLabel)},
            {"window_ns", static_cast<qint64>(totals.windowNs)},
            {"units", totals.units},
            {"step_ns", totals.stepNs},
            {"gpu_busy_ns", totals.gpuBusyNs},
            {"host_blocked_ns", totals.hostBlockedNs},
            {"host_syncs", totals.hostSyncs}};
}

QJsonObject numbersObject(const SiteNumbers& numbers) {
    QJsonObject object{{"present", numbers.present},
                       {"calls", numbers.calls},
                       {"blocked_ns", numbers.blockedNs},
                       {"gpu_idle_ns", numbers.bubbleNs}};
    if (numbers.savingsNs >= 0)
        object.insert("simulated_saving_ns", numbers.savingsNs);
    if (numbers.severity)
        object.insert("severity", qtext(std::string(severityName(*numbers.severity))));
    return object;
}

} // namespace

std::string formatPerUnit(double value) {
    char text[32];
    std::snprintf(text, sizeof text, value == std::floor(value) ? "%.0f" : "%.2f", value);
    return text;
}

std::string formatChange(double before, double after) {
    if (before <= 0)
        return after > 0 ? "new" : "";
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", 100.0 * (after - before) / before);
    return text;
}

std::string comparisonToText(const SessionComparison& c) {
    const std::string per = "per " + c.unit;
    std::string out = "Compared " + per + ": before " + c.before.path + " (" +
                      formatPerUnit(c.before.units) + " " + c.unit + (c.unit == "step" ? "s" : "") +
                      ", " + c.before.windowLabel + "), after " + c.after.path + " (" +
                      formatPerUnit(c.after.units) + " " + c.unit + (c.unit == "step" ? "s" : "") +
                      ", " + c.after.windowLabel + ")\n\n";
    out += padded("", 20) + padded("before", 12) + padded("after", 12) + "change\n";
    auto row = [&](const char* label, double before, double after, bool isTime) {
        out += padded(label, 20) + padded(isTime ? duration(before) : formatPerUnit(before), 12) +
               padded(isTime ? duration(after) : formatPerUnit(after), 12) +
               formatChange(before, after) + "\n";
    };
    row(c.unit == "step" ? "Step time" : "Wall time", c.before.stepNs, c.after.stepNs, true);
    row("GPU busy", c.before.gpuBusyNs, c.after.gpuBusyNs, true);
    row("Host blocked", c.before.hostBlockedNs, c.after.hostBlockedNs, true);
    row("Host syncs", c.before.hostSyncs, c.after.hostSyncs, false);

    out += "\nSync sites (status, blocked " + per + " before -> after, calls, severity, site):\n";
    if (c.sites.empty())
        out += "  none in either run\n";
    for (const SiteComparison& site : c.sites) {
        std::string status(siteStatusName(site.status));
        for (char& ch : status)
            ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        const std::optional<Severity> severity = site.severity();
        out += "  " + padded(status, 7) + padded(duration(site.before.blockedNs), 9) + "-> " +
               padded(duration(site.after.blockedNs), 9) +
               padded("x" + formatPerUnit(site.before.calls) + " -> " +
                          formatPerUnit(site.after.calls),
                      14) +
               padded(severity ? std::string(severityName(*severity)) : "-", 6) +
               format::shownLine(site.site.label(), format::kShownNameBytes) + "\n";
        if (site.status == SiteStatus::Fixed && site.before.savingsNs >= 0)
            out +=
                "          predicted saving " + duration(site.before.savingsNs) + " " + per + "\n";
    }
    if (c.fixedSites > 0) {
        out += "\nPredicted against achieved (" + std::to_string(c.fixedSites) + " fixed site" +
               (c.fixedSites == 1 ? "" : "s") + "): predicted " + duration(c.predictedSavingNs) +
               " " + per +
               (c.achievedSavingNs >= 0
                    ? ", achieved " + duration(c.achievedSavingNs) + " " + per
                    // A slower after run is no achievement (issue 42: "achieved −3.802 s").
                    : ", achieved nothing: the after run is " + duration(-c.achievedSavingNs) +
                          " " + per + " slower");
        if (c.achievedSavingNs > 0) {
            char ratio[32];
            std::snprintf(ratio, sizeof ratio, "%.2f", c.predictedSavingNs / c.achievedSavingNs);
            out += " (predicted / achieved " + std::string(ratio) + ")";
        }
        out += "\n";
    }
    out += "\nKernels (time " + per + " before -> after, count):\n";
    for (size_t i = 0; i < c.kernels.size() && i < kTextKernels; ++i) {
        const KernelComparison& k = c.kernels[i];
        out +=
            "  " + padded(duration(k.beforeNs), 9) + "-> " + padded(duration(k.afterNs), 9) +
            padded("x" + formatPerUnit(k.beforeCount) + " -> " + formatPerUnit(k.afterCount), 16) +
            format::shownLine(k.name, format::kShownNameBytes) + "\n";
    }
    if (c.kernels.size() > kTextKernels)
        out += "  ... " + std::to_string(c.kernels.size() - kTextKernels) + " more (--json)\n";
    return out;
}

QByteArray comparisonToJson(const SessionComparison& c) {
    QJsonArray sites;
    for (const SiteComparison& site : c.sites) {
        QJsonObject object{{"key", qtext(site.key)},
                           {"site", sourceSiteToJson(site.site)},
                           {"status", qtext(std::string(siteStatusName(site.status)))},
                           {"before", numbersObject(site.before)},
                           {"after", numbersObject(site.after)}};
        if (const std::optional<Severity> severity = site.severity())
            object.insert("severity", qtext(std::string(severityName(*severity))));
        sites.append(object);
    }
    QJsonArray kernels;
    for (const KernelComparison& k : c.kernels)
        kernels.append(QJsonObject{{"name", qtext(k.name)},
                                   {"before_count", k.beforeCount},
                                   {"after_count", k.afterCount},
                                   {"before_ns", k.beforeNs},
                                   {"after_ns", k.afterNs}});
    const QJsonObject root{{"format", "stallscope-compare"},
                           {"version", 1},
                           {"unit", qtext(c.unit)},
                           {"before", totalsObject(c.before)},
                           {"after", totalsObject(c.after)},
                           {"sites", sites},
                           {"kernels", kernels},
                           {"fixed_sites", c.fixedSites},
                           {"predicted_saving_ns", c.predictedSavingNs},
                           {"achieved_saving_ns", c.achievedSavingNs}};
    QByteArray json = QJsonDocument(root).toJson(QJsonDocument::Indented);
    if (!json.endsWith('\n'))
        json += '\n';
    return json;
}

} // namespace stallscope::model
