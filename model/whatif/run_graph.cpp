// RunGraph's queries: the recorded times of steps and operations, id lookups, and the
// recorder's own cost read off the meta. Building it is run_graph_builder.cpp's.
#include "model/whatif/run_graph.h"

#include "format/session_enums.h"
#include "format/session_meta.h"

#include <algorithm>

namespace stallscope::model::whatif {

bool RunGraph::build(const Session& session, std::span<const CudaEventInfo> cudaEvents,
                     const std::atomic<bool>* cancel) {
    return build(
        session, [cudaEvents] { return cudaEvents; }, cancel);
}

bool RunGraph::build(const Session& session,
                     const std::function<std::span<const CudaEventInfo>()>& loadCudaEvents,
                     const std::atomic<bool>* cancel) {
    return buildRunGraph(*this, session, loadCudaEvents, cancel);
}

uint64_t RunGraph::opBytes(int32_t lane, uint32_t op) const {
    const StreamLane& stream = m_session->streamLanes[lane];
    const uint32_t index = indexOf(m_streams[lane].ops[op]);
    switch (opKind(lane, op)) {
    case OpKind::Kernel:
        return 0;
    case OpKind::Memcpy:
        return stream.memcpys.bytes[index];
    case OpKind::Memset:
        return stream.memsets.bytes[index];
    }
    return 0;
}

bool RunGraph::opStagedByHost(int32_t lane, uint32_t op) const {
    if (opKind(lane, op) != OpKind::Memcpy)
        return false;
    const TransferColumns& copies = m_session->streamLanes[lane].memcpys;
    const uint32_t index = indexOf(m_streams[lane].ops[op]);
    constexpr auto kPageable = static_cast<uint8_t>(format::MemoryKind::Pageable);
    return copies.srcKind[index] == kPageable || copies.dstKind[index] == kPageable;
}

uint32_t RunGraph::eventDependency(uint32_t op) const {
    const auto found = std::lower_bound(m_eventDeps.begin(), m_eventDeps.end(),
                                        std::pair<uint32_t, uint32_t>{op, 0});
    return found != m_eventDeps.end() && found->first == op ? found->second : kNone;
}

uint32_t RunGraph::handoff(uint32_t step) const {
    const auto found = std::lower_bound(m_handoffs.begin(), m_handoffs.end(),
                                        std::pair<uint32_t, uint32_t>{step, 0});
    return found != m_handoffs.end() && found->first == step ? found->second : kNone;
}

uint32_t RunGraph::opOf(int32_t lane, OpKind kind, uint32_t index) const {
    if (lane < 0 || static_cast<size_t>(lane) >= m_streams.size())
        return kNone;
    const IntervalColumns& column = columnOf(m_session->streamLanes[lane], kind);
    if (index >= column.size())
        return kNone;
    // The lane's operations are in start order: the first that starts with this one, then a walk
    // over those that start at the same time.
    const std::vector<uint32_t>& ops = m_streams[lane].ops;
    const int64_t start = column.start[index];
    uint32_t k = static_cast<uint32_t>(
        std::partition_point(
            ops.begin(), ops.end(),
            [&](uint32_t ref) {
                return columnOf(m_session->streamLanes[lane], kindOf(ref)).start[indexOf(ref)] <
                       start;
            }) -
        ops.begin());
    const uint32_t wanted = static_cast<uint32_t>(kind) << 30 | index;
    for (; k < ops.size() && opStart(lane, k) == start; ++k)
        if (ops[k] == wanted)
            return m_streams[lane].firstOp + k;
    return kNone;
}

void RunGraph::readCalibration() {
    // A meta value is the recorder's own measurement; a file from elsewhere may say anything, so
    // only a cost a recorder could have measured (format::meta::kMaxRecorderOverheadNs) counts.
    auto read = [this](std::string_view key) {
        const int64_t value = m_session->metaCount(key).value_or(0);
        return value <= format::meta::kMaxRecorderOverheadNs ? value : 0;
    };
    m_latencies.recorderRestartNs = read(format::meta::kRecorderRestartOverheadNs);
    m_latencies.recorderLaunchNs = read(format::meta::kRecorderLaunchOverheadNs);
    m_latencies.deepQueueDelayNs = read(format::meta::kGpuDeepQueueDelayNs);
    m_launchesWork.clear();
    m_measuredCost = {};
    if (m_latencies.recorderLaunchNs == 0 && !m_session->overheadProbe)
        return;
    // Inferred launches (light recordings) hang off syncs, whose recorded time has no launch call.
    m_launchesWork.assign(m_stepCount, 0);
    for (const Stream& stream : m_streams) {
        if (stream.launchesInferred)
            continue;
        for (uint32_t op = stream.firstOp; op < stream.firstOp + stream.ops.size(); ++op)
            if (const uint32_t step = m_launchStep[op]; step != kNone && step < m_stepCount)
                m_launchesWork[step] = 1;
    }
    // The recorder's cost measured in this run replaces the machine's calibration: all of what it
    // added goes with the launching calls (the restart's share included).
    std::vector<int64_t> launchingCallStarts;
    if (m_session->overheadProbe)
        for (size_t lane = 0; lane < m_threads.size(); ++lane)
            for (size_t i = 0; i < m_threads[lane].steps.size(); ++i)
                if (launchesWork(m_threads[lane].firstStep + static_cast<uint32_t>(i)))
                    launchingCallStarts.push_back(
                        stepStart(static_cast<int32_t>(lane), static_cast<uint32_t>(i)));
    std::sort(launchingCallStarts.begin(), launchingCallStarts.end());
    m_measuredCost = measureRecorderCost(*m_session, launchingCallStarts);
    if (m_measuredCost.measured()) {
        m_latencies.recorderLaunchNs = m_measuredCost.launchCostNs();
        m_latencies.recorderRestartNs = 0;
    }
}

size_t RunGraph::memoryBytes() const {
    size_t bytes = m_launchesWork.capacity() + m_launchStep.capacity() * 4 +
                   m_launchLag.capacity() * 4 + m_eventDeps.capacity() * 8 +
                   m_deviceFollowers.capacity() * 8 + m_handoffs.capacity() * 8 +
                   m_handoffTargets.capacity() * 4 + m_handoffTargetIndex.capacity() * 4 +
                   m_awaited.capacity() * 4;
    for (const HostThread& thread : m_threads)
        bytes += (thread.steps.capacity() + thread.stepOfSync.capacity() +
                  thread.awaitedBegin.capacity()) *
                 4;
    for (const Stream& stream : m_streams)
        bytes += stream.ops.capacity() * 4;
    return bytes;
}

int32_t RunGraph::ownStreamOf(int32_t lane, uint32_t sync) const {
    // Looked back over this many operations of each awaited stream for a copy to the host.
    constexpr uint32_t kOpsLookedBack = 64;
    const auto launchedHere = [&](uint32_t op) {
        const uint32_t step = launchStep(op);
        return step < stepCount() && locateStep(step).first == lane ? step : kNone;
    };
    int32_t own = -1, reads = -1;
    uint32_t latest = 0, latestRead = 0;
    for (uint32_t op : awaited(lane, sync)) {
        const auto [streamLane, k] = locateOp(op);
        if (const uint32_t step = launchedHere(op); step != kNone && (own < 0 || step >= latest)) {
            latest = step;
            own = streamLane;
        }
        // The copies to the host this thread queued on the stream: the work the host reads.
        const Stream& stream = m_streams[streamLane];
        const TransferColumns& memcpys = m_session->streamLanes[streamLane].memcpys;
        for (uint32_t back = 0; back < kOpsLookedBack && back <= k; ++back) {
            const uint32_t ref = stream.ops[k - back];
            if (kindOf(ref) != OpKind::Memcpy ||
                memcpys.copyKind[indexOf(ref)] != static_cast<uint8_t>(format::CopyKind::DtoH))
                continue;
            if (const uint32_t step = launchedHere(stream.firstOp + k - back);
                step != kNone && (reads < 0 || step >= latestRead)) {
                latestRead = step;
                reads = streamLane;
            }
            break;
        }
    }
    return reads >= 0 ? reads : own;
}

} // namespace stallscope::model::whatif
