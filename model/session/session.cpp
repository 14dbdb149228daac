#include "model/session/session.h"

namespace stallscope::model {

const std::string& Session::string(uint32_t id) const {
    static const std::string empty;
    return id < strings.size() ? strings[id] : empty;
}

std::string Session::metaValue(std::string_view key) const {
    const auto found = meta.find(key);
    return found == meta.end() ? std::string() : found->second;
}

std::string Session::threadLabel(const ThreadInfo& thread) const {
    std::string label = thread.name.empty() ? "thread" : thread.name;
    label += " (" + std::to_string(thread.tid) + ")";
    if (processes.size() > 1 && thread.processIndex >= 0)
        label = "pid " + std::to_string(processes[thread.processIndex].pid) + " · " + label;
    return label;
}

std::string Session::streamLabel(const StreamInfo& stream) const {
    std::string label;
    if (stream.deviceIndex >= 0) {
        const DeviceInfo& device = devices[stream.deviceIndex];
        if (processes.size() > 1 && device.processIndex >= 0)
            label = "pid " + std::to_string(processes[device.processIndex].pid) + " · ";
        label += "GPU " + std::to_string(device.deviceIndex) + " · ";
    }
    label += "stream " + std::to_string(stream.streamId);
    if (stream.isDefault)
        label += " (default)";
    return label;
}

size_t Session::eventMemoryBytes() const {
    size_t bytes = 0;
    for (const HostLane& lane : hostLanes) {
        bytes += lane.apiCalls.memoryBytes() + lane.syncs.memoryBytes();
        for (const RangeColumns& depth : lane.rangesByDepth)
            bytes += depth.memoryBytes();
    }
    for (const StreamLane& lane : streamLanes)
        bytes +=
            lane.kernels.memoryBytes() + lane.memcpys.memoryBytes() + lane.memsets.memoryBytes();
    return bytes;
}

} // namespace stallscope::model
