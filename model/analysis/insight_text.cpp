#include "model/analysis/insight_text.h"

#include "format/terminal_text.h"
#include "model/session/session_summary.h"

namespace stallscope::model {

namespace {

std::string pad(std::string text, size_t width) {
    // Pads by code points, so "µs" lines up like "ms".
    size_t points = 0;
    for (unsigned char c : text)
        points += (c & 0xC0) != 0x80;
    if (points < width)
        text.append(width - points, ' ');
    return text;
}

} // namespace

std::string windowDescription(const SessionStatistics& summary) {
    return summary.windowLabel + " " + formatDuration(summary.windowStartNs - summary.startNs) +
           " – " + formatDuration(summary.windowEndNs - summary.startNs) + " (" +
           formatDuration(summary.windowNs) + ")";
}

std::string savingText(const Insight& insight, const SessionStatistics& summary) {
    if (summary.steps <= 0)
        return formatDuration(insight.savingsNs);
    return formatDuration(insight.stepSavingsNs) + " a step of " + formatDuration(summary.stepNs) +
           " (" + formatShare(insight.share) + "; " + formatDuration(insight.savingsNs) + " over " +
           formatCount(summary.steps) + (summary.steps == 1 ? " step)" : " steps)");
}

std::string hostBlockedWhose(const SessionStatistics& summary) {
    if (summary.hostBlockingProcesses < 2)
        return {};
    return summary.hostBlockingRanks ? "a rank" : "a process";
}

std::string hostBlockedText(const SessionStatistics& summary) {
    const std::string whose = hostBlockedWhose(summary);
    return formatShare(summary.hostBlockedShare) + (whose.empty() ? "" : " " + whose);
}

std::string insightReportToText(const InsightReport& report) {
    // Every value from the file on one line: a name cannot print a "Fix:" line of its own.
    const auto one = [](const std::string& text) {
        return format::shownLine(text, format::kShownNameBytes);
    };
    const SessionStatistics& s = report.summary;
    std::string out;
    out += "Wall time " + formatDuration(s.wallNs) + " · GPU busy " + formatShare(s.gpuBusyShare) +
           " · host blocked " + hostBlockedText(s) + " in " + formatCount(s.hostSyncCount) +
           (s.hostSyncCount == 1 ? " sync\n" : " syncs\n");
    out += "Window: " + windowDescription(s) + "\n"; // the shares above are over it
    if (!s.captured.empty())
        out += "Recorded: " + one(s.captured) + "\n";
    if (s.steps > 0 && (s.warmupNs > 0 || s.tailNs > 0))
        out += "Outside the loop: start-up " + formatDuration(s.startupNs - s.warmupNs) +
               ", warm-up " + formatDuration(s.warmupNs) + ", tail " + formatDuration(s.tailNs) +
               " (not counted in shares)\n";
    else if (s.startupNs > 0)
        out += "Start-up: " + formatDuration(s.startupNs) +
               " before the window (not counted in shares)\n";
    for (const DeviceBusy& device : s.devices)
        out += "  " + one(device.label) + ": busy " + formatDuration(device.busyNs) + " (" +
               formatShare(device.busyShare) + ")\n";
    if (!report.warning.empty())
        out += "Warning: " + one(report.warning) + "\n";
    if (!report.assumptions.empty())
        out += "Savings assume: " + one(report.assumptions) + "\n";

    if (!s.topSites.empty()) {
        out += "\nTop sync sites (blocked over the run, share of the window, calls, site):\n";
        for (int32_t index : s.topSites) {
            const SyncSiteStats& site = report.sites[index];
            out += "  " + pad(formatDuration(site.blockedNs), 10) + pad(siteShareText(site), 9) +
                   pad("× " + formatCount(site.calls), 10) + one(site.site.label()) + "\n";
        }
    }
    if (!s.topKernels.empty()) {
        out += "\nTop kernels (total, share of kernel time, count, name):\n";
        for (const KernelStats& kernel : s.topKernels)
            out += "  " + pad(formatDuration(kernel.totalNs), 10) +
                   pad(formatShare(kernel.shareOfGpu), 9) +
                   pad("× " + formatCount(kernel.count), 10) +
                   one(readableKernelName(kernel.name)) + "\n";
    }

    out += "\n" + std::to_string(report.insights.size()) +
           (report.insights.size() == 1 ? " insight" : " insights") + ", largest savings first:\n";
    int number = 0;
    for (const Insight& insight : report.insights) {
        out += "\n" + std::to_string(++number) + ". [" +
               std::string(severityName(insight.severity)) + "] " +
               std::string(ruleId(insight.rule)) + ": " + one(insight.title) + "\n";
        out += "   " + one(insight.evidence) + "\n";
        if (insight.rules.size() > 1) {
            out += "   Evidence:";
            for (size_t r = 0; r < insight.rules.size(); ++r)
                out += (r == 0 ? " " : ", ") + std::string(ruleId(insight.rules[r]));
            out += "\n";
        }
        if (insight.site.hasLocation())
            out += "   Where: " + one(insight.site.file) + ":" + std::to_string(insight.site.line) +
                   (insight.site.function.empty() ? "" : " in " + one(insight.site.function)) +
                   (insight.site.library.empty()
                        ? std::string()
                        : ", through " + one(insight.site.library.file) + ":" +
                              std::to_string(insight.site.library.line) + " in " +
                              one(insight.site.library.function)) +
                   "\n";
        out += "   Fix: " + one(fixText(insight)) + "\n";
        out += std::string(insight.simulated ? "   Simulated saving: " : "   Estimated savings: ") +
               savingText(insight, s) + " (" + formatCount(insight.eventCount) +
               (insight.eventCount == 1 ? " event)\n" : " events)\n");
    }
    if (report.cancelled)
        out += "\n(analysis cancelled: the list is incomplete)\n";
    return out;
}

} // namespace stallscope::model
