#include "timeline_layout.h"

#include "session.h"

#include <algorithm>

namespace stallscope::views {

namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

QString processLabel(const model::ProcessInfo& process) {
    QString command = qs(process.command).simplified();
    if (command.size() > 60)
        command = command.left(57) + QStringLiteral("…");
    QString label = QStringLiteral("Process %1").arg(process.pid);
    if (!process.host.empty())
        label += QStringLiteral(" @ %1").arg(qs(process.host));
    if (!command.isEmpty())
        label += QStringLiteral(" · ") + command;
    return label;
}

QString deviceLabel(const model::DeviceInfo& device) {
    QString label = QStringLiteral("GPU %1").arg(device.deviceIndex);
    if (!device.name.empty())
        label += QStringLiteral(" · ") + qs(device.name);
    return label;
}

QString threadLabel(const model::ThreadInfo& thread) {
    if (thread.name.empty())
        return QStringLiteral("Thread %1").arg(thread.tid);
    return QStringLiteral("%1 (%2)").arg(qs(thread.name)).arg(thread.tid);
}

} // namespace

void TimelineLayout::add(LaneKind kind, int32_t source, int32_t depth, int height, QString label) {
    TimelineLane lane;
    lane.kind = kind;
    lane.source = source;
    lane.depth = depth;
    lane.y = contentHeight();
    lane.height = height;
    lane.label = std::move(label);
    m_lanes.push_back(std::move(lane));
}

void TimelineLayout::build(const model::Session& session) {
    m_lanes.clear();
    const int processCount = static_cast<int>(session.processes.size());
    // Group index -1 collects threads and devices whose process is unknown; it comes last.
    for (int group = 0; group <= processCount; ++group) {
        const int process = group < processCount ? group : -1;
        auto inGroup = [&](int32_t processIndex) {
            const bool known = processIndex >= 0 && processIndex < processCount;
            return process >= 0 ? processIndex == process : !known;
        };
        std::vector<int> hostLanes;
        for (size_t i = 0; i < session.hostLanes.size(); ++i) {
            const int32_t thread = session.hostLanes[i].threadIndex;
            const int32_t owner =
                thread >= 0 && thread < static_cast<int32_t>(session.threads.size())
                    ? session.threads[thread].processIndex
                    : -1;
            if (inGroup(owner))
                hostLanes.push_back(static_cast<int>(i));
        }
        std::vector<int> devices;
        for (size_t d = 0; d < session.devices.size(); ++d)
            if (inGroup(session.devices[d].processIndex))
                devices.push_back(static_cast<int>(d));
        const bool orphanStreams =
            process < 0 && std::any_of(session.streamLanes.begin(), session.streamLanes.end(),
                                       [&](const model::StreamLane& lane) {
                                           return lane.streamIndex < 0 ||
                                                  lane.streamIndex >= static_cast<int32_t>(
                                                                          session.streams.size()) ||
                                                  session.streams[lane.streamIndex].deviceIndex < 0;
                                       });
        if (hostLanes.empty() && devices.empty() && !orphanStreams)
            continue;

        add(LaneKind::ProcessHeader, process, 0, kHeaderHeight,
            process >= 0 ? processLabel(session.processes[process]) : QStringLiteral("Other"));
        for (int index : hostLanes) {
            const model::HostLane& host = session.hostLanes[index];
            const QString label =
                host.threadIndex >= 0 &&
                        host.threadIndex < static_cast<int32_t>(session.threads.size())
                    ? threadLabel(session.threads[host.threadIndex])
                    : QStringLiteral("Thread ?");
            add(LaneKind::HostThread, index, 0, kThreadHeight, label);
            for (size_t depth = 0; depth < host.rangesByDepth.size(); ++depth)
                add(LaneKind::Range, index, static_cast<int32_t>(depth), kRangeHeight,
                    QStringLiteral("ranges · %1").arg(depth));
        }
        std::vector<int> deviceGroups = devices;
        if (orphanStreams)
            deviceGroups.push_back(-1);
        for (int device : deviceGroups) {
            const QString gpu =
                device >= 0 ? QStringLiteral("GPU %1").arg(session.devices[device].deviceIndex)
                            : QStringLiteral("GPU ?");
            bool headerAdded = false;
            for (size_t s = 0; s < session.streamLanes.size(); ++s) {
                const int32_t streamIndex = session.streamLanes[s].streamIndex;
                const bool known =
                    streamIndex >= 0 && streamIndex < static_cast<int32_t>(session.streams.size());
                const int32_t owner = known ? session.streams[streamIndex].deviceIndex : -1;
                if (device >= 0 ? owner != device : owner >= 0)
                    continue;
                if (!headerAdded) {
                    add(LaneKind::DeviceHeader, device, 0, kHeaderHeight,
                        device >= 0 ? deviceLabel(session.devices[device])
                                    : QStringLiteral("Unknown GPU"));
                    headerAdded = true;
                }
                QString label = gpu + QStringLiteral(" · stream ");
                if (known) {
                    const model::StreamInfo& stream = session.streams[streamIndex];
                    label += QString::number(stream.streamId);
                    if (stream.isDefault)
                        label += QStringLiteral(" (default)");
                } else {
                    label += QStringLiteral("?");
                }
                add(LaneKind::Stream, static_cast<int32_t>(s), 0, kStreamHeight, label);
            }
        }
    }
}

int TimelineLayout::contentHeight() const {
    return m_lanes.empty() ? 0 : m_lanes.back().y + m_lanes.back().height;
}

int TimelineLayout::laneAt(int y) const {
    auto it = std::upper_bound(m_lanes.begin(), m_lanes.end(), y,
                               [](int value, const TimelineLane& lane) { return value < lane.y; });
    if (it == m_lanes.begin())
        return -1;
    --it;
    return y < it->y + it->height ? static_cast<int>(it - m_lanes.begin()) : -1;
}

int TimelineLayout::find(LaneKind kind, int32_t source, int32_t depth) const {
    for (size_t i = 0; i < m_lanes.size(); ++i)
        if (m_lanes[i].kind == kind && m_lanes[i].source == source && m_lanes[i].depth == depth)
            return static_cast<int>(i);
    return -1;
}

} // namespace stallscope::views
