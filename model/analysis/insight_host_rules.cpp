// The host-gap rule (docs/insights.md, "host-gap"): the GPU idle while the host runs a line that
// no CUDA call covers, named by the Python sampler's samples (HostSamples). One finding per line:
// a line that is a sync site with a finding, or the straggler's sampled cause, gets this as
// evidence there.
#include "model/analysis/insight_recommendations.h"
#include "model/analysis/insight_rules.h"
#include "model/session/session_summary.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace stallscope::model {

namespace insight_rules {

std::string sampledLinesText(const AnalysisContext& context,
                             const std::vector<std::pair<int32_t, int64_t>>& lines,
                             int64_t totalSamples) {
    std::string text;
    for (const auto& [line, samples] : lines)
        text += (text.empty() ? "" : "; ") + context.samples.lines()[line].label() + " (" +
                formatShare(static_cast<double>(samples) /
                            static_cast<double>(std::max<int64_t>(totalSamples, 1))) +
                " of " + formatCount(totalSamples) + " samples)";
    return text;
}

namespace {

// What the idle gaps of one device put on each sampled line.
struct LineIdle {
    double idleNs = 0; // the part of the gaps its samples stand for
    int64_t samples = 0;
};

struct DeviceTally {
    std::map<int32_t, LineIdle> lines;
    int64_t idleNs = 0, gaps = 0, samples = 0; // gaps of >= minIdleNs, samples in them
    int64_t moduleLoadGaps = 0;                // gaps left out: they end in a kernel's first run
};

// When each kernel of the device first ran, sorted. A gap that ends there is CUDA loading the
// kernel's module on its first launch (lazy loading: milliseconds, once per kernel, with or
// without a recorder), not the line's host work.
std::vector<int64_t> firstRuns(const Session& session, int32_t device) {
    std::unordered_map<uint32_t, int64_t> first;
    for (const StreamLane& lane : session.streamLanes) {
        if (lane.streamIndex < 0 || session.streams[lane.streamIndex].deviceIndex != device)
            continue;
        for (size_t k = 0; k < lane.kernels.size(); ++k) {
            const auto [at, added] =
                first.try_emplace(lane.kernels.nameId[k], lane.kernels.start[k]);
            if (!added)
                at->second = std::min(at->second, lane.kernels.start[k]);
        }
    }
    std::vector<int64_t> starts;
    starts.reserve(first.size());
    for (const auto& [name, start] : first)
        starts.push_back(start);
    std::sort(starts.begin(), starts.end());
    return starts;
}

// The lanes that launch work: the threads of the device's process with API calls.
std::vector<int32_t> launchingLanes(const Session& session, int32_t device) {
    std::vector<int32_t> lanes;
    const int32_t process = session.devices[device].processIndex;
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const HostLane& lane = session.hostLanes[l];
        if (lane.threadIndex >= 0 && session.threads[lane.threadIndex].processIndex == process &&
            !lane.apiCalls.empty() && !lane.samples.empty())
            lanes.push_back(static_cast<int32_t>(l));
    }
    return lanes;
}

DeviceTally tallyDevice(const AnalysisContext& context, int32_t device) {
    DeviceTally tally;
    const std::vector<int32_t> lanes = launchingLanes(context.session, device);
    if (lanes.empty())
        return tally;
    const BusyIntervals& busy = context.gpu.busy(device);
    const int64_t minIdle = context.thresholds.sampledLines.minIdleNs;
    auto addGap = [&](int64_t from, int64_t to) {
        from = std::max(from, context.windowStartNs);
        to = std::min(to, context.windowEndNs);
        if (to - from < std::max<int64_t>(minIdle, 1))
            return;
        ++tally.gaps;
        tally.idleNs += to - from;
        // Each sampled lane shares the gap equally; its samples share its part.
        std::vector<std::pair<std::map<int32_t, int64_t>, int64_t>> perLane;
        for (const int32_t lane : lanes) {
            std::map<int32_t, int64_t> lines;
            if (const int64_t n = context.samples.tally(lane, from, to, lines); n > 0)
                perLane.emplace_back(std::move(lines), n);
        }
        for (const auto& [lines, n] : perLane) {
            const double each = static_cast<double>(to - from) /
                                static_cast<double>(n * static_cast<int64_t>(perLane.size()));
            tally.samples += n;
            for (const auto& [line, count] : lines) {
                LineIdle& idle = tally.lines[line];
                idle.idleNs += each * static_cast<double>(count);
                idle.samples += count;
            }
        }
    };
    const std::vector<int64_t> firsts = firstRuns(context.session, device);
    for (size_t i = 0; i + 1 < busy.size(); ++i) {
        if (busy.end[i] >= context.windowEndNs || busy.start[i + 1] <= context.windowStartNs)
            continue;
        if (std::binary_search(firsts.begin(), firsts.end(), busy.start[i + 1])) {
            tally.moduleLoadGaps += busy.start[i + 1] - busy.end[i] >= minIdle;
            continue;
        }
        addGap(busy.end[i], busy.start[i + 1]);
    }
    return tally;
}

bool sameSite(const SourceSite& a, const SourceSite& b) {
    return a.file == b.file && a.line == b.line && a.function == b.function &&
           a.library == b.library;
}

} // namespace

void hostGaps(const AnalysisContext& context, std::vector<Insight>& out) {
    if (context.samples.empty())
        return;
    const auto& t = context.thresholds.sampledLines;
    // Per line, the device whose idle time it explains most.
    struct Best {
        int32_t device = -1;
        double idleNs = 0;
        int64_t samples = 0, deviceIdleNs = 0, gaps = 0, gapSamples = 0, moduleLoadGaps = 0;
    };
    std::map<int32_t, Best> best;
    for (size_t d = 0; d < context.session.devices.size() && !context.cancelled(); ++d) {
        const DeviceTally tally = tallyDevice(context, static_cast<int32_t>(d));
        for (const auto& [line, idle] : tally.lines) {
            Best& b = best[line];
            if (idle.idleNs > b.idleNs)
                b = {static_cast<int32_t>(d),
                     idle.idleNs,
                     idle.samples,
                     tally.idleNs,
                     tally.gaps,
                     tally.samples,
                     tally.moduleLoadGaps};
        }
    }
    for (const auto& [line, b] : best) {
        const auto idleNs = static_cast<int64_t>(b.idleNs);
        if (b.samples < t.minSamples || context.shareOf(idleNs) < t.minIdleShare)
            continue;
        const SourceSite& site = context.samples.lines()[line];
        const std::string gpu = deviceLabel(context.session, b.device);
        const std::string evidence =
            gpu + " idle " + formatShare(context.shareOf(idleNs)) + " of the window (" +
            formatDuration(idleNs) + " of its " + formatDuration(b.deviceIdleNs) + " in " +
            formatCount(b.gaps) + (b.gaps == 1 ? " gap" : " gaps") + " of " +
            formatDuration(t.minIdleNs) + " or more) while the host was at " + site.label() + ": " +
            formatCount(b.samples) + " of the " + formatCount(b.gapSamples) +
            " samples of the launching threads in those gaps" +
            (b.moduleLoadGaps > 0 ? " (not counted: " + formatCount(b.moduleLoadGaps) +
                                        (b.moduleLoadGaps == 1 ? " gap" : " gaps") +
                                        " before a kernel's first run, CUDA loading its module)"
                                  : std::string());
        // The line's sync site, or the straggler whose cause it is, already has the finding.
        const auto existing = std::find_if(out.begin(), out.end(), [&](const Insight& insight) {
            return (insight.siteIndex >= 0 || insight.rule == InsightRule::Straggler) &&
                   sameSite(insight.site, site);
        });
        if (existing != out.end()) {
            existing->rules.push_back(InsightRule::HostGap);
            existing->evidence += ". Sampled: " + evidence;
            continue;
        }
        Insight insight;
        insight.rule = InsightRule::HostGap;
        insight.rules = {InsightRule::HostGap};
        insight.site = site;
        insight.count = b.samples;
        insight.assumption = "if this host work overlapped the GPU's";
        // A GPU at its power cap gives back part of the idle time it is kept busy in, as for a
        // sync's fix (InsightThresholds::powerCap).
        context.rateBySavings(
            insight, savedAtPowerCap(idleNs, context.savings.powerCap(), context.thresholds));
        insight.title = "GPU idle " + formatShare(context.shareOf(idleNs)) +
                        " while the host runs " + site.label();
        insight.evidence = evidence; // the power cap's discount: report.assumptions
        insight.recommendation = recommendationFor(InsightRule::HostGap, site.language);
        out.push_back(std::move(insight));
    }
}

} // namespace insight_rules

} // namespace stallscope::model
