// The straggler rule (docs/insights.md, "straggler"): the rank that arrives last at the
// collectives, the others' wait for it, and what its host did instead of launching.
#include "model/analysis/collective_match.h"
#include "model/analysis/insight_recommendations.h"
#include "model/analysis/insight_rules.h"
#include "model/analysis/interval_merge.h"
#include "model/session/session_summary.h"
#include "model/whatif/median_sample.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace stallscope::model {

namespace insight_rules {

namespace {

using TimeSpans = std::vector<std::pair<int64_t, int64_t>>;

// The time the spans cover together, inside [from, to). A rank waits in one collective at a time,
// so its waits, and the run's delays, add up to at most the window — also where the matched
// collectives overlap (ranks whose collectives do not belong together).
int64_t coveredNs(TimeSpans spans, int64_t from, int64_t to) {
    std::sort(spans.begin(), spans.end());
    BusyIntervals covered;
    for (const auto& [start, end] : spans)
        covered.add(std::max(start, from), std::min(end, to));
    return covered.totalNs;
}

constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
std::string callName(const Session& session, uint32_t nameId) {
    std::string name = session.string(nameId);
    const size_t version = name.rfind("_v");
    if (version != std::string::npos && version + 2 < name.size() &&
        std::all_of(name.begin() + static_cast<std::ptrdiff_t>(version) + 2, name.end(),
                    [](char c) { return c >= '0' && c <= '9'; }))
        name.resize(version);
    return name.empty() ? std::string("a CUDA call") : name;
}

// Host work between two CUDA calls, summed over the late collectives it preceded.
struct GapCause {
    int64_t ns = 0, count = 0;
    std::map<uint32_t, int64_t> rangeNs;     // range name id -> the part of ns it covered
    int32_t siteBefore = -1, siteAfter = -1; // nearest syncs with a source line
    std::map<int32_t, int64_t> sampledLines; // HostSamples line -> samples in the gaps
    int64_t samples = 0;                     // the launching thread's samples in the gaps
};

// What the late rank's host did before each collective it was late to.
struct CauseTally {
    std::map<int32_t, std::pair<int64_t, int64_t>> syncs;   // site -> (blocked ns, collectives)
    std::map<std::pair<uint32_t, uint32_t>, GapCause> gaps; // (call before, call after)
    int64_t gpuNs = 0, gpuCount = 0; // its GPU was busy since the previous collective
};

class CauseFinder {
public:
    CauseFinder(const AnalysisContext& context, int32_t process)
        : m_context(context), m_session(context.session) {
        for (size_t l = 0; l < m_session.hostLanes.size(); ++l) {
            const int32_t thread = m_session.hostLanes[l].threadIndex;
            if (thread < 0 || m_session.threads[thread].processIndex != process)
                continue;
            const ApiCallColumns& calls = m_session.hostLanes[l].apiCalls;
            for (size_t i = 0; i < calls.size(); ++i)
                m_callOf.try_emplace(calls.correlationId[i], static_cast<int32_t>(l),
                                     static_cast<uint32_t>(i));
        }
    }

    // One late collective: `from` is the end of the rank's previous collective (kNoTime: none).
    void add(const CollectiveArrival& arrival, int64_t from, int64_t lateness, CauseTally& tally) {
        const auto [lane, call] = criticalLaunch(arrival, from);
        if (lane < 0) {
            tally.gpuNs += lateness;
            ++tally.gpuCount;
            return;
        }
        const HostLane& host = m_session.hostLanes[lane];
        const int64_t until = host.apiCalls.start[call];
        // Its own syncs in the stretch, by site.
        std::map<int32_t, int64_t> blocked;
        const SyncColumns& syncs = host.syncs;
        for (size_t i = from == kNoTime ? 0 : syncs.firstEndingAfter(from);
             i < syncs.size() && syncs.start[i] < until; ++i) {
            const int32_t site = m_context.sites.siteOf(lane, i);
            if (site >= 0)
                blocked[site] += std::min(syncs.end[i], until) - std::max(syncs.start[i], from);
        }
        int32_t syncSite = -1;
        int64_t syncNs = 0;
        for (const auto& [site, ns] : blocked)
            if (ns > syncNs)
                syncSite = site, syncNs = ns;
        // The longest host gap between two CUDA calls.
        const ApiCallColumns& api = host.apiCalls;
        const size_t first = from == kNoTime ? 0 : api.firstStartingAtOrAfter(from);
        size_t previous = first > 0 ? first - 1 : IntervalColumns::npos;
        int64_t previousEnd = first > 0 ? std::max(from, api.end[first - 1]) : kNoTime;
        int64_t gapNs = 0, gapStart = 0, gapEnd = 0;
        size_t gapBefore = 0, gapAfter = 0;
        for (size_t i = first; i < api.size() && i <= call; ++i) {
            if (previous != IntervalColumns::npos && api.start[i] - previousEnd > gapNs) {
                gapNs = api.start[i] - previousEnd;
                gapStart = previousEnd, gapEnd = api.start[i];
                gapBefore = previous, gapAfter = i;
            }
            if (previous == IntervalColumns::npos || api.end[i] > previousEnd)
                previous = i, previousEnd = api.end[i];
        }
        // A cause explains at most the collective's lateness: one long gap (a checkpoint) must
        // not outweigh a gap that made every step late.
        if (syncSite >= 0 && syncNs >= gapNs) {
            auto& [ns, count] = tally.syncs[syncSite];
            ns += std::min(syncNs, lateness);
            ++count;
            return;
        }
        if (gapNs <= 0) {
            tally.gpuNs += lateness;
            ++tally.gpuCount;
            return;
        }
        GapCause& gap = tally.gaps[{api.nameId[gapBefore], api.nameId[gapAfter]}];
        gap.ns += std::min(gapNs, lateness);
        ++gap.count;
        if (const int64_t range = rangeCovering(host, gapStart, gapEnd); range >= 0)
            gap.rangeNs[static_cast<uint32_t>(range)] += gapNs;
        // Every sampled thread of the rank's process: the collective is often launched from a
        // thread without Python (autograd's), idle in the gap while the main thread runs it.
        const Session& session = m_context.session;
        const int32_t process = session.threads[session.hostLanes[lane].threadIndex].processIndex;
        for (size_t other = 0; other < session.hostLanes.size(); ++other)
            if (session.threads[session.hostLanes[other].threadIndex].processIndex == process)
                gap.samples += m_context.samples.tally(static_cast<int32_t>(other), gapStart,
                                                       gapEnd, gap.sampledLines);
        if (gap.siteBefore < 0)
            gap.siteBefore = nearestSync(lane, gapStart, false);
        if (gap.siteAfter < 0)
            gap.siteAfter = nearestSync(lane, gapEnd, true);
    }

private:
    // The launch that started the GPU's busy run the collective's kernel belongs to: its own
    // launch when the GPU was idle before it; (-1, 0) when the GPU was busy without a break
    // since the previous collective (the rank's GPU work, not its host, made it late).
    std::pair<int32_t, uint32_t> criticalLaunch(const CollectiveArrival& arrival, int64_t from) {
        const StreamLane& lane = m_session.streamLanes[arrival.streamLane];
        const int32_t device = m_session.streams[lane.streamIndex].deviceIndex;
        uint32_t correlation = lane.kernels.correlationId[arrival.kernel];
        if (device >= 0 && static_cast<size_t>(device) < m_context.gpu.deviceCount()) {
            const BusyIntervals& busy = m_context.gpu.busy(device);
            int64_t i = busy.lastStartingAtOrBefore(arrival.arrivalNs);
            while (i > 0 &&
                   busy.start[i] - busy.end[i - 1] <= m_context.thresholds.straggler.chainGapNs &&
                   busy.start[i] > from)
                --i;
            if (i >= 0 && from != kNoTime && busy.start[i] <= from)
                return {-1, 0};
            if (i >= 0 && busy.start[i] < arrival.arrivalNs)
                if (const uint32_t first = correlationStartingAt(device, busy.start[i]); first != 0)
                    correlation = first;
        }
        const auto call = m_callOf.find(correlation);
        if (call == m_callOf.end())
            return {-1, 0};
        return call->second;
    }

    uint32_t correlationStartingAt(int32_t device, int64_t t) const {
        for (int32_t stream : m_context.gpu.streamsOf(device)) {
            const StreamLane& lane = m_session.streamLanes[stream];
            const size_t k = lane.kernels.firstStartingAtOrAfter(t);
            if (k < lane.kernels.size() && lane.kernels.start[k] == t)
                return lane.kernels.correlationId[k];
            for (const TransferColumns* ops : {&lane.memcpys, &lane.memsets}) {
                const size_t o = ops->firstStartingAtOrAfter(t);
                if (o < ops->size() && ops->start[o] == t)
                    return ops->correlationId[o];
            }
        }
        return 0;
    }

    // The deepest range of the thread that covers at least half of [from, to); -1 when none.
    static int64_t rangeCovering(const HostLane& host, int64_t from, int64_t to) {
        const int64_t middle = from + (to - from) / 2;
        for (size_t d = host.rangesByDepth.size(); d-- > 0;) {
            const RangeColumns& ranges = host.rangesByDepth[d];
            const size_t r = ranges.findAt(middle);
            if (r == IntervalColumns::npos)
                continue;
            const int64_t covered = std::min(ranges.end[r], to) - std::max(ranges.start[r], from);
            if (2 * covered >= to - from)
                return ranges.nameId[r];
        }
        return -1;
    }

    // The site (with a source line) of the process's last sync starting before `t`, or of its
    // first sync starting from `t` on (`after`); -1 when none. Any thread of the launching
    // thread's process: DDP launches its all-reduces from the autograd thread, while the lines
    // the user wrote sync on the Python thread. A sync counts by its start (its end may pass `t`
    // by the few ns between the callback's clock and the API record's).
    int32_t nearestSync(int32_t lane, int64_t t, bool after) const {
        const auto& stats = m_context.sites.stats();
        const int32_t process =
            m_session.threads[m_session.hostLanes[lane].threadIndex].processIndex;
        int32_t best = -1;
        int64_t bestNs = 0;
        for (size_t l = 0; l < m_session.hostLanes.size(); ++l) {
            if (m_session.threads[m_session.hostLanes[l].threadIndex].processIndex != process)
                continue;
            const SyncColumns& syncs = m_session.hostLanes[l].syncs;
            auto located = [&](size_t i) {
                const int32_t site = m_context.sites.siteOf(static_cast<int32_t>(l), i);
                return site >= 0 && stats[site].site.hasLocation() ? site : -1;
            };
            if (after) {
                for (size_t i = syncs.firstStartingAtOrAfter(t); i < syncs.size(); ++i)
                    if (const int32_t site = located(i); site >= 0) {
                        if (best < 0 || syncs.start[i] < bestNs)
                            best = site, bestNs = syncs.start[i];
                        break;
                    }
            } else {
                for (size_t i = syncs.firstStartingAtOrAfter(t); i-- > 0;)
                    if (const int32_t site = located(i); site >= 0) {
                        if (best < 0 || syncs.start[i] > bestNs)
                            best = site, bestNs = syncs.start[i];
                        break;
                    }
            }
        }
        return best;
    }

    const AnalysisContext& m_context;
    const Session& m_session;
    std::unordered_map<uint32_t, std::pair<int32_t, uint32_t>> m_callOf; // correlation -> call
};

// The tally's largest cause in words; `site` gets the sync site it names, when it does.
std::string describeCause(const AnalysisContext& context, const CauseTally& tally,
                          SourceSite& site) {
    const auto& sites = context.sites.stats();
    const Session& session = context.session;
    const SourceSite rankSite = site;
    int64_t best = tally.gpuNs;
    std::string text;
    if (tally.gpuCount > 0)
        text = "its GPU was still busy with the work queued before the collective (no idle time "
               "since the previous one): it ran longer than on the other ranks";
    for (const auto& [index, numbers] : tally.syncs) {
        if (numbers.first <= best)
            continue;
        best = numbers.first;
        site = sites[index].site;
        text = "its own syncs before the launch: " + syncKindLabel(sites[index].dominantKind()) +
               " at " + sites[index].site.label() + " blocked it " + formatDuration(numbers.first) +
               " before " + formatCount(numbers.second) +
               (numbers.second == 1 ? " collective" : " collectives");
    }
    for (const auto& [calls, gap] : tally.gaps) {
        if (gap.ns <= best)
            continue;
        best = gap.ns;
        site = rankSite;
        text = "host work between " + callName(session, calls.first) + " and " +
               callName(session, calls.second) + " (" + formatDuration(gap.ns) + ", " +
               formatDuration(gap.ns / std::max<int64_t>(gap.count, 1)) + " before each of " +
               formatCount(gap.count) + " collectives)";
        const auto range =
            std::max_element(gap.rangeNs.begin(), gap.rangeNs.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        if (range != gap.rangeNs.end() && 2 * range->second >= gap.ns)
            text += " inside the range \"" + session.string(range->first) + "\"";
        if (gap.siteBefore >= 0)
            text += ", after the sync at " + sites[gap.siteBefore].site.label();
        if (gap.siteAfter >= 0)
            text += (gap.siteBefore >= 0 ? " and before the one at " : ", before the sync at ") +
                    sites[gap.siteAfter].site.label();
        // What the host ran in those gaps, from the Python sampler: the line the finding names.
        const auto& lines = context.thresholds.sampledLines;
        const auto named = namedLines(gap.sampledLines, gap.samples, lines.minSamples,
                                      lines.minLineShare, lines.maxLines);
        if (!named.empty()) {
            text += "; sampled, the host was at " + sampledLinesText(context, named, gap.samples);
            site = context.samples.lines()[named.front().first];
        }
    }
    return text;
}

} // namespace

void straggler(const AnalysisContext& context, std::vector<Insight>& out) {
    const auto& t = context.thresholds.straggler;
    CollectiveMatch match;
    match.build(context.session, context.windowStartNs, context.windowEndNs);
    const auto& collectives = match.collectives();
    const auto& ranks = match.ranks();
    if (static_cast<int64_t>(collectives.size()) < std::max<int64_t>(t.minCollectives, 1))
        return;

    // Who arrived last at each collective, and how long after the second-latest rank. Only
    // collectives the ranks reached apart count: the ones queued behind a contended collective
    // (DDP's later gradient buckets of a step) start when it ends, on every rank alike.
    std::vector<int64_t> lastCount(ranks.size()), latenessNs(ranks.size());
    std::vector<size_t> lastOf(collectives.size());
    std::vector<int64_t> lateBy(collectives.size());
    std::vector<bool> contended(collectives.size());
    int64_t contendedCount = 0;
    for (size_t c = 0; c < collectives.size(); ++c) {
        const auto& arrivals = collectives[c].ranks;
        size_t last = 0;
        for (size_t r = 1; r < arrivals.size(); ++r)
            if (arrivals[r].arrivalNs > arrivals[last].arrivalNs)
                last = r;
        int64_t second = kNoTime;
        for (size_t r = 0; r < arrivals.size(); ++r)
            if (r != last)
                second = std::max(second, arrivals[r].arrivalNs);
        lastOf[c] = last;
        lateBy[c] = arrivals[last].arrivalNs - second;
        contended[c] = lateBy[c] >= t.contendedNs;
        if (!contended[c])
            continue;
        ++contendedCount;
        ++lastCount[last];
        latenessNs[last] += lateBy[c];
    }
    if (contendedCount < std::max<int64_t>(t.minCollectives, 1))
        return;
    const size_t s = static_cast<size_t>(std::max_element(lastCount.begin(), lastCount.end()) -
                                         lastCount.begin());
    // The time between its contended collectives, on average: a step when there is one a step,
    // and a share of it when a step has several (DDP's gradient buckets) — where the median
    // would be the short gap between two buckets.
    size_t firstContended = collectives.size(), lastContended = 0;
    for (size_t c = 0; c < collectives.size(); ++c)
        if (contended[c]) {
            firstContended = std::min(firstContended, c);
            lastContended = c;
        }
    const int64_t periodNs = contendedCount < 2 ? 0
                                                : (collectives[lastContended].ranks[s].endNs -
                                                   collectives[firstContended].ranks[s].endNs) /
                                                      (contendedCount - 1);
    StragglerNumbers numbers;
    numbers.processIndex = ranks[s].processIndex;
    numbers.label = ranks[s].label;
    numbers.collectives = contendedCount;
    numbers.matchedCollectives = static_cast<int64_t>(collectives.size());
    numbers.lastCollectives = lastCount[s];
    numbers.meanLatenessNs = latenessNs[s] / std::max<int64_t>(lastCount[s], 1);
    numbers.periodNs = periodNs;
    const double lastShare =
        static_cast<double>(lastCount[s]) / static_cast<double>(contendedCount);
    if (lastShare < t.minLastShare || numbers.meanLatenessNs < t.minLatenessNs ||
        static_cast<double>(numbers.meanLatenessNs) <
            t.minLatenessShareOfPeriod * static_cast<double>(numbers.periodNs))
        return;

    // The others' wait and the late rank's cause, over the collectives it was last at.
    std::vector<TimeSpans> waitSpans(ranks.size());
    TimeSpans lateSpans; // from the next-latest rank's arrival to the late rank's
    CauseFinder finder(context, ranks[s].processIndex);
    CauseTally tally;
    int64_t previousEnd = kNoTime;
    EventSpans spans;
    std::vector<EventSpans> kernelsByRank(ranks.size());
    for (size_t c = 0; c < collectives.size(); ++c) {
        const auto& arrivals = collectives[c].ranks;
        if (lastOf[c] == s && contended[c]) {
            lateSpans.emplace_back(arrivals[s].arrivalNs - lateBy[c], arrivals[s].arrivalNs);
            for (size_t r = 0; r < ranks.size(); ++r) {
                waitSpans[r].emplace_back(arrivals[r].arrivalNs, arrivals[s].arrivalNs);
                const EventRef kernel{EventKind::Kernel, arrivals[r].streamLane, 0,
                                      arrivals[r].kernel};
                EventSpans& mine = kernelsByRank[r];
                if (!mine.empty() && mine.back().at(mine.back().count) == kernel)
                    ++mine.back().count;
                else
                    mine.push_back({kernel, 1});
            }
            // Not before the window: the first collective's search would otherwise reach back
            // into start-up (seconds of imports and NCCL set-up) and name that.
            finder.add(arrivals[s], std::max(previousEnd, context.windowStartNs), lateBy[c], tally);
        }
        previousEnd = std::max(previousEnd, arrivals[s].endNs);
        if (context.cancelled())
            return;
    }
    for (size_t r = 0; r < ranks.size(); ++r) {
        spans.insert(spans.end(), kernelsByRank[r].begin(), kernelsByRank[r].end());
        if (r == s)
            continue;
        const int64_t waitNs =
            coveredNs(std::move(waitSpans[r]), context.windowStartNs, context.windowEndNs);
        numbers.waitNs += waitNs;
        numbers.waits.push_back({ranks[r].label, waitNs, context.shareOf(waitNs)});
    }
    numbers.waitShare = context.shareOf(numbers.waitNs) /
                        static_cast<double>(std::max<size_t>(ranks.size() - 1, 1));

    Insight insight;
    insight.rule = InsightRule::Straggler;
    insight.rules = {InsightRule::Straggler};
    insight.site = {"", 0, numbers.label, context.language};
    numbers.cause = describeCause(context, tally, insight.site);
    insight.count = numbers.lastCollectives;
    insight.blockedNs = numbers.waitNs;
    insight.kernelCount = numbers.collectives;
    for (size_t c = 0; c < collectives.size(); ++c)
        if (lastOf[c] == s) {
            if (insight.startNs == 0)
                insight.startNs = collectives[c].ranks[s].arrivalNs;
            insight.endNs = collectives[c].ranks[s].endNs;
        }
    // Were it on time, each collective it was last at would end when the next-latest rank
    // arrived (plus the transfer): the run gets that much shorter.
    insight.assumption = "if " + numbers.label + " arrived with the next-latest rank";
    // The others' wait inside their collective kernels counts as GPU busy time: the fix removes it.
    context.rateBySavings(
        insight, coveredNs(std::move(lateSpans), context.windowStartNs, context.windowEndNs),
        numbers.waitNs);
    insight.recommendation = recommendationFor(InsightRule::Straggler, context.language);
    insight.title = "Straggler: " + numbers.label + " arrived last at " +
                    formatCount(numbers.lastCollectives) + " of " +
                    formatCount(numbers.collectives) + " collectives (" +
                    formatDuration(numbers.meanLatenessNs) + " late on average)";
    std::string text =
        numbers.label + " arrived last at " + formatCount(numbers.lastCollectives) + " of the " +
        formatCount(numbers.collectives) + " collectives the ranks reached apart (of " +
        formatCount(numbers.matchedCollectives) + " matched), a mean " +
        formatDuration(numbers.meanLatenessNs) + " after the next-latest rank (" +
        formatShare(static_cast<double>(numbers.meanLatenessNs) /
                    static_cast<double>(std::max<int64_t>(numbers.periodNs, 1))) +
        " of the " + formatDuration(numbers.periodNs) +
        " between its collectives); the other ranks waited " + formatDuration(numbers.waitNs) +
        " for it inside them (" + formatShare(numbers.waitShare) + " of their window";
    for (size_t w = 0; w < numbers.waits.size(); ++w)
        text += (w == 0 ? ": " : ", ") + numbers.waits[w].label + " " +
                formatDuration(numbers.waits[w].waitNs);
    text += "). Cause on " + numbers.label + ": " +
            (numbers.cause.empty() ? std::string("not found") : numbers.cause) +
            ". Estimated: " + formatDuration(insight.savingsNs) + " sooner (" +
            formatShare(insight.share) + " of the window) " + insight.assumption;
    insight.evidence = std::move(text);
    insight.straggler = std::move(numbers);
    insight.eventCount = eventCount(spans);
    insight.events = std::make_shared<const EventSpans>(std::move(spans));
    out.push_back(std::move(insight));
}

} // namespace insight_rules

} // namespace stallscope::model
