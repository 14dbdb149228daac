#include "model/analysis/gpu_activity.h"

#include <algorithm>
#include <limits>

namespace stallscope::model {

namespace {

// The union of `merge`'s intervals, those `skip` names left out; false when cancelled.
template <typename Skip>
bool mergeBusy(IntervalMerge& merge, BusyIntervals& busy, const std::atomic<bool>* cancel,
               Skip skip) {
    uint32_t tick = 0;
    while (merge.next()) {
        if (!skip(merge))
            busy.add(merge.start(), merge.end());
        if (++tick == 0x10000) {
            tick = 0;
            if (cancel && cancel->load())
                return false;
        }
    }
    busy.start.shrink_to_fit();
    busy.end.shrink_to_fit();
    return true;
}

} // namespace

std::vector<std::pair<uint32_t, int64_t>> GpuActivity::smallestGridByName(const Session& session) {
    constexpr int32_t kNone = -1;
    std::vector<int32_t> smallest(session.strings.size(), kNone);
    for (const StreamLane& lane : session.streamLanes)
        for (size_t i = 0; i < lane.kernels.size(); ++i) {
            const uint32_t name = lane.kernels.nameId[i];
            if (name >= smallest.size())
                continue;
            const int32_t blocks = lane.kernels.blocksOf(i);
            smallest[name] = smallest[name] == kNone ? blocks : std::min(smallest[name], blocks);
        }
    std::vector<std::pair<uint32_t, int64_t>> byName;
    for (size_t name = 0; name < smallest.size(); ++name)
        if (smallest[name] != kNone)
            byName.emplace_back(static_cast<uint32_t>(name), smallest[name]);
    return byName;
}

bool GpuActivity::build(const Session& session, const std::atomic<bool>* cancel) {
    const std::vector<std::pair<uint32_t, int64_t>> smallestGridByName =
        GpuActivity::smallestGridByName(session);
    m_session = &session;
    m_busy.assign(session.devices.size(), {});
    m_filling.assign(session.devices.size(), {});
    m_streamsOfDevice.assign(session.devices.size(), {});
    m_activeDevicesOfProcess.assign(session.processes.size(), {});
    for (size_t s = 0; s < session.streams.size(); ++s) {
        const int32_t device = session.streams[s].deviceIndex;
        if (device >= 0 && static_cast<size_t>(device) < session.devices.size())
            m_streamsOfDevice[device].push_back(static_cast<int32_t>(s));
    }
    for (size_t d = 0; d < session.devices.size(); ++d) {
        const int32_t device = static_cast<int32_t>(d);
        IntervalMerge merge(sources(device));
        BusyIntervals& busy = m_busy[d];
        if (!mergeBusy(merge, busy, cancel, [](const IntervalMerge&) { return false; }))
            return false;
        // A kernel that never filled the device (its name's smallest grid) leaves room beside it.
        const int64_t smCount = session.devices[d].smCount;
        auto partial = [&](const IntervalMerge& at) {
            if (at.source().kind != EventKind::Kernel)
                return false;
            const uint32_t name =
                static_cast<const KernelColumns*>(at.source().columns)->nameId[at.index()];
            const auto found =
                std::lower_bound(smallestGridByName.begin(), smallestGridByName.end(), name,
                                 [](const std::pair<uint32_t, int64_t>& row, uint32_t id) {
                                     return row.first < id;
                                 });
            return found != smallestGridByName.end() && found->first == name && found->second > 0 &&
                   found->second < smCount;
        };
        const bool anyPartial =
            smCount > 0 && std::any_of(smallestGridByName.begin(), smallestGridByName.end(),
                                       [smCount](const auto& row) {
                                           return row.second > 0 && row.second < smCount;
                                       });
        if (anyPartial) {
            IntervalMerge again(sources(device));
            if (!mergeBusy(again, m_filling[d], cancel, partial))
                return false;
        }
        const int32_t process = session.devices[d].processIndex;
        if (!busy.empty() && process >= 0 &&
            static_cast<size_t>(process) < session.processes.size())
            m_activeDevicesOfProcess[process].push_back(device);
    }
    return true;
}

std::vector<MergeSource> GpuActivity::sources(int32_t device, Streams which) const {
    std::vector<MergeSource> out;
    for (int32_t stream : m_streamsOfDevice[device]) {
        const bool isDefault = m_session->streams[stream].isDefault;
        if ((which == Streams::DefaultOnly && !isDefault) ||
            (which == Streams::NonDefaultOnly && isDefault))
            continue;
        const StreamLane& lane = m_session->streamLanes[stream];
        out.push_back({&lane.kernels, stream, EventKind::Kernel});
        out.push_back({&lane.memcpys, stream, EventKind::Memcpy});
        out.push_back({&lane.memsets, stream, EventKind::Memset});
    }
    return out;
}

int32_t GpuActivity::processOfThread(int32_t thread) const {
    if (thread < 0 || static_cast<size_t>(thread) >= m_session->threads.size())
        return -1;
    return m_session->threads[thread].processIndex;
}

const std::vector<int32_t>& GpuActivity::activeDevicesOfThread(int32_t thread) const {
    const int32_t process = processOfThread(thread);
    if (process < 0 || static_cast<size_t>(process) >= m_activeDevicesOfProcess.size())
        return m_noDevices;
    return m_activeDevicesOfProcess[process];
}

int32_t GpuActivity::deviceOfSync(int32_t hostLane, size_t syncIndex) const {
    const HostLane& lane = m_session->hostLanes[hostLane];
    const int32_t stream = lane.syncs.streamIndex[syncIndex];
    if (stream >= 0 && static_cast<size_t>(stream) < m_session->streams.size())
        return m_session->streams[stream].deviceIndex;
    const std::vector<int32_t>& devices = activeDevicesOfThread(lane.threadIndex);
    if (devices.size() == 1)
        return devices.front();
    // Several GPUs in one process and no stream named: the sync waited on the device whose work
    // finished last while the host was blocked.
    const int64_t from = lane.syncs.start[syncIndex];
    const int64_t to = lane.syncs.end[syncIndex];
    int32_t best = -1;
    int64_t bestEnd = std::numeric_limits<int64_t>::min();
    for (int32_t device : devices) {
        const int64_t lastEnd = m_busy[device].lastEndAtOrBefore(to);
        if (lastEnd > from && lastEnd > bestEnd) {
            bestEnd = lastEnd;
            best = device;
        }
    }
    return best;
}

} // namespace stallscope::model
