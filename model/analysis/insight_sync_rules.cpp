// One finding per sync site. The evidence rules (docs/insights.md) — in-loop pattern, pageable
// copy, device-wide sync where one stream would do, GPU bubble — attach to the site's finding;
// its one number is the simulated saving (SimulatedSavings), its one fix the main rule's.
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "model/analysis/insight_recommendations.h"
#include "model/analysis/insight_rules.h"
#include "model/analysis/sync_copies.h"
#include "model/analysis/sync_operations.h"
#include "model/session/session_summary.h"
#include "model/whatif/median_sample.h"

#include <algorithm>
#include <cmath>

namespace stallscope::model {

Severity AnalysisContext::severityFor(double share) const {
    if (share > thresholds.severity.highShare)
        return Severity::High;
    if (share > thresholds.severity.mediumShare)
        return Severity::Medium;
    return Severity::Low;
}

void AnalysisContext::rateBySavings(Insight& insight, int64_t savingsNs,
                                    int64_t gpuTimeRemovedNs) const {
    insight.savingsNs =
        std::clamp<int64_t>(savingsNs, 0, format::addSaturated(gpuIdleNs, gpuTimeRemovedNs));
    insight.share = std::min(1.0, static_cast<double>(insight.savingsNs) /
                                      static_cast<double>(savingsWindowNs));
    insight.severity = severityFor(insight.share);
}

namespace insight_rules {

std::string powerCapNote(const AnalysisContext& context) {
    const GpuPowerCap& cap = context.savings.powerCap();
    if (!cap.capped)
        return {};
    return "; the GPU ran at its power limit (" + formatCount(cap.cappedSamples) + " of " +
           formatCount(cap.busySamples) +
           " busy samples), so the idle time the fix fills is counted " +
           formatShare(1.0 - context.thresholds.powerCap.slowdownShare) +
           ": a busier GPU clocks lower";
}

std::string projectedClockNote(const AnalysisContext& context, int32_t site) {
    const GpuPowerCap& cap = context.savings.powerCap();
    const SimulatedSavings::ProjectedClock& projected = context.savings.projectedClockOf(site);
    if (projected.kernelScale <= 1.0)
        return {};
    const double recordedDuty = context.savings.recordedDuty();
    const double busier = projected.duty / recordedDuty;
    return "; the fix keeps the GPU busy " + formatShare(projected.duty) + " of the time (" +
           formatShare(recordedDuty) + " recorded, at " + formatCount(std::llround(cap.steadyW)) +
           " W), where it would draw about " + formatCount(std::llround(cap.projectedW(busier))) +
           " W of its " + formatCount(std::llround(cap.limitW)) +
           " W limit: a lower clock makes its kernels " + formatShare(projected.kernelScale - 1.0) +
           " longer";
}

std::string inferredLaunchNote(const AnalysisContext& context) {
    if (!context.savings.launchesInferred())
        return {};
    return "; launch times inferred from the order of the calls (a light recording has none): a "
           "statement's own time around the sync is not counted";
}

std::string calibrationNote(const AnalysisContext& context) {
    const SimulatedSavings& savings = context.savings;
    std::string note;
    if (const whatif::MeasuredRecorderCost* measured = savings.measuredRecorderCost()) {
        const auto percent = [](double slowdown) {
            return std::to_string(std::lround((slowdown - 1.0) * 100.0)) + " %";
        };
        note = "; the recorder's own cost left out, measured in this run (its collection off " +
               std::to_string(measured->comparisons.size()) +
               " times beside recorded stretches): it slowed the loop by " +
               percent(measured->slowdown());
        // A spread this wide says the run's own speed varied as much: a range, not a figure.
        if (measured->noisy())
            note += " (" + percent(measured->lowestSlowdown()) + " to " +
                    percent(measured->highestSlowdown()) + ": the run's speed varied that much)";
        note += ", " + formatDuration(savings.recorderLaunchNs()) + " a launch call";
    } else if (savings.recorderRestartNs() != 0 || savings.recorderLaunchNs() != 0)
        note = "; the recorder's own cost left out (" +
               formatDuration(savings.recorderRestartNs()) +
               " a restart of the idle GPU after a sync, " +
               formatDuration(savings.recorderLaunchNs()) +
               " a launch call, measured on the recording machine)";
    if (const int64_t cost = savings.recorderCostInWindowNs(); cost > 0)
        note += ", which took " + formatDuration(cost) + " of the window: shares are of the " +
                formatDuration(context.savingsWindowNs) + " left";
    if (savings.deepQueueDelayNs() != 0)
        note += "; behind " + std::to_string(format::meta::kDeepQueueLaunches) +
                " or more queued launches a kernel starts " +
                formatDuration(savings.deepQueueDelayNs()) +
                " later after its predecessor (measured on the recording machine)";
    return note;
}

std::string assumptionsText(const AnalysisContext& context) {
    std::string text =
        calibrationNote(context) + powerCapNote(context) + inferredLaunchNote(context);
    while (!text.empty() && (text.front() == ';' || text.front() == ' '))
        text.erase(0, 1);
    return text;
}

namespace {

using format::SyncKind;

// " (and lines 64, 65)": the next statements joined to the site (one change removes them all).
std::string joinedLinesText(const SyncSiteStats& stats) {
    if (stats.joinedLines.empty())
        return {};
    std::string text = stats.joinedLines.size() == 1 ? " (and line " : " (and lines ";
    for (size_t i = 0; i < stats.joinedLines.size(); ++i)
        text += (i ? ", " : "") + std::to_string(stats.joinedLines[i].line);
    return text + ")";
}

// "Boolean-mask indexing: `loss = F.cross_entropy(logits[mask], tags[mask])` needs the number
// of selected elements on the host (aten::nonzero). " — what the user wrote and why it waits.
std::string operationText(const SyncSiteStats& stats) {
    if (!stats.operation)
        return {};
    std::string text(stats.operation->name);
    if (!stats.statement.empty())
        text += ": `" + stats.statement + "`";
    text += " " + std::string(stats.operation->meaning);
    if (!stats.syncingOp.empty())
        text += " (aten::" + stats.syncingOp + ")";
    return text + ". ";
}

std::string times(int64_t count) {
    return " × " + formatCount(count);
}

bool overlapsColumn(const IntervalColumns& columns, int64_t from, int64_t to) {
    for (size_t i = columns.firstEndingAfter(from); i < columns.size() && columns.start[i] < to;
         ++i)
        if (columns.end[i] > from)
            return true;
    return false;
}

// Appends one event, extending the last span when it is the next index of the same column.
void appendEvent(EventSpans& spans, const EventRef& event) {
    if (!spans.empty() && spans.back().at(spans.back().count) == event) {
        ++spans.back().count;
        return;
    }
    spans.push_back({event, 1});
}

// What the per-site passes found about one site.
struct SiteEvidence {
    int64_t calls = 0;                     // user-visible calls in the window
    int64_t sessionCalls = 0;              // and in the whole session
    std::vector<uint32_t> launchesBetween; // consecutive calls on one thread
    std::vector<int64_t> periods;          // start to start of consecutive calls on one thread
    int64_t pageableCopies = 0, pageableBytes = 0;
    int64_t pageableUploads = 0; // of those copies, host->device ones (the rest read the device)
    EventSpans copySpans;
    int64_t deviceSyncs = 0, narrowableDeviceSyncs = 0;
    int32_t busyStream = -1;        // the one stream device syncs waited for, -2 when it varied
    std::vector<int64_t> rankCalls; // calls per rank (SyncSites::ranks), multi-rank sessions
    std::vector<int64_t> rankSessionCalls;
};

// One site's calls on one thread, in time order: a sync that continues the call before it on the
// thread (SyncSites::continuesCall), or that follows the site's last sync back to back with no
// kernel launch between (`.cpu()`: a blocking copy plus a stream sync), is no new call.
struct CallCounter {
    int64_t launches = -1; // the thread's launches at the call's first sync; -1 before any
    int64_t lastEnd = 0;   // of the site's last sync
    bool isNewCall(bool continues, int64_t launchesNow, int64_t start, int64_t end,
                   int64_t sameCallGapNs) {
        const bool same =
            launches >= 0 &&
            (continues || (launchesNow == launches && start - lastEnd <= sameCallGapNs));
        lastEnd = end;
        if (!same)
            launches = launchesNow;
        return !same;
    }
};

// Calls, launches and periods between calls: one walk over each thread's syncs and API calls.
// The calls inside the window are the finding's (those its simulated saving removed); those of
// the whole session are the count of a site without a finding.
void countCalls(const AnalysisContext& context, std::vector<SiteEvidence>& evidence) {
    const Session& session = context.session;
    const int64_t gap = context.thresholds.counting.sameCallGapNs;
    std::vector<CallCounter> inWindow(evidence.size()), inSession(evidence.size());
    std::vector<int64_t> lastStart(evidence.size());
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const HostLane& lane = session.hostLanes[l];
        const SyncColumns& syncs = lane.syncs;
        if (syncs.empty())
            continue;
        const int32_t process = context.gpu.processOfThread(lane.threadIndex);
        const ApiCallColumns& calls = lane.apiCalls;
        std::fill(inWindow.begin(), inWindow.end(), CallCounter{});
        std::fill(inSession.begin(), inSession.end(), CallCounter{});
        const int32_t slot = context.sites.rankSlotOfLane(static_cast<int32_t>(l));
        size_t a = 0;
        int64_t launches = 0;
        uint32_t lastCounted = 0;
        bool counted = false;
        // A light recording has no launch calls: the kernels between two syncs are those whose
        // correlation ids lie between theirs.
        const bool byCorrelation = !context.launches.callsRecorded(process);
        for (size_t i = 0; i < syncs.size(); ++i) {
            if (byCorrelation && i > 0)
                launches += context.launches.kernelsBetween(process, syncs.correlationId[i - 1],
                                                            syncs.correlationId[i]);
            for (; a < calls.size() && calls.start[a] < syncs.start[i]; ++a) {
                const uint32_t correlation = calls.correlationId[a];
                // A runtime launch and the driver call nested in it may share the id.
                if (counted && correlation == lastCounted)
                    continue;
                if (context.launches.isKernelLaunch(process, correlation)) {
                    ++launches;
                    lastCounted = correlation;
                    counted = true;
                }
            }
            const int32_t site = context.sites.siteOf(static_cast<int32_t>(l), i);
            if (site < 0)
                continue;
            SiteEvidence& found = evidence[site];
            const bool continues = context.sites.continuesCall(static_cast<int32_t>(l), i);
            if (inSession[site].isNewCall(continues, launches, syncs.start[i], syncs.end[i], gap)) {
                ++found.sessionCalls;
                if (slot >= 0) {
                    found.rankSessionCalls.resize(context.sites.ranks().size());
                    ++found.rankSessionCalls[slot];
                }
            }
            if (!context.inWindow(syncs.start[i]))
                continue;
            // A call whose first sync lies before the window counts at its first one inside.
            const int64_t previousLaunches = inWindow[site].launches;
            if (!inWindow[site].isNewCall(continues, launches, syncs.start[i], syncs.end[i], gap))
                continue;
            ++found.calls;
            if (slot >= 0) {
                found.rankCalls.resize(context.sites.ranks().size());
                ++found.rankCalls[slot];
            }
            if (previousLaunches >= 0) {
                found.launchesBetween.push_back(static_cast<uint32_t>(launches - previousLaunches));
                found.periods.push_back(syncs.start[i] - lastStart[site]);
            }
            lastStart[site] = syncs.start[i];
        }
    }
}

// Copies between the device and pageable host memory, either way: blocking copies joined to their
// memcpy (SyncSites::syncCopies).
void findPageableCopies(const AnalysisContext& context, std::vector<SiteEvidence>& evidence) {
    const Session& session = context.session;
    const SyncSites& sites = context.sites;
    // The recorder classified it even if the copy record itself was dropped.
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const SyncColumns& syncs = session.hostLanes[l].syncs;
        for (size_t i = 0; i < syncs.size(); ++i)
            if (const int32_t site = sites.siteOf(static_cast<int32_t>(l), i);
                site >= 0 && static_cast<SyncKind>(syncs.kind[i]) == SyncKind::PageableCopy)
                ++evidence[site].pageableCopies;
    }
    for (const SyncCopy& copy : sites.syncCopies()) {
        const int32_t site = sites.siteOf(copy.syncLane, copy.syncIndex);
        const TransferColumns& memcpys = session.streamLanes[copy.copyLane].memcpys;
        const uint32_t i = copy.copyIndex;
        const auto pageable = static_cast<uint8_t>(format::MemoryKind::Pageable);
        const bool upload = memcpys.copyKind[i] == static_cast<uint8_t>(format::CopyKind::HtoD) &&
                            memcpys.srcKind[i] == pageable;
        const bool read = memcpys.copyKind[i] == static_cast<uint8_t>(format::CopyKind::DtoH) &&
                          memcpys.dstKind[i] == pageable;
        if (site < 0 || (!upload && !read))
            continue;
        SiteEvidence& found = evidence[site];
        found.pageableUploads += upload ? 1 : 0;
        found.pageableBytes =
            format::addSaturated(found.pageableBytes, static_cast<int64_t>(memcpys.bytes[i]));
        appendEvent(found.copySpans, {EventKind::Memcpy, copy.copyLane, 0, i});
    }
    for (SiteEvidence& site : evidence)
        if (site.pageableCopies == 0 && !site.copySpans.empty())
            site.pageableCopies = eventCount(site.copySpans); // blocking copies into pageable
}

// Device-wide syncs that waited for a single busy stream: a stream or event sync would do.
void findNarrowableDeviceSyncs(const AnalysisContext& context,
                               std::vector<SiteEvidence>& evidence) {
    const Session& session = context.session;
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const HostLane& lane = session.hostLanes[l];
        const SyncColumns& syncs = lane.syncs;
        for (size_t i = 0; i < syncs.size(); ++i) {
            if (syncs.kind[i] != static_cast<uint8_t>(SyncKind::Device))
                continue;
            const int32_t site = context.sites.siteOf(static_cast<int32_t>(l), i);
            if (site < 0)
                continue;
            ++evidence[site].deviceSyncs;
            std::vector<int32_t> devices;
            if (const int32_t device = context.gpu.deviceOfSync(static_cast<int32_t>(l), i);
                device >= 0)
                devices.push_back(device);
            else
                devices = context.gpu.activeDevicesOfThread(lane.threadIndex);
            int active = 0;
            int32_t activeStream = -1;
            for (int32_t device : devices)
                for (int32_t stream : context.gpu.streamsOf(device)) {
                    const StreamLane& work = session.streamLanes[stream];
                    if (overlapsColumn(work.kernels, syncs.start[i], syncs.end[i]) ||
                        overlapsColumn(work.memcpys, syncs.start[i], syncs.end[i]) ||
                        overlapsColumn(work.memsets, syncs.start[i], syncs.end[i])) {
                        ++active;
                        activeStream = stream;
                    }
                }
            if (active != 1)
                continue;
            SiteEvidence& found = evidence[site];
            ++found.narrowableDeviceSyncs;
            found.busyStream =
                found.busyStream == -1 || found.busyStream == activeStream ? activeStream : -2;
        }
        if (context.cancelled())
            return;
    }
}

} // namespace

void syncSites(const AnalysisContext& context, std::vector<Insight>& out) {
    const auto& sites = context.sites.stats();
    std::vector<SiteEvidence> evidence(sites.size());
    countCalls(context, evidence);
    if (SessionCalls* counted = context.sessionCalls) {
        counted->calls.resize(evidence.size());
        counted->rankCalls.resize(evidence.size());
        for (size_t s = 0; s < evidence.size(); ++s) {
            counted->calls[s] = evidence[s].sessionCalls;
            counted->rankCalls[s] = evidence[s].rankSessionCalls;
        }
    }
    findPageableCopies(context, evidence);
    findNarrowableDeviceSyncs(context, evidence);
    if (context.cancelled())
        return;
    const InsightThresholds& t = context.thresholds;
    for (size_t s = 0; s < sites.size(); ++s) {
        const SyncSiteStats& stats = sites[s];
        SiteEvidence& found = evidence[s];
        const auto site = static_cast<int32_t>(s);
        if (!stats.isUserFinding() || !context.savings.simulated(site))
            continue;
        Insight insight;
        insight.site = stats.site;
        insight.siteIndex = site;
        insight.count = std::max<int64_t>(found.calls, 1);
        insight.blockedNs = stats.blockedNs;
        insight.bubbleNs = stats.bubbleNs;
        insight.medianBlockedNs = stats.medianBlockedNs;
        insight.medianLaunchesBetween = whatif::upperMedian(found.launchesBetween);
        insight.medianPeriodNs = whatif::upperMedian(found.periods);
        insight.simulated = true;
        insight.ranks = stats.ranks;
        for (size_t r = 0; r < insight.ranks.size(); ++r)
            insight.ranks[r].calls = r < found.rankCalls.size() ? found.rankCalls[r] : 0;
        context.rateBySavings(insight, context.savings.savingOf(site),
                              context.savings.gpuTimeRemovedOf(site));
        if (insight.share < t.simulation.minSavingShare)
            continue; // saves next to nothing: a row of the tables, not a card
        const int64_t perCall = insight.savingsNs / insight.count;
        // The replay took the statement's work too (after the value, or between a call's syncs):
        // the timeline's after-fix bars replay that change, not the syncs removed alone.
        if (const auto& fix = context.savings.fixOf(site);
            fix && (fix->statementShareAfter > 0 || !fix->removedLaunches.empty()))
            insight.change = fix;

        // The evidence, most specific first: it decides the main rule and the fix.
        const bool inLoop =
            insight.count >= t.inLoop.minSyncs && !found.launchesBetween.empty() &&
            insight.medianLaunchesBetween >= t.inLoop.minLaunches &&
            static_cast<double>(perCall) >=
                t.inLoop.minSavingShareOfPeriod * static_cast<double>(insight.medianPeriodNs);
        // A pageable copy's fix (pinned, non-blocking) is the more specific one.
        if (found.pageableCopies > 0)
            insight.rules.push_back(InsightRule::PageableCopy);
        if (inLoop)
            insight.rules.push_back(InsightRule::InLoopSync);
        insight.rules.push_back(InsightRule::SyncAttribution);
        // Narrowing a device-wide sync or a bubble are not fixes of their own: evidence only.
        const bool narrowable =
            found.narrowableDeviceSyncs > 0 && found.narrowableDeviceSyncs == found.deviceSyncs;
        if (narrowable)
            insight.rules.push_back(InsightRule::DeviceSync);
        if (stats.bubbleNs > 0 && context.shareOf(stats.bubbleNs) >= t.bubble.minShare)
            insight.rules.push_back(InsightRule::GpuBubble);
        insight.rule = insight.rules.front();
        // Most of the site's pageable copies upload to the device: the fix pins the source.
        const bool uploads =
            found.pageableCopies > 0 && 2 * found.pageableUploads > eventCount(found.copySpans);
        insight.recommendation =
            insight.rule == InsightRule::PageableCopy && uploads
                ? pageableUploadRecommendation(stats.site.language)
                : recommendationFor(insight.rule, stats.site.language, stats.dominantKind());
        // The replay narrowed its device-wide syncs (they waited for several streams): that is
        // the fix the card gives first.
        const bool narrowed = context.savings.narrowedOf(site);
        if (narrowed)
            insight.recommendation = narrowingRecommendation(stats.site.language);
        else if (narrowable)
            insight.recommendation +=
                " " + recommendationFor(InsightRule::DeviceSync, stats.site.language);
        // What the user wrote that synced, where the catalog knows it: its rewrite is the fix
        // ("read it after the loop" is no fix of an `if` on a tensor, nor of a library's call).
        insight.operation = stats.operation;
        if (stats.operation && !narrowed) {
            insight.recommendation = std::string(stats.operation->rewrite(stats.site.language));
            // The user's own line rewritten; a pinned copy's template pins what the line copies,
            // which holds where that copy reads host memory (`.to(device)` does not say).
            if (stats.operation->fix != SyncFix::PinnedCopy || uploads)
                insight.lineRewrite = stats.lineRewrite;
        }
        insight.bytes = found.pageableBytes;
        insight.assumption = narrowed ? "if it waited for its own stream's work alone"
                             : stats.operation && stats.operation->decidesControlFlow()
                                 ? "if the decision stayed on the GPU and the host did not wait "
                                   "here"
                             : found.pageableCopies == 0 ? "if the host did not wait here"
                             : stats.operation && stats.operation->fix == SyncFix::ReadLater
                                 ? "if the host read the value later, not waiting here"
                             : uploads ? "if the copy came from pinned memory without blocking"
                                       : "if the copy went into pinned memory without blocking "
                                         "and the host did not wait here";

        const char* copyLabel = uploads ? "copy from pageable memory" : "copy to pageable memory";
        const std::string label =
            insight.rule == InsightRule::PageableCopy
                ? (inLoop ? "In-loop blocking " : "Blocking ") + std::string(copyLabel)
            : insight.rule == InsightRule::InLoopSync ? "In-loop sync"
                                                      : syncKindLabel(stats.dominantKind());
        insight.title = (stats.operation ? std::string(stats.operation->name) : label) +
                        times(insight.count) + " at " + stats.site.label() + joinedLinesText(stats);
        std::string text = operationText(stats) + formatCount(insight.count) +
                           (insight.count == 1 ? " call" : " calls") + " blocked the host " +
                           formatDuration(stats.blockedNs) + " (median " +
                           formatDuration(stats.medianBlockedNs) + ")";
        if (!insight.ranks.empty())
            text += "; " + rankNumbersText(insight.ranks);
        if (stats.backwardSyncs > 0)
            text += "; " + formatCount(stats.backwardSyncs) +
                    " of its syncs in the backward pass (" + stats.backwardNode +
                    ", on the autograd thread), removed with the line's";
        if (stats.bubbleNs > 0)
            text += "; the GPU then sat idle " + formatDuration(stats.bubbleNs);
        if (inLoop)
            text += "; a median of " + formatCount(insight.medianLaunchesBetween) +
                    " kernel launches and " + formatDuration(insight.medianPeriodNs) +
                    " between consecutive calls";
        if (found.pageableCopies > 0)
            text += "; " + formatCount(found.pageableCopies) +
                    (uploads ? " host→device " : " device→host ") +
                    (found.pageableCopies == 1 ? "copy" : "copies") +
                    (uploads ? " from" : " into") + " pageable memory (" +
                    formatBytes(found.pageableBytes) + ")";
        if (narrowable) {
            const std::string stream =
                found.busyStream >= 0
                    ? context.session.streamLabel(context.session.streams[found.busyStream])
                    : std::string("a single stream each time");
            text += "; every device-wide sync waited only for " + stream;
        }
        text += ". Simulated: " + formatDuration(insight.savingsNs) + " sooner (" +
                formatShare(insight.share) + " of the window, " + formatDuration(perCall) +
                " per call) " + insight.assumption;
        text += projectedClockNote(context, site); // the rest is said once (report.assumptions)
        if (insight.share < t.gpuBound.maxSavingShare &&
            context.gpuBusyShare >= t.gpuBound.gpuBusyShare)
            text += ". GPU-bound here (busy " + formatShare(context.gpuBusyShare) +
                    "): removing this sync saves ≈ " + formatShare(insight.share);
        insight.evidence = std::move(text);

        EventSpans spans = *context.sites.spansOf(site);
        spans.insert(spans.end(), found.copySpans.begin(), found.copySpans.end());
        insight.eventCount = eventCount(spans);
        insight.events = std::make_shared<const EventSpans>(std::move(spans));
        out.push_back(std::move(insight));
    }
}

} // namespace insight_rules

} // namespace stallscope::model
