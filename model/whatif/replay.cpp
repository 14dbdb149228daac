#include "model/whatif/replay.h"

#include "format/session_meta.h"
#include "format/session_schema.h"
#include "model/whatif/replay_constraints.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace stallscope::model::whatif {

namespace {

using format::SyncKind;
using replay_detail::Constraints;
using replay_detail::kUnset;
using replay_detail::plus;

bool isCopyKind(uint8_t kind) {
    return kind == static_cast<uint8_t>(SyncKind::PageableCopy) ||
           kind == static_cast<uint8_t>(SyncKind::BlockingCopy) ||
           kind == static_cast<uint8_t>(SyncKind::BlockingMemset);
}

class Replay {
public:
    Replay(const RunGraph& graph, const WhatIf& changes, const ReplayOptions& options)
        : m_graph(graph), m_session(graph.session()), m_options(options),
          m_latencies(graph.latencies()), m_stepShift(graph.stepCount(), kUnset),
          m_opShift(graph.opCount(), kUnset), m_stepEndShift(graph.handoffTargets().size(), kUnset),
          m_opStartShift(options.keepShifts ? graph.opCount() : 0, kUnset), m_changes(changes),
          m_hosts(graph.threads().size()), m_streams(graph.streams().size()),
          m_removed(graph.threads().size()), m_narrowed(graph.threads().size()),
          m_graphed(graph.threads().size()), m_busyNs(m_session.devices.size(), 0) {
        for (const EventRef& sync : changes.removedSyncs)
            if (sync.kind == EventKind::Sync && sync.lane >= 0 &&
                static_cast<size_t>(sync.lane) < m_removed.size())
                m_removed[sync.lane].push_back(sync.index);
        for (const EventRef& sync : changes.narrowedSyncs)
            if (sync.kind == EventKind::Sync && sync.lane >= 0 &&
                static_cast<size_t>(sync.lane) < m_narrowed.size())
                m_narrowed[sync.lane].push_back(sync.index);
        m_removedCalls = changes.removedCalls;
        std::sort(m_removedCalls.begin(), m_removedCalls.end());
        m_removedLaunches = changes.removedLaunches;
        std::sort(m_removedLaunches.begin(), m_removedLaunches.end());
        m_removedOps = changes.removedOps;
        std::sort(m_removedOps.begin(), m_removedOps.end());
        for (auto* lanes : {&m_removed, &m_narrowed})
            for (std::vector<uint32_t>& syncs : *lanes) {
                std::sort(syncs.begin(), syncs.end());
                syncs.erase(std::unique(syncs.begin(), syncs.end()), syncs.end());
            }
        if (changes.pinRemovedCopies)
            for (size_t l = 0; l < m_removed.size(); ++l)
                for (uint32_t sync : m_removed[l])
                    if (sync < m_session.hostLanes[l].syncs.size() &&
                        m_session.hostLanes[l].syncs.kind[sync] ==
                            static_cast<uint8_t>(SyncKind::PageableCopy))
                        for (uint32_t op : graph.awaited(static_cast<int32_t>(l), sync))
                            m_pinned.push_back(op);
        std::sort(m_pinned.begin(), m_pinned.end());
        for (const StepRange& range : changes.graphedSteps) {
            if (range.first >= range.last || range.last >= graph.stepCount())
                continue;
            const int32_t lane = graph.locateStep(range.first).first;
            if (graph.locateStep(range.last).first == lane)
                m_graphed[lane].push_back(range);
        }
        for (std::vector<StepRange>& ranges : m_graphed) { // sorted; overlapping ones are one
            std::sort(ranges.begin(), ranges.end(),
                      [](const StepRange& a, const StepRange& b) { return a.first < b.first; });
            std::vector<StepRange> merged;
            for (const StepRange& range : ranges)
                if (!merged.empty() && range.first <= merged.back().last)
                    merged.back().last = std::max(merged.back().last, range.last);
                else
                    merged.push_back(range);
            ranges = std::move(merged);
            if (!ranges.empty())
                m_stepGraphed.resize(graph.stepCount(), 0);
        }
    }

    ReplayResult run() {
        ReplayResult result;
        size_t sinceCheck = 0;
        for (;;) {
            bool progress = false, done = true;
            for (size_t l = 0; l < m_hosts.size(); ++l) {
                progress |= advanceHost(static_cast<int32_t>(l), false);
                done &= m_hosts[l].step == m_graph.threads()[l].steps.size();
            }
            for (size_t l = 0; l < m_streams.size(); ++l) {
                progress |= advanceStream(static_cast<int32_t>(l), false);
                done &= m_streams[l].op == m_graph.streams()[l].ops.size();
            }
            if (done)
                break;
            if (!progress)
                forceEarliest();
            if (++sinceCheck % 64 == 0 && m_options.cancel &&
                m_options.cancel->load(std::memory_order_relaxed)) {
                result.cancelled = true;
                return result;
            }
        }
        result.windowEndNs = m_windowEnd;
        result.forcedNodes = m_forced;
        result.gpuTimeRemovedNs = m_gpuTimeRemoved;
        result.busyNsPerDevice = std::move(m_busyNs);
        if (m_windowFirstOpStart != std::numeric_limits<int64_t>::max()) {
            result.windowFirstOpStartNs = m_windowFirstOpStart;
            result.recordedWindowFirstOpStartNs = m_recordedWindowFirstOpStart;
        }
        result.recordedWindowEndNs = m_recordedWindowEnd;
        if (m_options.keepShifts) {
            result.stepShift = std::move(m_stepShift);
            result.opEndShift = std::move(m_opShift);
            result.opStartShift = std::move(m_opStartShift);
        }
        return result;
    }

private:
    struct HostState {
        uint32_t step = 0;
        uint32_t sync = 0;
        size_t removedCursor = 0;
        size_t targetCursor = 0;  // into RunGraph::handoffTargets
        size_t handoffCursor = 0; // into RunGraph::handoffs
        size_t graphedCursor = 0; // into m_graphed[lane]
        bool inStep = false;
        bool collapse = false;
        bool graphed = false; // the step is part of a CUDA graph launched by an earlier step
        bool afterBlockingSync = false; // the previous step held a host-blocking sync
        bool removedInStep = false;     // the current step holds a removed sync
        bool afterRemovedSync = false;  // the previous step held one
        int64_t time = kUnset;          // replayed end of the previous step
        int64_t recordedPrevEnd = 0;    // its recorded end
        int64_t cursor = 0;             // replayed time reached inside the current step
        int64_t recordedCursor = 0;     // the recorded time it corresponds to
    };
    struct StreamState {
        uint32_t op = 0;
        size_t pinnedCursor = 0;
        size_t removedOpCursor = 0;
        size_t dependencyCursor = 0; // into RunGraph::eventDependencies
        size_t followerCursor = 0;   // into RunGraph::deviceFollowers
        int64_t previousEnd = 0, previousReplayedEnd = 0;
    };

    bool inWindow(int64_t recordedEnd) const {
        return recordedEnd >= m_options.windowStartNs && recordedEnd <= m_options.windowEndNs;
    }

    void noteEnd(int64_t recordedEnd, int64_t replayedEnd) {
        if (inWindow(recordedEnd)) {
            m_windowEnd = std::max(m_windowEnd, replayedEnd);
            m_recordedWindowEnd = std::max(m_recordedWindowEnd, recordedEnd);
        }
    }

    // A dependency's replayed shift; none while it is not replayed yet, unless `force`: then its
    // recorded time (shift 0), counted in ReplayResult::forcedNodes.
    std::optional<int64_t> resolved(int64_t shift, bool force) {
        if (shift != kUnset)
            return shift;
        if (!force)
            return std::nullopt;
        ++m_forced;
        return 0;
    }

    // Whether `key` is in `sorted`, for keys that only grow: the cursor keeps its place.
    static bool containsAt(const std::vector<uint32_t>& sorted, size_t& cursor, uint32_t key) {
        while (cursor < sorted.size() && sorted[cursor] < key)
            ++cursor;
        return cursor < sorted.size() && sorted[cursor] == key;
    }

    static bool contains(const std::vector<uint32_t>& sorted, uint32_t step) {
        return !sorted.empty() && std::binary_search(sorted.begin(), sorted.end(), step);
    }
    bool isRemovedLaunch(uint32_t step) const { return contains(m_removedLaunches, step); }

    bool isRemoved(int32_t lane, uint32_t sync) {
        return containsAt(m_removed[lane], m_hosts[lane].removedCursor, sync);
    }

    // Replays host steps of `lane` until one waits for an operation not replayed yet. With
    // `force`, the first step goes ahead anyway (its unresolved waits at their recorded times).
    bool advanceHost(int32_t lane, bool force) {
        const RunGraph::HostThread& thread = m_graph.threads()[lane];
        const SyncColumns& syncs = m_session.hostLanes[lane].syncs;
        HostState& h = m_hosts[lane];
        bool progressed = false;
        while (h.step < thread.steps.size()) {
            if (!h.inStep) {
                const uint32_t step = thread.firstStep + h.step;
                const int64_t recordedStart = m_graph.stepStart(lane, h.step);
                int64_t cpu = std::max<int64_t>(0, recordedStart - h.recordedPrevEnd);
                // A removed sync statement takes its own CPU time with it (Python's wrapper
                // around the call): the thread's typical time between two calls, at most.
                if (m_changes.removeStatementTime && collapsesStep(lane, h.step))
                    cpu -= std::min(cpu, thread.medianGapNs);
                if (h.afterRemovedSync)
                    cpu -= std::llround(static_cast<double>(cpu) *
                                        std::clamp(m_changes.statementShareAfter, 0.0, 1.0));
                if (!m_graphed[lane].empty()) {
                    // A graph cannot wait for the host: a step that does keeps its time, and the
                    // next one launches a new graph.
                    const GraphRole role = graphRoleOf(lane, step);
                    const bool blocks = holdsBlockingSync(lane, h.step);
                    h.graphed = role == GraphRole::Later && !blocks && !h.afterBlockingSync;
                    h.afterBlockingSync = blocks;
                    // The step that launches a graph stands for the graph's launch, not for its
                    // first operation's: the CPU time before it loses that operation's dispatch
                    // (Python's, which a graph replay does not run), the thread's typical time
                    // between two calls at most, as a removed sync statement does.
                    if (role != GraphRole::None && !blocks && !h.graphed)
                        cpu -= std::min(cpu, thread.medianGapNs);
                }
                if (h.graphed) {
                    cpu = 0;
                    m_stepGraphed[step] = 1;
                }
                if (isRemovedLaunch(step))
                    cpu = 0;
                int64_t start = h.time == kUnset ? recordedStart : plus(h.time, cpu);
                if (const uint32_t waitedFor = nextPair(m_graph.handoffs(), h.handoffCursor, step);
                    waitedFor != kNone && !h.graphed) {
                    // The thread waited for another one: CPU work follows that step's end.
                    const std::optional<int64_t> shift = resolved(
                        m_stepEndShift[m_graph.handoffTargetIndex(h.handoffCursor)], force);
                    if (!shift)
                        return progressed;
                    const auto [otherLane, otherStep] = m_graph.locateStep(waitedFor);
                    const int64_t otherEnd = m_graph.stepEnd(otherLane, otherStep);
                    start =
                        plus(std::max(h.time == kUnset ? start : h.time, plus(otherEnd, *shift)),
                             recordedStart - otherEnd);
                }
                m_stepShift[step] = start - recordedStart;
                h.inStep = true;
                h.collapse = false;
                h.removedInStep = false;
                h.cursor = start;
                h.recordedCursor = recordedStart;
                progressed = true;
            }
            for (; h.sync < syncs.size() && thread.stepOfSync[h.sync] <= h.step; ++h.sync) {
                const uint32_t s = h.sync;
                if (!isHostBlocking(syncs.kind[s]))
                    continue; // a stream wait: its time stays part of the step
                // The sync's interval clipped to its step (CUPTI's sync records may start a
                // little before the call that made them, or end a little after it).
                const int64_t recordedStep = m_graph.stepEnd(lane, h.step);
                const int64_t syncEnd = std::min(syncs.end[s], recordedStep);
                const int64_t before = std::max<int64_t>(0, syncs.start[s] - h.recordedCursor);
                if (isRemoved(lane, s)) {
                    h.removedInStep = true;
                    h.cursor = plus(h.cursor, before);
                    // A sync call disappears with its wait; a copy call stays, asynchronous.
                    h.collapse |= !isCopyKind(syncs.kind[s]);
                } else {
                    int64_t awaitedEnd = kUnset, awaitedReplayedEnd = kUnset;
                    const bool narrowed =
                        std::binary_search(m_narrowed[lane].begin(), m_narrowed[lane].end(), s);
                    const int32_t ownStream = narrowed ? m_graph.ownStreamOf(lane, s) : -1;
                    int64_t skippedEnd = kUnset; // the latest end of the work no longer awaited
                    for (uint32_t op : m_graph.awaited(lane, s)) {
                        const auto [opLane, k] = m_graph.locateOp(op);
                        const int64_t recordedEnd = m_graph.opEnd(opLane, k);
                        if (narrowed && opLane != ownStream) {
                            skippedEnd = std::max(skippedEnd, recordedEnd);
                            continue;
                        }
                        const std::optional<int64_t> shift = resolved(m_opShift[op], force);
                        if (!shift)
                            return progressed;
                        awaitedEnd = std::max(awaitedEnd, recordedEnd);
                        awaitedReplayedEnd =
                            std::max(awaitedReplayedEnd, plus(recordedEnd, *shift));
                    }
                    force = false;
                    h.cursor = plus(h.cursor, before);
                    if (skippedEnd != kUnset && skippedEnd > awaitedEnd) {
                        // The work that held the recorded sync is no longer awaited: the
                        // narrowed sync returns after its own work, with the typical delays.
                        h.cursor = plus(h.cursor, m_latencies.syncOverheadNs);
                        if (awaitedEnd != kUnset)
                            h.cursor =
                                std::max(h.cursor, plus(awaitedReplayedEnd, m_latencies.wakeNs));
                    } else {
                        Constraints end(syncEnd);
                        end.add(plus(h.recordedCursor, before), h.cursor,
                                m_latencies.syncOverheadNs);
                        if (awaitedEnd != kUnset)
                            end.add(awaitedEnd, awaitedReplayedEnd, m_latencies.wakeNs);
                        h.cursor = std::max(h.cursor, end.replayed());
                    }
                }
                h.recordedCursor = std::max(h.recordedCursor, syncEnd);
            }
            const int64_t recordedEnd = m_graph.stepEnd(lane, h.step);
            int64_t rest = std::max<int64_t>(0, recordedEnd - h.recordedCursor);
            if (const uint32_t global = thread.firstStep + h.step;
                isRemovedLaunch(global) || contains(m_removedCalls, global))
                rest = 0; // a call taken out of the loop: its own time goes
            if (m_changes.withoutRecorderOverhead &&
                m_graph.launchesWork(thread.firstStep + h.step))
                rest -= std::min(rest, m_latencies.recorderLaunchNs);
            int64_t end = plus(h.cursor, rest);
            if (h.collapse || h.graphed)
                end = plus(m_graph.stepStart(lane, h.step), m_stepShift[thread.firstStep + h.step]);
            noteEnd(recordedEnd, end);
            // Hand-off targets in step order: this lane's cursor walks along with its steps.
            if (containsAt(m_graph.handoffTargets(), h.targetCursor, thread.firstStep + h.step))
                m_stepEndShift[h.targetCursor] = end - recordedEnd;
            h.time = end;
            h.afterRemovedSync = h.removedInStep;
            h.recordedPrevEnd = recordedEnd;
            h.inStep = false;
            ++h.step;
            progressed = true;
            force = false;
        }
        return progressed;
    }

    // The second of the pair whose first is `key` in a list sorted by first (kNone when none),
    // for keys that only grow: the cursor keeps its place between calls.
    static uint32_t nextPair(const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
                             size_t& cursor, uint32_t key) {
        while (cursor < pairs.size() && pairs[cursor].first < key)
            ++cursor;
        return cursor < pairs.size() && pairs[cursor].first == key ? pairs[cursor].second : kNone;
    }

    // True when the step holds a removed sync whose call disappears with it.
    bool collapsesStep(int32_t lane, uint32_t step) {
        const RunGraph::HostThread& thread = m_graph.threads()[lane];
        const SyncColumns& syncs = m_session.hostLanes[lane].syncs;
        for (uint32_t s = m_hosts[lane].sync; s < syncs.size() && thread.stepOfSync[s] <= step; ++s)
            if (thread.stepOfSync[s] == step && isHostBlocking(syncs.kind[s]) &&
                !isCopyKind(syncs.kind[s]) && isRemoved(lane, s))
                return true;
        return false;
    }

    // Where global step `step` lies in its lane's graphed ranges (WhatIf::graphedSteps): outside
    // them, the first step of one (the graph's launch) or a later one. For steps that only grow:
    // the cursor keeps its place.
    enum class GraphRole : uint8_t { None, First, Later };
    GraphRole graphRoleOf(int32_t lane, uint32_t step) {
        const std::vector<StepRange>& ranges = m_graphed[lane];
        size_t& cursor = m_hosts[lane].graphedCursor;
        while (cursor < ranges.size() && ranges[cursor].last < step)
            ++cursor;
        if (cursor == ranges.size() || ranges[cursor].first > step)
            return GraphRole::None;
        return ranges[cursor].first == step ? GraphRole::First : GraphRole::Later;
    }

    // True when the lane-local step holds a host-blocking sync that still waits. (A search, not
    // isRemoved's cursor: collapsesStep may have moved that past this step's syncs.)
    bool holdsBlockingSync(int32_t lane, uint32_t step) const {
        const RunGraph::HostThread& thread = m_graph.threads()[lane];
        const SyncColumns& syncs = m_session.hostLanes[lane].syncs;
        const std::vector<uint32_t>& removed = m_removed[lane];
        for (uint32_t s = m_hosts[lane].sync; s < syncs.size() && thread.stepOfSync[s] <= step; ++s)
            if (thread.stepOfSync[s] == step && isHostBlocking(syncs.kind[s]) &&
                !std::binary_search(removed.begin(), removed.end(), s))
                return true;
        return false;
    }

    bool isPinned(int32_t lane, uint32_t op) {
        return containsAt(m_pinned, m_streams[lane].pinnedCursor, op);
    }

    // Adds "after operation `prior` ends" to `begin` (nothing for kNone); false while `prior` has
    // not been replayed yet.
    bool afterOperation(uint32_t prior, Constraints& begin, bool force) {
        if (prior == kNone)
            return true;
        const auto [lane, j] = m_graph.locateOp(prior);
        const int64_t priorEnd = m_graph.opEnd(lane, j);
        const std::optional<int64_t> shift = resolved(m_opShift[prior], force);
        if (!shift)
            return false;
        begin.add(priorEnd, plus(priorEnd, *shift), m_latencies.queueGapNs);
        return true;
    }

    // Replays operations of stream `lane` until one needs a launch or event not replayed yet.
    bool advanceStream(int32_t lane, bool force) {
        const RunGraph::Stream& stream = m_graph.streams()[lane];
        StreamState& st = m_streams[lane];
        bool progressed = false;
        for (; st.op < stream.ops.size(); ++st.op) {
            const uint32_t k = st.op;
            const uint32_t op = stream.firstOp + k;
            const int64_t start = m_graph.opStart(lane, k);
            const int64_t end = m_graph.opEnd(lane, k);
            Constraints begin(start);
            // An operation of a CUDA graph (launched by a graphed step) follows its predecessor
            // at the graph's spacing, once the graph has been launched: not at recorded delays.
            const uint32_t launchStep = m_graph.launchStep(op);
            // (flagged when the step is replayed, which its operations wait for)
            const bool graphed =
                launchStep != kNone && !m_stepGraphed.empty() && m_stepGraphed[launchStep] != 0;
            int64_t graphFloor = kUnset;
            if (launchStep != kNone) {
                const std::optional<int64_t> shift = resolved(m_stepShift[launchStep], force);
                if (!shift)
                    return progressed;
                const int64_t lag = m_graph.launchLag(op);
                const int64_t launched = start - lag;
                const int64_t sooner =
                    m_changes.withoutRecorderOverhead
                        ? std::min(m_latencies.recorderRestartNs, std::max<int64_t>(0, lag / 2))
                        : 0;
                if (graphed)
                    graphFloor =
                        plus(plus(launched, *shift),
                             std::min(std::max<int64_t>(0, lag), m_latencies.launchNs) - sooner);
                else
                    begin.add(launched, plus(launched, *shift) - sooner, m_latencies.launchNs);
            }
            // The operation its event marks; for a kernel that fills its GPU, the one before it
            // there.
            if (!afterOperation(nextPair(m_graph.eventDependencies(), st.dependencyCursor, op),
                                begin, force) ||
                !afterOperation(nextPair(m_graph.deviceFollowers(), st.followerCursor, op), begin,
                                force))
                return progressed;
            if (k > 0 && graphed)
                graphFloor =
                    std::max(graphFloor, plus(st.previousReplayedEnd, m_changes.graphGapNs));
            else if (k > 0)
                begin.add(st.previousEnd, plus(st.previousReplayedEnd, deepQueueDelay(lane, k)),
                          m_latencies.queueGapNs);
            force = false;
            const bool removedOp = containsAt(m_removedOps, st.removedOpCursor, op);
            const bool pinned = !removedOp && isPinned(lane, op);
            int64_t replayedStart = begin.empty() ? start : begin.replayed();
            if (removedOp && k > 0)
                replayedStart = st.previousReplayedEnd;
            if (graphed)
                replayedStart = begin.empty() ? graphFloor : std::max(replayedStart, graphFloor);
            int64_t duration = end - start;
            if (launchStep != kNone && isRemovedLaunch(launchStep))
                duration = 0; // replaced by the rewrite
            if (removedOp) {
                m_gpuTimeRemoved = plus(m_gpuTimeRemoved, duration);
                duration = 0;
            }
            if (pinned) {
                const int64_t pinnedNs = std::min(duration, pinnedCopyNs(m_graph.opBytes(lane, k)));
                m_gpuTimeRemoved = plus(m_gpuTimeRemoved, duration - pinnedNs);
                duration = pinnedNs;
            }
            if (inWindow(end)) {
                if (m_changes.kernelTimeScale != 1.0 &&
                    m_graph.opKind(lane, k) == RunGraph::OpKind::Kernel)
                    duration = scaled(duration, m_changes.kernelTimeScale);
                if (stream.device >= 0 && static_cast<size_t>(stream.device) < m_busyNs.size())
                    m_busyNs[stream.device] = plus(m_busyNs[stream.device], duration);
            }
            const int64_t replayedEnd = plus(replayedStart, duration);
            m_opShift[op] = replayedEnd - end;
            if (!m_opStartShift.empty())
                m_opStartShift[op] = replayedStart - start;
            noteEnd(end, replayedEnd);
            if (inWindow(end)) {
                m_windowFirstOpStart = std::min(m_windowFirstOpStart, replayedStart);
                m_recordedWindowFirstOpStart = std::min(m_recordedWindowFirstOpStart, start);
            }
            st.previousEnd = end;
            st.previousReplayedEnd = replayedEnd;
            progressed = true;
        }
        return progressed;
    }

    // The GPU starts a kernel later behind a deep queue (Latencies::deepQueueDelayNs): the delay
    // when kernel k of stream `lane` (after a kernel) has kDeepQueueLaunches launches queued at its
    // predecessor's end in this replay but not in the recording, minus it the other way round. A
    // launch not replayed yet keeps its recorded place (the host is further behind, or waiting).
    int64_t deepQueueDelay(int32_t lane, uint32_t k) const {
        constexpr uint32_t kBehind = format::meta::kDeepQueueLaunches - 1;
        const RunGraph::Stream& stream = m_graph.streams()[lane];
        if (m_latencies.deepQueueDelayNs == 0 || k + kBehind >= stream.ops.size() ||
            m_graph.opKind(lane, k) != RunGraph::OpKind::Kernel ||
            m_graph.opKind(lane, k - 1) != RunGraph::OpKind::Kernel)
            return 0;
        const uint32_t last = stream.firstOp + k + kBehind;
        const uint32_t step = m_graph.launchStep(last);
        if (step == kNone || m_stepShift[step] == kUnset)
            return 0;
        const int64_t launched = m_graph.opStart(lane, k + kBehind) - m_graph.launchLag(last);
        const bool wasDeep = launched <= m_streams[lane].previousEnd;
        const bool isDeep =
            plus(launched, m_stepShift[step]) <= m_streams[lane].previousReplayedEnd;
        return (isDeep - wasDeep) * m_latencies.deepQueueDelayNs;
    }

    // A duration times a factor, saturated like every replayed time (the factor comes from a
    // file's meta: one that is not a positive number leaves the duration as it is).
    static int64_t scaled(int64_t duration, double factor) {
        if (!(factor > 0.0) || !std::isfinite(factor))
            return duration;
        const double value = static_cast<double>(duration) * factor;
        return value >= 0x1p62 ? int64_t{1} << 62 : static_cast<int64_t>(value);
    }

    int64_t pinnedCopyNs(uint64_t bytes) const {
        return static_cast<int64_t>(static_cast<double>(bytes) / m_latencies.pinnedBytesPerSecond *
                                    1e9) +
               m_latencies.queueGapNs;
    }

    // No lane can go on: inconsistent data (a sync recorded before the work it awaited, clocks
    // out of step). The lane whose next event was recorded earliest goes ahead.
    void forceEarliest() {
        int64_t best = std::numeric_limits<int64_t>::max();
        int32_t bestLane = -1;
        bool bestIsHost = true;
        for (size_t l = 0; l < m_hosts.size(); ++l) {
            const HostState& h = m_hosts[l];
            if (h.step < m_graph.threads()[l].steps.size()) {
                const int64_t t = h.inStep ? h.recordedCursor
                                           : m_graph.stepStart(static_cast<int32_t>(l), h.step);
                if (t < best) {
                    best = t;
                    bestLane = static_cast<int32_t>(l);
                    bestIsHost = true;
                }
            }
        }
        for (size_t l = 0; l < m_streams.size(); ++l)
            if (m_streams[l].op < m_graph.streams()[l].ops.size()) {
                const int64_t t = m_graph.opStart(static_cast<int32_t>(l), m_streams[l].op);
                if (t < best) {
                    best = t;
                    bestLane = static_cast<int32_t>(l);
                    bestIsHost = false;
                }
            }
        if (bestLane < 0)
            return;
        if (bestIsHost)
            advanceHost(bestLane, true);
        else
            advanceStream(bestLane, true);
    }

    const RunGraph& m_graph;
    const Session& m_session;
    const ReplayOptions& m_options;
    const Latencies& m_latencies;
    std::vector<int64_t> m_stepShift;
    std::vector<int64_t> m_opShift;
    std::vector<int64_t> m_stepEndShift; // per hand-off target (RunGraph::handoffTargets)
    std::vector<int64_t> m_opStartShift; // only with keepShifts
    const WhatIf& m_changes;
    std::vector<HostState> m_hosts;
    std::vector<StreamState> m_streams;
    std::vector<std::vector<uint32_t>> m_removed;  // per host lane, sorted sync indexes
    std::vector<std::vector<uint32_t>> m_narrowed; // per host lane, sorted sync indexes
    std::vector<uint32_t> m_removedCalls;          // global step ids, sorted
    std::vector<uint32_t> m_removedLaunches;       // global step ids, sorted
    std::vector<uint32_t> m_pinned;                // global operation ids, sorted
    std::vector<uint32_t> m_removedOps;            // global operation ids, sorted
    std::vector<std::vector<StepRange>> m_graphed; // per host lane, sorted, disjoint
    std::vector<char> m_stepGraphed; // per global step once replayed (only with graphedSteps)
    int64_t m_windowEnd = kUnset, m_recordedWindowEnd = kUnset;
    int64_t m_forced = 0;
    int64_t m_gpuTimeRemoved = 0;
    std::vector<int64_t> m_busyNs; // per device, operations ending in the window
    int64_t m_windowFirstOpStart = std::numeric_limits<int64_t>::max();
    int64_t m_recordedWindowFirstOpStart = std::numeric_limits<int64_t>::max();
};

} // namespace

ReplayResult Replayer::replay(const WhatIf& changes, const ReplayOptions& options) const {
    return Replay(m_graph, changes, options).run();
}

} // namespace stallscope::model::whatif
