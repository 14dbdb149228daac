// Rules over host-blocking syncs: sync-attribution, in-loop-sync, pageable-copy, device-sync,
// gpu-bubble. All group by the site SyncSites resolved and walk each thread's columns once.
#include "model/analysis/insight_recommendations.h"
#include "model/analysis/insight_rules.h"
#include "model/session/session_summary.h"

#include <algorithm>
#include <unordered_map>

namespace stallscope::model {

Severity AnalysisContext::severityFor(double share) const {
    if (share > thresholds.severity.highShare)
        return Severity::High;
    if (share > thresholds.severity.mediumShare)
        return Severity::Medium;
    return Severity::Low;
}

void AnalysisContext::rateBySavings(Insight& insight, int64_t savingsNs) const {
    insight.savingsNs = capToWall(savingsNs);
    insight.share = shareOf(insight.savingsNs);
    insight.severity = severityFor(insight.share);
}

namespace insight_rules {

namespace {

using format::SyncKind;

// The fields every insight about one sync site shares.
Insight siteInsight(const AnalysisContext& context, InsightRule rule, int32_t site) {
    const SyncSiteStats& stats = context.sites.stats()[site];
    Insight insight;
    insight.rule = rule;
    insight.site = stats.site;
    insight.siteIndex = site;
    insight.count = stats.count;
    insight.blockedNs = stats.blockedNs;
    insight.bubbleNs = stats.bubbleNs;
    insight.medianBlockedNs = stats.medianBlockedNs;
    insight.recommendation = recommendationFor(rule, stats.site.language, stats.dominantKind());
    insight.events = context.sites.spansOf(site);
    insight.eventCount = stats.count;
    return insight;
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

} // namespace

void syncAttribution(const AnalysisContext& context, std::vector<Insight>& out) {
    const auto& sites = context.sites.stats();
    const size_t shown = std::min(
        sites.size(), static_cast<size_t>(std::max(0, context.thresholds.attribution.maxSites)));
    for (size_t s = 0; s < shown; ++s) {
        const SyncSiteStats& stats = sites[s];
        Insight insight =
            siteInsight(context, InsightRule::SyncAttribution, static_cast<int32_t>(s));
        insight.share = stats.share;
        insight.severity = context.severityFor(stats.share);
        insight.savingsNs = context.capToWall(stats.blockedNs + stats.bubbleNs);
        insight.title =
            syncKindLabel(stats.dominantKind()) + times(stats.count) + " at " + stats.site.label();
        insight.evidence =
            formatCount(stats.count) + (stats.count == 1 ? " sync" : " syncs") +
            " blocked the host " + formatDuration(stats.blockedNs) + " (median " +
            formatDuration(stats.medianBlockedNs) + "), " + formatShare(stats.share) +
            " of session wall time; the GPU then sat idle " + formatDuration(stats.bubbleNs);
        out.push_back(std::move(insight));
    }
}

void inLoopSync(const AnalysisContext& context, std::vector<Insight>& out) {
    const Session& session = context.session;
    const auto& sites = context.sites.stats();
    const int64_t minSyncs = context.thresholds.inLoop.minSyncs;
    // Kernel launches between consecutive syncs of a site on one thread, per site.
    std::vector<std::vector<uint32_t>> gaps(sites.size());
    std::vector<int64_t> lastLaunches(sites.size(), -1);
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const HostLane& lane = session.hostLanes[l];
        const SyncColumns& syncs = lane.syncs;
        if (syncs.empty())
            continue;
        const int32_t process = context.gpu.processOfThread(lane.threadIndex);
        const ApiCallColumns& calls = lane.apiCalls;
        std::fill(lastLaunches.begin(), lastLaunches.end(), -1);
        size_t a = 0;
        int64_t launches = 0;
        uint32_t lastCounted = 0;
        bool counted = false;
        for (size_t i = 0; i < syncs.size(); ++i) {
            for (; a < calls.size() && calls.start[a] < syncs.start[i]; ++a) {
                const uint32_t correlation = calls.correlationId[a];
                // A runtime launch and the driver call nested in it may share the id: count it
                // once.
                if (counted && correlation == lastCounted)
                    continue;
                if (context.launches.isKernelLaunch(process, correlation)) {
                    ++launches;
                    lastCounted = correlation;
                    counted = true;
                }
            }
            const int32_t site = context.sites.siteOf(static_cast<int32_t>(l), i);
            if (site < 0 || sites[site].count < minSyncs)
                continue;
            if (lastLaunches[site] >= 0) {
                // Back-to-back syncs with no launch between them are one sync point: `.cpu()`
                // is a blocking copy plus a stream sync at the same line.
                if (launches == lastLaunches[site])
                    continue;
                gaps[site].push_back(static_cast<uint32_t>(launches - lastLaunches[site]));
            }
            lastLaunches[site] = launches;
        }
        if (context.cancelled())
            return;
    }
    for (size_t s = 0; s < sites.size(); ++s) {
        std::vector<uint32_t>& between = gaps[s];
        if (sites[s].count < minSyncs || between.empty())
            continue;
        // The upper median for even counts (an observed value), as for blocked times.
        auto middle = between.begin() + static_cast<std::ptrdiff_t>(between.size() / 2);
        std::nth_element(between.begin(), middle, between.end());
        const int64_t median = *middle;
        if (median < context.thresholds.inLoop.minLaunches)
            continue;
        const SyncSiteStats& stats = sites[s];
        Insight insight = siteInsight(context, InsightRule::InLoopSync, static_cast<int32_t>(s));
        insight.medianLaunchesBetween = median;
        context.rateBySavings(insight, stats.blockedNs + stats.bubbleNs);
        insight.title = "In-loop sync" + times(stats.count) + " at " + stats.site.label() +
                        " — likely blocking GPU pipelining";
        insight.evidence = formatCount(stats.count) + " syncs from this line with a median of " +
                           formatCount(median) + " kernel launches between consecutive ones; " +
                           formatDuration(stats.blockedNs) + " blocked + " +
                           formatDuration(stats.bubbleNs) + " GPU idle after them (" +
                           formatShare(insight.share) + " of session)";
        out.push_back(std::move(insight));
    }
}

void pageableCopy(const AnalysisContext& context, std::vector<Insight>& out) {
    const Session& session = context.session;
    // Candidates first (blocking copies are few), then one pass over the memcpys joins each to
    // its device->pageable copy by (process, correlation id).
    struct Candidate {
        EventRef sync;
        int32_t site = -1;
        int32_t copyLane = -1;
        uint32_t copyIndex = 0;
    };
    std::vector<Candidate> candidates;
    std::unordered_map<uint64_t, size_t> byCorrelation;
    auto key = [](int64_t process, uint32_t correlation) {
        return (static_cast<uint64_t>(process + 1) << 32) | correlation;
    };
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const HostLane& lane = session.hostLanes[l];
        const SyncColumns& syncs = lane.syncs;
        const int64_t process = context.gpu.processOfThread(lane.threadIndex);
        for (size_t i = 0; i < syncs.size(); ++i) {
            const auto kind = static_cast<SyncKind>(syncs.kind[i]);
            if (kind != SyncKind::PageableCopy && kind != SyncKind::BlockingCopy)
                continue;
            const int32_t site = context.sites.siteOf(static_cast<int32_t>(l), i);
            if (site < 0)
                continue;
            byCorrelation.emplace(key(process, syncs.correlationId[i]), candidates.size());
            candidates.push_back(
                {EventRef::sync(static_cast<int32_t>(l), static_cast<uint32_t>(i)), site});
        }
    }
    if (candidates.empty())
        return;
    for (size_t l = 0; l < session.streamLanes.size(); ++l) {
        const StreamLane& lane = session.streamLanes[l];
        const int32_t device = session.streams[lane.streamIndex].deviceIndex;
        const int64_t process = device < 0 ? -1 : session.devices[device].processIndex;
        const TransferColumns& memcpys = lane.memcpys;
        for (size_t i = 0; i < memcpys.size(); ++i) {
            if (memcpys.copyKind[i] != static_cast<uint8_t>(format::CopyKind::DtoH) ||
                memcpys.dstKind[i] != static_cast<uint8_t>(format::MemoryKind::Pageable))
                continue;
            const auto found = byCorrelation.find(key(process, memcpys.correlationId[i]));
            if (found == byCorrelation.end())
                continue;
            candidates[found->second].copyLane = static_cast<int32_t>(l);
            candidates[found->second].copyIndex = static_cast<uint32_t>(i);
        }
    }
    struct Tally {
        int64_t count = 0, blocked = 0, bubble = 0, bytes = 0;
        std::vector<EventRef> syncs;
        EventSpans copySpans;
    };
    std::unordered_map<int32_t, Tally> bySite;
    for (const Candidate& candidate : candidates) {
        const SyncColumns& syncs = session.hostLanes[candidate.sync.lane].syncs;
        // A blocking copy counts when its copy is device->pageable; a pageable-copy sync always
        // (the recorder classified it, even if the copy record itself was dropped).
        if (syncs.kind[candidate.sync.index] == static_cast<uint8_t>(SyncKind::BlockingCopy) &&
            candidate.copyLane < 0)
            continue;
        Tally& tally = bySite[candidate.site];
        ++tally.count;
        tally.blocked += syncs.duration(candidate.sync.index);
        tally.bubble += context.sites.bubbleAfter(candidate.sync.lane, candidate.sync.index);
        tally.syncs.push_back(candidate.sync);
        if (candidate.copyLane >= 0) {
            const TransferColumns& memcpys = session.streamLanes[candidate.copyLane].memcpys;
            tally.bytes += static_cast<int64_t>(memcpys.bytes[candidate.copyIndex]);
            appendEvent(tally.copySpans,
                        {EventKind::Memcpy, candidate.copyLane, 0, candidate.copyIndex});
        }
    }
    for (auto& [site, tally] : bySite) {
        const SyncSiteStats& stats = context.sites.stats()[site];
        Insight insight = siteInsight(context, InsightRule::PageableCopy, site);
        insight.count = tally.count;
        insight.blockedNs = tally.blocked;
        insight.bubbleNs = tally.bubble;
        insight.bytes = tally.bytes;
        insight.recommendation = recommendationFor(InsightRule::PageableCopy, stats.site.language);
        context.rateBySavings(insight, tally.blocked + tally.bubble);
        insight.title =
            "Blocking copy to pageable memory" + times(tally.count) + " at " + stats.site.label();
        insight.evidence =
            formatCount(tally.count) + " device→host " + (tally.count == 1 ? "copy" : "copies") +
            " into pageable memory, " + formatBytes(tally.bytes) + " in total, blocked the host " +
            formatDuration(tally.blocked) + "; the GPU then sat idle " +
            formatDuration(tally.bubble) + " (" + formatShare(insight.share) + " of session)";
        EventSpans spans = SyncSites::spansFor(tally.syncs);
        spans.insert(spans.end(), tally.copySpans.begin(), tally.copySpans.end());
        insight.eventCount = eventCount(spans);
        insight.events = std::make_shared<const EventSpans>(std::move(spans));
        out.push_back(std::move(insight));
    }
}

void deviceSync(const AnalysisContext& context, std::vector<Insight>& out) {
    const Session& session = context.session;
    struct Tally {
        int64_t count = 0, blocked = 0;
        int32_t stream = -1; // the single active stream, -2 when it varied
        std::vector<EventRef> syncs;
    };
    std::unordered_map<int32_t, Tally> bySite;
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const HostLane& lane = session.hostLanes[l];
        const SyncColumns& syncs = lane.syncs;
        for (size_t i = 0; i < syncs.size(); ++i) {
            if (syncs.kind[i] != static_cast<uint8_t>(SyncKind::Device))
                continue;
            const int32_t site = context.sites.siteOf(static_cast<int32_t>(l), i);
            if (site < 0)
                continue;
            std::vector<int32_t> devices;
            if (const int32_t device = context.gpu.deviceOfSync(static_cast<int32_t>(l), i);
                device >= 0)
                devices.push_back(device);
            else
                devices = context.gpu.activeDevicesOfThread(lane.threadIndex);
            // Streams with work running while the host waited: the work the sync waited for.
            int active = 0;
            int32_t activeStream = -1;
            for (int32_t device : devices) {
                for (int32_t stream : context.gpu.streamsOf(device)) {
                    const StreamLane& work = session.streamLanes[stream];
                    if (overlapsColumn(work.kernels, syncs.start[i], syncs.end[i]) ||
                        overlapsColumn(work.memcpys, syncs.start[i], syncs.end[i]) ||
                        overlapsColumn(work.memsets, syncs.start[i], syncs.end[i])) {
                        ++active;
                        activeStream = stream;
                    }
                }
            }
            if (active != 1)
                continue;
            Tally& tally = bySite[site];
            ++tally.count;
            tally.blocked += syncs.duration(i);
            tally.stream = tally.stream == -1 || tally.stream == activeStream ? activeStream : -2;
            tally.syncs.push_back(
                EventRef::sync(static_cast<int32_t>(l), static_cast<uint32_t>(i)));
        }
        if (context.cancelled())
            return;
    }
    for (auto& [site, tally] : bySite) {
        const SyncSiteStats& stats = context.sites.stats()[site];
        Insight insight = siteInsight(context, InsightRule::DeviceSync, site);
        insight.count = tally.count;
        insight.blockedNs = tally.blocked;
        insight.bubbleNs = 0;
        insight.recommendation = recommendationFor(InsightRule::DeviceSync, stats.site.language);
        // Narrowing the scope does not shorten the wait when one stream holds all the work: the
        // cost stays with sync-attribution, this insight is about not stalling other streams.
        insight.savingsNs = 0;
        insight.share = context.shareOf(tally.blocked);
        insight.severity = Severity::Low;
        insight.title = "Device-wide sync" + times(tally.count) + " at " + stats.site.label() +
                        " where one stream was busy";
        const std::string stream = tally.stream >= 0
                                       ? session.streamLabel(session.streams[tally.stream])
                                       : std::string("a single stream each time");
        insight.evidence = formatCount(tally.count) + " device-wide " +
                           (tally.count == 1 ? "sync" : "syncs") + " waited only for " + stream +
                           " (" + formatDuration(tally.blocked) +
                           " blocked); a stream or event sync waits for the same work";
        EventSpans spans = SyncSites::spansFor(tally.syncs);
        insight.eventCount = eventCount(spans);
        insight.events = std::make_shared<const EventSpans>(std::move(spans));
        out.push_back(std::move(insight));
    }
}

void gpuBubble(const AnalysisContext& context, std::vector<Insight>& out) {
    const auto& sites = context.sites.stats();
    for (size_t s = 0; s < sites.size(); ++s) {
        const SyncSiteStats& stats = sites[s];
        if (stats.bubbleNs <= 0 ||
            context.shareOf(stats.bubbleNs) < context.thresholds.bubble.minShare)
            continue;
        std::vector<EventRef> followed;
        for (const EventRef& ref : context.sites.syncsOf(static_cast<int32_t>(s)))
            if (context.sites.bubbleAfter(ref.lane, ref.index) > 0)
                followed.push_back(ref);
        Insight insight = siteInsight(context, InsightRule::GpuBubble, static_cast<int32_t>(s));
        insight.count = static_cast<int64_t>(followed.size());
        context.rateBySavings(insight, stats.bubbleNs);
        insight.title =
            "GPU idle after syncs at " + stats.site.label() + ": " + formatDuration(stats.bubbleNs);
        insight.evidence = "After " + formatCount(insight.count) + " of " +
                           formatCount(stats.count) +
                           " syncs the GPU sat idle until the host launched more work: " +
                           formatDuration(stats.bubbleNs) + " in total (" +
                           formatDuration(stats.bubbleNs / std::max<int64_t>(insight.count, 1)) +
                           " per sync, " + formatShare(insight.share) + " of session), on top of " +
                           formatDuration(stats.blockedNs) + " blocked";
        EventSpans spans = SyncSites::spansFor(followed);
        insight.eventCount = eventCount(spans);
        insight.events = std::make_shared<const EventSpans>(std::move(spans));
        out.push_back(std::move(insight));
    }
}

} // namespace insight_rules

} // namespace stallscope::model
