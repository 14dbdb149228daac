// KernelLaunchIndex: answers "did the API call with this correlation id launch a kernel?" per
// process (CUPTI correlation ids are unique within a process only). The in-loop-sync rule counts
// launches between syncs with it. A bitmap over correlation ids (they are dense, about one per
// API call) costs a bit per id; sessions with sparse ids fall back to a sorted list.
#pragma once

#include "model/session/session.h"

#include <cstdint>
#include <vector>

namespace stallscope::model {

class KernelLaunchIndex {
public:
    void build(const Session& session);
    bool isKernelLaunch(int32_t process, uint32_t correlationId) const {
        if (process < 0 || static_cast<size_t>(process) >= m_processes.size())
            return false;
        return m_processes[process].contains(correlationId);
    }
    // Whether the process recorded API calls; a light recording (stallscope-record --mode light)
    // has none, and its launches are known only by their correlation ids' order.
    bool callsRecorded(int32_t process) const {
        return process >= 0 && static_cast<size_t>(process) < m_processes.size() &&
               m_processes[process].callsRecorded;
    }
    // The kernels whose correlation id lies strictly between `afterId` and `beforeId`: those
    // launched between two calls of the process.
    uint32_t kernelsBetween(int32_t process, uint32_t afterId, uint32_t beforeId) const;
    size_t memoryBytes() const;

private:
    struct PerProcess {
        std::vector<uint64_t> bits;   // dense ids
        std::vector<uint32_t> sorted; // sparse ids
        bool callsRecorded = false;
        bool contains(uint32_t id) const;
    };
    std::vector<PerProcess> m_processes;
};

} // namespace stallscope::model
