// GpuActivity: per-device GPU busy time (the union of kernel, memcpy and memset intervals of all
// streams of a device) and the device/stream/process relations the rules need. Built once per
// analysis in one merged pass per device (two with launch grids); queries are binary searches.
#pragma once

#include "model/analysis/interval_merge.h"
#include "model/session/session.h"

#include <atomic>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace stallscope::model {

class GpuActivity {
public:
    // Returns false when cancelled (the object is then incomplete). Which kernels fill their GPU
    // comes from the loaded grids (smallestGridByName).
    bool build(const Session& session, const std::atomic<bool>* cancel);
    // Each kernel name's smallest launch grid in blocks (KernelColumns::blocks, saturated), by
    // string id, sorted by it; 0 when one of its kernels has no known grid (then it counts as
    // filling). A kernel launched on fewer blocks than its GPU has multiprocessors leaves room
    // for other streams' kernels (fillingBusy).
    static std::vector<std::pair<uint32_t, int64_t>> smallestGridByName(const Session& session);

    size_t deviceCount() const { return m_busy.size(); }
    const BusyIntervals& busy(int32_t device) const { return m_busy[device]; }
    // The busy time no other stream's kernel can share: as busy(), less the kernels always
    // launched on fewer blocks than the GPU has multiprocessors (a side stream's 8-block
    // kernel leaves the other SMs to the main stream's work). How much GPU time a fix can fill
    // at most; busy() where grids or the SM count are unknown.
    const BusyIntervals& fillingBusy(int32_t device) const {
        return m_filling[device].empty() ? m_busy[device] : m_filling[device];
    }
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
    std::vector<BusyIntervals> m_busy;    // per device
    std::vector<BusyIntervals> m_filling; // per device; empty: as m_busy
    std::vector<std::vector<int32_t>> m_streamsOfDevice;
    std::vector<std::vector<int32_t>> m_activeDevicesOfProcess;
    std::vector<int32_t> m_noDevices;
};

} // namespace stallscope::model
