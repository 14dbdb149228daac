// RunGraph built from a session (RunGraph::build): each host thread's steps, each stream's
// operations and what they wait for, the hand-offs between threads, and the latencies the replay
// calibrates with, read off the recording.
#include "model/whatif/run_graph.h"

#include "model/session/event_ref.h"
#include "model/whatif/correlation_map.h"
#include "model/whatif/inferred_launches.h"
#include "model/whatif/kernel_device_sharing.h"
#include "model/whatif/median_sample.h"
#include "model/whatif/pinned_copy_rate.h"

#include <algorithm>
#include <limits>
#include <thread>
#include <unordered_map>

namespace stallscope::model::whatif {

namespace {

using format::SyncKind;

// A correlation id's launch: the global step of the outermost API call that carries it, and the
// call (its index in its thread's API calls). 8 bytes: the table is as large as the id range.
struct Launch {
    uint32_t step = kNone;
    uint32_t call = 0;
    bool empty() const { return step == kNone; }
};

} // namespace

struct RunGraph::Builder {
    Builder(RunGraph& graph, const Session& session) : graph(graph), session(session) {}

    RunGraph& graph;
    const Session& session;
    std::span<const CudaEventInfo> cudaEvents;
    std::vector<int32_t> processOfLane; // per host lane
    std::vector<int32_t> streamLaneOf;  // per Session::streams entry, -1 without a lane
    std::vector<std::vector<int32_t>> lanesOfProcess; // stream lanes per process
    std::vector<CorrelationMap<Launch>> launches;     // per process
    InferredLaunches inferred; // processes without API calls (light recordings)
    std::vector<CorrelationMap<CorrelatedIndex>> transferByCorrelation;       // per process
    std::vector<std::unordered_map<int64_t, const CudaEventInfo*>> eventById; // per process
    std::unordered_map<int64_t, int32_t> streamLaneOfRow; // streams.id -> stream lane
    mutable std::vector<uint32_t> searchHint; // per stream lane (firstOpStartingAtOrAfter)

    int64_t callStart(const Launch& launch) const {
        return session.hostLanes[graph.locateStep(launch.step).first].apiCalls.start[launch.call];
    }

    int32_t processOfStreamLane(size_t lane) const {
        const int32_t stream = session.streamLanes[lane].streamIndex;
        const int32_t device = stream < 0 ? -1 : session.streams[stream].deviceIndex;
        return device < 0 ? -1 : session.devices[device].processIndex;
    }

    void buildSteps() {
        uint32_t nextStep = 0;
        graph.m_threads.resize(session.hostLanes.size());
        processOfLane.resize(session.hostLanes.size(), -1);
        for (size_t l = 0; l < session.hostLanes.size(); ++l) {
            const HostLane& lane = session.hostLanes[l];
            HostThread& thread = graph.m_threads[l];
            if (lane.threadIndex >= 0)
                processOfLane[l] = session.threads[lane.threadIndex].processIndex;
            const ApiCallColumns& calls = lane.apiCalls;
            const SyncColumns& syncs = lane.syncs;
            // Top-level calls: a call starting inside the previous top-level call nests in it.
            std::vector<uint32_t> topCalls;
            int64_t topEnd = std::numeric_limits<int64_t>::min();
            for (size_t c = 0; c < calls.size(); ++c) {
                if (calls.start[c] < topEnd)
                    continue;
                topCalls.push_back(static_cast<uint32_t>(c));
                topEnd = calls.end[c];
            }
            // A sync belongs to the top-level call that made it (same correlation id; CUPTI's
            // sync records may start a little before the call) or else that encloses it; any
            // other sync is a step of its own.
            std::vector<uint32_t> topOfCall(calls.size());
            for (size_t c = 0, top = 0; c < calls.size(); ++c) {
                while (top + 1 < topCalls.size() && topCalls[top + 1] <= c)
                    ++top;
                topOfCall[c] = static_cast<uint32_t>(top);
            }
            CorrelationMap<CorrelatedIndex> firstCallOf;
            IdRange callIds;
            callIds.add(calls.correlationId);
            callIds.reserve(firstCallOf);
            for (size_t c = 0; c < calls.size(); ++c)
                firstCallOf.add(calls.correlationId[c], {static_cast<uint32_t>(c)});
            std::vector<uint32_t> containing(syncs.size(), kNone);
            for (size_t s = 0; s < syncs.size(); ++s) {
                if (const CorrelatedIndex* call = firstCallOf.find(syncs.correlationId[s])) {
                    containing[s] = topOfCall[call->value];
                    continue;
                }
                auto after = std::upper_bound(
                    topCalls.begin(), topCalls.end(), syncs.start[s],
                    [&](int64_t t, uint32_t call) { return t < calls.start[call]; });
                if (after != topCalls.begin() && syncs.end[s] <= calls.end[*(after - 1)])
                    containing[s] = static_cast<uint32_t>(after - 1 - topCalls.begin());
            }
            // Merge top-level calls and standalone syncs by start.
            std::vector<uint32_t> stepOfTopCall(topCalls.size());
            thread.firstStep = nextStep;
            thread.stepOfSync.assign(syncs.size(), kNone);
            size_t c = 0;
            for (size_t s = 0; s <= syncs.size(); ++s) {
                const bool standalone = s < syncs.size() && containing[s] == kNone;
                if (s < syncs.size() && !standalone)
                    continue;
                for (; c < topCalls.size() &&
                       (s == syncs.size() || calls.start[topCalls[c]] <= syncs.start[s]);
                     ++c) {
                    stepOfTopCall[c] = static_cast<uint32_t>(thread.steps.size());
                    thread.steps.push_back(topCalls[c]);
                }
                if (standalone) {
                    thread.stepOfSync[s] = static_cast<uint32_t>(thread.steps.size());
                    thread.steps.push_back(kSyncStep | static_cast<uint32_t>(s));
                }
            }
            uint32_t previous = 0;
            for (size_t s = 0; s < syncs.size(); ++s) {
                uint32_t step =
                    containing[s] == kNone ? thread.stepOfSync[s] : stepOfTopCall[containing[s]];
                // Keep the order the replay walks in; only inconsistent clocks break it.
                step = std::max(step, previous);
                thread.stepOfSync[s] = previous = step;
            }
            // Correlation id -> launching step, for every call (nested ones: their step).
            const int32_t process = processOfLane[l];
            if (process >= 0)
                for (size_t k = 0; k < calls.size(); ++k)
                    launches[process].add(
                        calls.correlationId[k],
                        {thread.firstStep + stepOfTopCall[topOfCall[k]], static_cast<uint32_t>(k)});
            nextStep += static_cast<uint32_t>(thread.steps.size());
        }
        graph.m_stepCount = nextStep;
    }

    void inferLaunches() {
        inferred.build(session, processOfLane, graph.m_threads);
        graph.m_launchesInferred = inferred.any();
    }

    void reserveLaunchMaps() {
        std::vector<IdRange> ranges(session.processes.size());
        for (size_t l = 0; l < session.hostLanes.size(); ++l) {
            const HostLane& lane = session.hostLanes[l];
            if (lane.threadIndex < 0)
                continue;
            const int32_t process = session.threads[lane.threadIndex].processIndex;
            if (process >= 0)
                ranges[process].add(lane.apiCalls.correlationId);
        }
        launches.resize(session.processes.size());
        for (size_t p = 0; p < ranges.size(); ++p)
            ranges[p].reserve(launches[p]);
    }

    void buildStreams() {
        graph.m_streams.resize(session.streamLanes.size());
        searchHint.assign(session.streamLanes.size(), 0);
        streamLaneOf.assign(session.streams.size(), -1);
        lanesOfProcess.resize(session.processes.size());
        transferByCorrelation.resize(session.processes.size());
        std::vector<IdRange> transferIds(session.processes.size());
        size_t opCount = 0;
        for (size_t l = 0; l < session.streamLanes.size(); ++l) {
            const StreamLane& lane = session.streamLanes[l];
            opCount += lane.kernels.size() + lane.memcpys.size() + lane.memsets.size();
            if (const int32_t process = processOfStreamLane(l); process >= 0) {
                transferIds[process].add(lane.memcpys.correlationId);
                transferIds[process].add(lane.memsets.correlationId);
            }
        }
        for (size_t p = 0; p < transferIds.size(); ++p)
            transferIds[p].reserve(transferByCorrelation[p]);
        graph.m_launchStep.reserve(opCount);
        graph.m_launchLag.reserve(opCount);
        uint32_t nextOp = 0;
        for (size_t l = 0; l < session.streamLanes.size(); ++l) {
            const StreamLane& lane = session.streamLanes[l];
            Stream& stream = graph.m_streams[l];
            if (lane.streamIndex >= 0) {
                streamLaneOf[lane.streamIndex] = static_cast<int32_t>(l);
                streamLaneOfRow[session.streams[lane.streamIndex].rowId] = static_cast<int32_t>(l);
                stream.device = session.streams[lane.streamIndex].deviceIndex;
            }
            const int32_t process = processOfStreamLane(l);
            if (process >= 0)
                lanesOfProcess[process].push_back(static_cast<int32_t>(l));
            stream.launchesInferred = inferred.infers(process);
            // FIFO order: the three kinds merged by start.
            const IntervalColumns* columns[] = {&lane.kernels, &lane.memcpys, &lane.memsets};
            size_t next[3] = {0, 0, 0};
            stream.firstOp = nextOp;
            stream.ops.reserve(lane.kernels.size() + lane.memcpys.size() + lane.memsets.size());
            for (;;) {
                int best = -1;
                for (int k = 0; k < 3; ++k)
                    if (next[k] < columns[k]->size() &&
                        (best < 0 || columns[k]->start[next[k]] < columns[best]->start[next[best]]))
                        best = k;
                if (best < 0)
                    break;
                stream.ops.push_back(static_cast<uint32_t>(best) << 30 |
                                     static_cast<uint32_t>(next[best]++));
            }
            for (uint32_t k = 0; k < stream.ops.size(); ++k) {
                uint32_t correlation = 0;
                switch (graph.opKind(static_cast<int32_t>(l), k)) {
                case OpKind::Kernel:
                    correlation = lane.kernels.correlationId[indexOf(stream.ops[k])];
                    break;
                case OpKind::Memcpy:
                    correlation = lane.memcpys.correlationId[indexOf(stream.ops[k])];
                    break;
                case OpKind::Memset:
                    correlation = lane.memsets.correlationId[indexOf(stream.ops[k])];
                    break;
                }
                uint32_t step = kNone;
                int64_t lag = 0;
                if (process >= 0) {
                    uint32_t launchStep = kNone;
                    if (const Launch* launch = launches[process].find(correlation)) {
                        launchStep = launch->step;
                        lag = graph.opStart(static_cast<int32_t>(l), k) - callStart(*launch);
                    } else if (const auto guess = inferred.find(process, correlation)) {
                        launchStep = guess->step;
                        lag = graph.opStart(static_cast<int32_t>(l), k) - guess->launchNs;
                    }
                    if (lag >= std::numeric_limits<int32_t>::min() &&
                        lag <= std::numeric_limits<int32_t>::max())
                        step = launchStep;
                    if (graph.opKind(static_cast<int32_t>(l), k) != OpKind::Kernel)
                        transferByCorrelation[process].add(correlation, {nextOp + k});
                }
                graph.m_launchStep.push_back(step);
                graph.m_launchLag.push_back(step == kNone ? 0 : static_cast<int32_t>(lag));
            }
            nextOp += static_cast<uint32_t>(stream.ops.size());
        }
    }

    // The recorded time the operation was launched (its start when the launch is unknown).
    int64_t launchedAt(int32_t lane, uint32_t k) const {
        const uint32_t op = graph.m_streams[lane].firstOp + k;
        return graph.opStart(lane, k) - graph.m_launchLag[op];
    }

    // Lane-local index of the first operation of a stream lane that starts at or after t. The
    // syncs ask in nearly ascending time: a search gallops from the lane's previous answer.
    uint32_t firstOpStartingAtOrAfter(int32_t lane, int64_t t) const {
        const auto count = static_cast<uint32_t>(graph.m_streams[lane].ops.size());
        uint32_t& hint = searchHint[lane];
        uint32_t lo = 0, hi = count;
        if (hint < count && graph.opStart(lane, hint) < t) {
            lo = hint + 1; // the answer is past the hint: probe 1, 2, 4, ... further on
            for (uint64_t step = 1;; step *= 2) {
                const uint64_t probe = lo + step - 1;
                if (probe >= count)
                    break;
                if (graph.opStart(lane, static_cast<uint32_t>(probe)) >= t) {
                    hi = static_cast<uint32_t>(probe);
                    break;
                }
                lo = static_cast<uint32_t>(probe) + 1;
            }
        } else if (hint <= count) {
            hi = hint; // the answer is at the hint or before it: probe back
            for (uint64_t step = 1; hi > 0; step *= 2) {
                const uint32_t probe = hi > step ? hi - static_cast<uint32_t>(step) : 0;
                if (graph.opStart(lane, probe) < t) {
                    lo = probe + 1;
                    break;
                }
                hi = probe;
            }
        }
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2;
            if (graph.opStart(lane, mid) < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        return hint = lo;
    }

    // The last operation of a stream lane launched at or before `launchedBy` that started
    // before `startedBy` (global id), kNone when none.
    uint32_t lastOpBefore(int32_t lane, int64_t launchedBy, int64_t startedBy) const {
        const Stream& stream = graph.m_streams[lane];
        uint32_t lo = firstOpStartingAtOrAfter(lane, startedBy);
        // Operations queued by other threads after the sync began do not count; FIFO order
        // keeps them at the end, so a short walk back finds the last one launched in time.
        for (int walked = 0; lo > 0 && walked < 64; ++walked, --lo)
            if (launchedAt(lane, lo - 1) <= launchedBy)
                return stream.firstOp + lo - 1;
        return kNone;
    }

    const CudaEventInfo* eventOf(int32_t process, int64_t eventId) const {
        if (process < 0 || eventId < 0)
            return nullptr;
        const auto& events = eventById[process];
        const auto found = events.find(eventId);
        return found == events.end() ? nullptr : found->second;
    }

    // The operation a recorded event marks: the last one of its stream launched before the
    // cudaEventRecord call (the record's own time when the call was not captured).
    uint32_t markedOp(int32_t process, const CudaEventInfo& event) const {
        const auto found = streamLaneOfRow.find(event.streamId);
        if (found == streamLaneOfRow.end())
            return kNone;
        const int32_t lane = found->second;
        int64_t launchedBy = event.recordNs;
        if (const Launch* launch =
                launches[process].find(static_cast<uint32_t>(event.correlationId)))
            launchedBy = callStart(*launch);
        // Every operation that started by then was launched before; queued ones launched
        // before it may start later: walk over them (the queue ahead of the record).
        const Stream& stream = graph.m_streams[lane];
        uint32_t k = firstOpStartingAtOrAfter(lane, launchedBy);
        while (k < stream.ops.size() && launchedAt(lane, k) <= launchedBy)
            ++k;
        return k == 0 ? kNone : stream.firstOp + k - 1;
    }

    void addAwaited(int32_t lane, size_t s, std::vector<uint32_t>& out) const {
        const SyncColumns& syncs = session.hostLanes[lane].syncs;
        const auto kind = static_cast<SyncKind>(syncs.kind[s]);
        const int32_t process = processOfLane[lane];
        const int64_t start = syncs.start[s], end = syncs.end[s];
        const int32_t streamLane =
            syncs.streamIndex[s] >= 0 ? streamLaneOf[syncs.streamIndex[s]] : -1;
        if (process < 0)
            return;
        auto push = [&out](uint32_t op) {
            if (op != kNone)
                out.push_back(op);
        };
        switch (kind) {
        case SyncKind::PageableCopy:
        case SyncKind::BlockingCopy:
        case SyncKind::BlockingMemset: {
            if (const CorrelatedIndex* transfer =
                    transferByCorrelation[process].find(syncs.correlationId[s])) {
                out.push_back(transfer->value);
                return;
            }
            break;
        }
        case SyncKind::Event:
            if (const CudaEventInfo* event = eventOf(process, syncs.eventId[s])) {
                push(markedOp(process, *event));
                return;
            }
            // Without the event record: the work that ended last while the host waited.
            {
                uint32_t best = kNone;
                int64_t bestEnd = start;
                for (int32_t l : lanesOfProcess[process]) {
                    const uint32_t op = lastOpBefore(l, start, end);
                    if (op == kNone)
                        continue;
                    const auto [opLane, k] = graph.locateOp(op);
                    const int64_t opEnd = graph.opEnd(opLane, k);
                    if (opEnd > bestEnd && opEnd <= end) {
                        bestEnd = opEnd;
                        best = op;
                    }
                }
                push(best);
            }
            return;
        default:
            break;
        }
        if (kind == SyncKind::Stream && streamLane >= 0) {
            push(lastOpBefore(streamLane, start, end));
            return;
        }
        // Device-wide: every stream of the device (of the process when no stream is named).
        const int32_t device = streamLane >= 0 ? graph.m_streams[streamLane].device : -1;
        for (int32_t l : lanesOfProcess[process])
            if (device < 0 || graph.m_streams[l].device == device)
                push(lastOpBefore(l, start, end));
    }

    void buildWaits() {
        eventById.resize(session.processes.size());
        for (const CudaEventInfo& event : cudaEvents) {
            const auto found = streamLaneOfRow.find(event.streamId);
            const int32_t process = found == streamLaneOfRow.end()
                                        ? -1
                                        : processOfStreamLane(static_cast<size_t>(found->second));
            if (process >= 0)
                eventById[process].emplace(event.eventId, &event);
        }
        for (size_t l = 0; l < session.hostLanes.size(); ++l) {
            const SyncColumns& syncs = session.hostLanes[l].syncs;
            HostThread& thread = graph.m_threads[l];
            thread.awaitedBegin.reserve(syncs.size() + 1);
            for (size_t s = 0; s < syncs.size(); ++s) {
                thread.awaitedBegin.push_back(static_cast<uint32_t>(graph.m_awaited.size()));
                if (model::isHostBlocking(syncs.kind[s]))
                    addAwaited(static_cast<int32_t>(l), s, graph.m_awaited);
                else
                    addEventDependency(static_cast<int32_t>(l), s);
            }
            thread.awaitedBegin.push_back(static_cast<uint32_t>(graph.m_awaited.size()));
        }
        std::sort(graph.m_eventDeps.begin(), graph.m_eventDeps.end());
    }

    // cudaStreamWaitEvent: the first operation of the waiting stream launched after the wait
    // depends on the operation the event marks.
    void addEventDependency(int32_t lane, size_t s) {
        const SyncColumns& syncs = session.hostLanes[lane].syncs;
        const int32_t process = processOfLane[lane];
        const CudaEventInfo* event = eventOf(process, syncs.eventId[s]);
        const int32_t waiting = syncs.streamIndex[s] >= 0 ? streamLaneOf[syncs.streamIndex[s]] : -1;
        if (!event || waiting < 0)
            return;
        const uint32_t marked = markedOp(process, *event);
        const Stream& stream = graph.m_streams[waiting];
        // An operation launched after the wait starts after it: search from the first such start
        // (the ones before it in FIFO order are few: the queue ahead of it).
        for (uint32_t k = firstOpStartingAtOrAfter(waiting, syncs.start[s]); k < stream.ops.size();
             ++k)
            if (launchedAt(waiting, k) >= syncs.start[s]) {
                if (marked != kNone && marked != stream.firstOp + k)
                    graph.m_eventDeps.emplace_back(stream.firstOp + k, marked);
                return;
            }
    }

    // Hand-offs between the GPU-launching threads of each process (RunGraph::handoff). Each
    // thread's steps are in time order: one pointer per other thread walks along with them.
    void buildHandoffs() {
        std::vector<bool> launching(graph.m_threads.size(), false);
        // Threads that launch GPU work: kernels (PyTorch's autograd thread) or copies (its
        // pin-memory thread, which a bounded queue paces to the main thread's consumption).
        for (uint32_t step : graph.m_launchStep)
            if (step != kNone)
                launching[graph.locateStep(step).first] = true;
        for (size_t l = 0; l < graph.m_threads.size(); ++l) {
            if (!launching[l] || processOfLane[l] < 0)
                continue;
            const auto lane = static_cast<int32_t>(l);
            const HostThread& thread = graph.m_threads[l];
            std::vector<int32_t> others;
            for (size_t o = 0; o < graph.m_threads.size(); ++o)
                if (o != l && launching[o] && processOfLane[o] == processOfLane[l])
                    others.push_back(static_cast<int32_t>(o));
            if (others.empty())
                continue;
            std::vector<uint32_t> next(others.size(), 0); // first step not yet ended by `start`
            for (uint32_t i = 1; i < thread.steps.size(); ++i) {
                const int64_t idleFrom = graph.stepEnd(lane, i - 1);
                const int64_t start = graph.stepStart(lane, i);
                uint32_t waitedFor = kNone;
                int64_t latestEnd = idleFrom;
                for (size_t o = 0; o < others.size(); ++o) {
                    const HostThread& other = graph.m_threads[others[o]];
                    uint32_t& j = next[o];
                    while (j < other.steps.size() && graph.stepEnd(others[o], j) <= start)
                        ++j;
                    if (j > 0 && graph.stepEnd(others[o], j - 1) > latestEnd) {
                        latestEnd = graph.stepEnd(others[o], j - 1);
                        waitedFor = other.firstStep + j - 1;
                    }
                }
                if (waitedFor != kNone)
                    graph.m_handoffs.emplace_back(thread.firstStep + i, waitedFor);
            }
        }
        std::sort(graph.m_handoffs.begin(), graph.m_handoffs.end());
        for (const auto& [step, waitedFor] : graph.m_handoffs)
            graph.m_handoffTargets.push_back(waitedFor);
        std::sort(graph.m_handoffTargets.begin(), graph.m_handoffTargets.end());
        graph.m_handoffTargets.erase(
            std::unique(graph.m_handoffTargets.begin(), graph.m_handoffTargets.end()),
            graph.m_handoffTargets.end());
        graph.m_handoffTargetIndex.reserve(graph.m_handoffs.size());
        for (const auto& [step, waitedFor] : graph.m_handoffs)
            graph.m_handoffTargetIndex.push_back(
                static_cast<uint32_t>(std::lower_bound(graph.m_handoffTargets.begin(),
                                                       graph.m_handoffTargets.end(), waitedFor) -
                                      graph.m_handoffTargets.begin()));
    }

    void calibrate() {
        MedianSample launch, queueGap, overhead, wake;
        // Operations launched before their predecessor ended: (how long before, the gap to it).
        std::vector<std::pair<int64_t, int64_t>> queued;
        for (size_t l = 0; l < graph.m_streams.size(); ++l) {
            const Stream& stream = graph.m_streams[l];
            // An inferred launch time is the earliest the launch could have been, not when it
            // was: no measure of the launch latency.
            for (uint32_t k = 1; k < stream.ops.size() && !stream.launchesInferred; ++k) {
                const uint32_t op = stream.firstOp + k;
                const int32_t lane = static_cast<int32_t>(l);
                // Not the GPU's pace: staged copies (the host's), event waits (another stream's).
                if (graph.m_launchStep[op] == kNone || graph.opStagedByHost(lane, k) ||
                    graph.eventDependency(op) != kNone)
                    continue;
                const int64_t previousEnd = graph.opEnd(lane, k - 1);
                const int64_t launched = launchedAt(lane, k);
                if (const int64_t start = graph.opStart(lane, k); previousEnd <= launched)
                    launch.add(start - launched);
                else
                    queued.emplace_back(previousEnd - launched, start - previousEnd);
            }
        }
        // Only one launched a launch latency before its predecessor's end waited in the queue; one
        // launched later starts a launch latency after its call (the host's pace, not the GPU's).
        const int64_t launchNs = launch.medianOr(graph.m_latencies.launchNs);
        for (const auto& [before, gap] : queued)
            if (before >= launchNs)
                queueGap.add(gap);
        for (size_t l = 0; l < graph.m_threads.size(); ++l) {
            const SyncColumns& syncs = session.hostLanes[l].syncs;
            for (size_t s = 0; s < syncs.size(); ++s) {
                if (!model::isHostBlocking(syncs.kind[s]))
                    continue;
                int64_t awaitedEnd = std::numeric_limits<int64_t>::min();
                for (uint32_t op :
                     graph.awaited(static_cast<int32_t>(l), static_cast<uint32_t>(s))) {
                    const auto [lane, k] = graph.locateOp(op);
                    awaitedEnd = std::max(awaitedEnd, graph.opEnd(lane, k));
                }
                if (awaitedEnd <= syncs.start[s])
                    overhead.add(syncs.duration(s));
                else
                    wake.add(syncs.end[s] - awaitedEnd);
            }
        }
        for (size_t l = 0; l < graph.m_threads.size(); ++l) {
            HostThread& thread = graph.m_threads[l];
            // Without its launch calls a thread's steps are its syncs alone: the time between
            // them is whole loop iterations, not a statement's own time (0: none removed).
            if (inferred.infers(processOfLane[l]))
                continue;
            MedianSample gaps;
            for (uint32_t i = 1; i < thread.steps.size(); ++i)
                gaps.add(std::max<int64_t>(0, graph.stepStart(static_cast<int32_t>(l), i) -
                                                  graph.stepEnd(static_cast<int32_t>(l), i - 1)));
            thread.medianGapNs = gaps.medianOr(0);
        }
        Latencies& latencies = graph.m_latencies;
        latencies.pinnedBytesPerSecond =
            pinnedDeviceToHostRate(session, latencies.pinnedBytesPerSecond);
        latencies.launchNs = launchNs;
        latencies.queueGapNs = queueGap.medianOr(latencies.queueGapNs);
        latencies.syncOverheadNs = overhead.medianOr(latencies.syncOverheadNs);
        latencies.wakeNs = wake.medianOr(latencies.wakeNs);
    }
};

bool buildRunGraph(RunGraph& graph, const Session& session,
                   const std::function<std::span<const CudaEventInfo>()>& loadCudaEvents,
                   const std::atomic<bool>* cancel) {
    graph = RunGraph{};
    graph.m_session = &session;
    auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
    RunGraph::Builder builder{graph, session};
    builder.reserveLaunchMaps();
    builder.buildSteps();
    if (cancelled())
        return false;
    builder.inferLaunches();
    builder.buildStreams();
    graph.m_deviceFollowers = kernelsFollowingOnTheirDevice(graph);
    // The hand-offs need the steps and the launches alone: found on another thread while the
    // waits are (they write other members).
    std::thread handoffs([&builder] { builder.buildHandoffs(); });
    builder.cudaEvents = loadCudaEvents();
    if (!cancelled())
        builder.buildWaits();
    handoffs.join();
    builder.launches.clear();
    if (cancelled())
        return false;
    builder.calibrate();
    graph.readCalibration();
    return !cancelled();
}

} // namespace stallscope::model::whatif
