#include "model/session/session.h"

#include <algorithm>
#include <charconv>

namespace stallscope::model {

const std::string& Session::string(uint32_t id) const {
    static const std::string empty;
    return id < strings.size() ? strings[id] : empty;
}

std::string Session::metaValue(std::string_view key) const {
    const auto found = meta.find(key);
    return found == meta.end() ? std::string() : found->second;
}

std::optional<int64_t> Session::metaCount(std::string_view key) const {
    const auto found = meta.find(key);
    if (found == meta.end())
        return std::nullopt;
    const std::string& text = found->second;
    int64_t value = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 0)
        return std::nullopt;
    return value;
}

std::vector<bool> Session::processesWithApiCalls() const {
    std::vector<bool> withCalls(processes.size(), false);
    for (const HostLane& lane : hostLanes)
        if (lane.threadIndex >= 0 && !lane.apiCalls.empty())
            if (const int32_t p = threads[lane.threadIndex].processIndex;
                p >= 0 && static_cast<size_t>(p) < withCalls.size())
                withCalls[p] = true;
    return withCalls;
}

std::vector<TimeSpan> Session::notRecorded() const {
    std::vector<TimeSpan> gaps;
    if (captureControlled) {
        std::vector<TimeSpan> covered;
        for (const CaptureInterval& interval : captureIntervals)
            covered.push_back({interval.startNs, interval.endNs});
        std::sort(covered.begin(), covered.end(),
                  [](const TimeSpan& a, const TimeSpan& b) { return a.startNs < b.startNs; });
        int64_t from = startNs; // the start of the stretch not covered yet
        for (const TimeSpan& span : covered) {
            if (span.startNs > from)
                gaps.push_back({from, std::min(span.startNs, endNs)});
            from = std::max(from, span.endNs);
            if (from >= endNs)
                break;
        }
        if (from < endNs)
            gaps.push_back({from, endNs});
    }
    if (overheadProbe)
        for (const format::OverheadProbeRecord::OffPhase& phase : overheadProbe->offPhases)
            gaps.push_back({std::max(phase.startNs, startNs), std::min(phase.endNs, endNs)});
    // An interval that starts past the session's end leaves no gap of negative length.
    std::erase_if(gaps, [](const TimeSpan& gap) { return gap.endNs <= gap.startNs; });
    // In order and merged: the probe's stretches may lie in or beside a capture gap.
    std::sort(gaps.begin(), gaps.end(),
              [](const TimeSpan& a, const TimeSpan& b) { return a.startNs < b.startNs; });
    std::vector<TimeSpan> merged;
    for (const TimeSpan& gap : gaps) {
        if (!merged.empty() && gap.startNs <= merged.back().endNs)
            merged.back().endNs = std::max(merged.back().endNs, gap.endNs);
        else
            merged.push_back(gap);
    }
    return merged;
}

int64_t Session::notRecordedNsWithin(int64_t fromNs, int64_t toNs) const {
    int64_t total = 0;
    for (const TimeSpan& gap : notRecorded())
        total += std::max<int64_t>(0, std::min(gap.endNs, toNs) - std::max(gap.startNs, fromNs));
    return total;
}

std::vector<std::string> Session::files() const {
    if (parts.empty())
        return {path};
    std::vector<std::string> paths;
    for (const SessionPart& part : parts)
        paths.push_back(part.path);
    return paths;
}

std::string Session::processLabel(int32_t processIndex) const {
    if (processIndex < 0 || processIndex >= static_cast<int32_t>(processes.size()))
        return {};
    const ProcessInfo& process = processes[processIndex];
    const bool severalHosts =
        std::any_of(processes.begin(), processes.end(),
                    [&](const ProcessInfo& p) { return p.host != process.host; });
    if (!process.rank && processes.size() < 2)
        return {};
    std::string label = process.rank ? "rank " + std::to_string(process.rank->rank)
                                     : "pid " + std::to_string(process.pid);
    if (severalHosts)
        label += " · " + process.host;
    return label;
}

std::string Session::threadLabel(const ThreadInfo& thread) const {
    std::string label = thread.name.empty() ? "thread" : thread.name;
    label += " (" + std::to_string(thread.tid) + ")";
    if (const std::string process = processLabel(thread.processIndex); !process.empty())
        label = process + " · " + label;
    return label;
}

std::string Session::streamLabel(const StreamInfo& stream) const {
    std::string label;
    if (stream.deviceIndex >= 0) {
        const DeviceInfo& device = devices[stream.deviceIndex];
        if (const std::string process = processLabel(device.processIndex); !process.empty())
            label = process + " · ";
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
        bytes +=
            lane.apiCalls.memoryBytes() + lane.syncs.memoryBytes() + lane.samples.memoryBytes();
        for (const RangeColumns& depth : lane.rangesByDepth)
            bytes += depth.memoryBytes();
    }
    for (const StreamLane& lane : streamLanes)
        bytes +=
            lane.kernels.memoryBytes() + lane.memcpys.memoryBytes() + lane.memsets.memoryBytes();
    return bytes;
}

} // namespace stallscope::model
