// GpuActivity: per-device GPU busy time (the union of kernel, memcpy and memset intervals of all
// streams of a device) and the device/stream/process relations the rules need. Built once per
// analysis in one merged pass per device; queries are binary searches.
#pragma once

#include "model/analysis/interval_merge.h"
#include "model/session/session.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace stallscope::model {

class GpuActivity {
public:
    // Returns false when cancelled (the object is then incomplete).
    bool build(const Session& session, const std::atomic<bool>* cancel);

    size_t deviceCount() const { return m_busy.size(); }
    const BusyIntervals& busy(int32_t device) const { return m_busy[device]; }
    // Merge sources for every event column of every stream of `device` (optionally only default
    // or only non-default streams).
    enum class Streams { All, DefaultOnly, NonDefaultOnly };
    std::vector<MergeSource> sources(int32_t device, Streams which = Streams::All) const;
    const std::vector<int32_t>& streamsOf(int32_t device) const {
        return m_streamsOfDevice[device];
    }
    // Devices (of the thread's process) that have any GPU work.
    const std::vector<int32_t>& activeDevicesOfThread(int32_t thread) const;
    // The device a host-blocking sync waited on: its stream's device; else the only active
    // device of its process; else the active device whose work ended last inside the sync;
    // -1 when none.
    int32_t deviceOfSync(int32_t hostLane, size_t syncIndex) const;
    int32_t processOfThread(int32_t thread) const;

private:
    const Session* m_session = nullptr;
    std::vector<BusyIntervals> m_busy; // per device
    std::vector<std::vector<int32_t>> m_streamsOfDevice;
    std::vector<std::vector<int32_t>> m_activeDevicesOfProcess;
    std::vector<int32_t> m_noDevices;
};

} // namespace stallscope::model
