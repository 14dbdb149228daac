#include "model/analysis/kernel_launch_index.h"

#include <algorithm>
#include <bit>

namespace stallscope::model {

bool KernelLaunchIndex::PerProcess::contains(uint32_t id) const {
    if (!bits.empty())
        return (id >> 6) < bits.size() && (bits[id >> 6] >> (id & 63)) & 1u;
    return std::binary_search(sorted.begin(), sorted.end(), id);
}

void KernelLaunchIndex::build(const Session& session) {
    m_processes.assign(session.processes.size(), {});
    std::vector<uint32_t> maxId(session.processes.size(), 0);
    std::vector<size_t> kernels(session.processes.size(), 0);
    auto processOf = [&](const StreamLane& lane) -> int32_t {
        const int32_t device = session.streams[lane.streamIndex].deviceIndex;
        return device < 0 ? -1 : session.devices[device].processIndex;
    };
    for (const StreamLane& lane : session.streamLanes) {
        const int32_t p = processOf(lane);
        if (p < 0 || lane.kernels.empty())
            continue;
        kernels[p] += lane.kernels.size();
        for (uint32_t id : lane.kernels.correlationId)
            maxId[p] = std::max(maxId[p], id);
    }
    for (size_t p = 0; p < m_processes.size(); ++p) {
        // A bitmap wins while ids are dense: up to 64 ids per kernel is at most 8 bytes a kernel.
        if (kernels[p] > 0 && maxId[p] / 64 <= kernels[p] + 4096)
            m_processes[p].bits.assign(size_t(maxId[p]) / 64 + 1, 0);
        else
            m_processes[p].sorted.reserve(kernels[p]);
    }
    for (const StreamLane& lane : session.streamLanes) {
        const int32_t p = processOf(lane);
        if (p < 0)
            continue;
        PerProcess& index = m_processes[p];
        for (uint32_t id : lane.kernels.correlationId) {
            if (!index.bits.empty())
                index.bits[id >> 6] |= uint64_t(1) << (id & 63);
            else
                index.sorted.push_back(id);
        }
    }
    for (PerProcess& index : m_processes)
        std::sort(index.sorted.begin(), index.sorted.end());
    const std::vector<bool> withCalls = session.processesWithApiCalls();
    for (size_t p = 0; p < m_processes.size(); ++p)
        m_processes[p].callsRecorded = withCalls[p];
}

uint32_t KernelLaunchIndex::kernelsBetween(int32_t process, uint32_t afterId,
                                           uint32_t beforeId) const {
    if (process < 0 || static_cast<size_t>(process) >= m_processes.size() || afterId >= beforeId)
        return 0;
    const PerProcess& index = m_processes[process];
    if (index.bits.empty())
        return static_cast<uint32_t>(
            std::lower_bound(index.sorted.begin(), index.sorted.end(), beforeId) -
            std::upper_bound(index.sorted.begin(), index.sorted.end(), afterId));
    // Bits afterId + 1 .. beforeId - 1, a word at a time.
    const uint64_t first = uint64_t{afterId} + 1;
    const uint64_t last = std::min<uint64_t>(beforeId, index.bits.size() * 64); // exclusive
    uint32_t count = 0;
    for (uint64_t word = first >> 6; word < index.bits.size() && word * 64 < last; ++word) {
        uint64_t bits = index.bits[word];
        if (word == first >> 6)
            bits &= ~uint64_t(0) << (first & 63);
        if (last < (word + 1) * 64)
            bits &= (uint64_t(1) << (last & 63)) - 1;
        count += static_cast<uint32_t>(std::popcount(bits));
    }
    return count;
}

size_t KernelLaunchIndex::memoryBytes() const {
    size_t bytes = 0;
    for (const PerProcess& index : m_processes)
        bytes += index.bits.capacity() * 8 + index.sorted.capacity() * 4;
    return bytes;
}

} // namespace stallscope::model
