#include "views/timeline/timeline_layout.h"

#include "model/session/session.h"

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
    // A rank of a multi-GPU run is named by its rank first: that is what its logs call it.
    QString label =
        process.rank ? QStringLiteral("Rank %1 · pid %2").arg(process.rank->rank).arg(process.pid)
                     : QStringLiteral("Process %1").arg(process.pid);
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

int TimelineLayout::addNode(int parentNode, LaneKind kind, int32_t source, int32_t depth,
                            QString label) {
    Node node;
    node.lane.kind = kind;
    node.lane.source = source;
    node.lane.depth = depth;
    node.lane.label = std::move(label);
    node.lane.level = parentNode < 0 ? 0 : m_nodes[parentNode].lane.level + 1;
    const int index = static_cast<int>(m_nodes.size());
    m_nodes.push_back(std::move(node));
    if (parentNode < 0)
        m_roots.push_back(index);
    else
        m_nodes[parentNode].children.push_back(index);
    return index;
}

void TimelineLayout::clear() {
    m_nodes.clear();
    m_roots.clear();
    m_rowNode.clear();
    m_lanes.clear();
}

void TimelineLayout::resetState() {
    m_collapsed.clear();
    m_rank.clear();
}

void TimelineLayout::build(const model::Session& session) {
    clear();
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

        const int processNode = addNode(-1, LaneKind::ProcessHeader, process, 0,
                                        process >= 0 ? processLabel(session.processes[process])
                                                     : QStringLiteral("Other"));
        for (int index : hostLanes) {
            const model::HostLane& host = session.hostLanes[index];
            const QString label =
                host.threadIndex >= 0 &&
                        host.threadIndex < static_cast<int32_t>(session.threads.size())
                    ? threadLabel(session.threads[host.threadIndex])
                    : QStringLiteral("Thread ?");
            const int threadNode = addNode(processNode, LaneKind::HostThread, index, 0, label);
            for (size_t depth = 0; depth < host.rangesByDepth.size(); ++depth)
                addNode(threadNode, LaneKind::Range, index, static_cast<int32_t>(depth),
                        depth == 0 ? QStringLiteral("NVTX")
                                   : QStringLiteral("NVTX · depth %1").arg(depth));
        }
        std::vector<int> deviceGroups = devices;
        if (orphanStreams)
            deviceGroups.push_back(-1);
        for (int device : deviceGroups) {
            const QString gpu =
                device >= 0 ? QStringLiteral("GPU %1").arg(session.devices[device].deviceIndex)
                            : QStringLiteral("GPU ?");
            int deviceNode = -1;
            for (size_t s = 0; s < session.streamLanes.size(); ++s) {
                const int32_t streamIndex = session.streamLanes[s].streamIndex;
                const bool known =
                    streamIndex >= 0 && streamIndex < static_cast<int32_t>(session.streams.size());
                const int32_t owner = known ? session.streams[streamIndex].deviceIndex : -1;
                if (device >= 0 ? owner != device : owner >= 0)
                    continue;
                if (deviceNode < 0) {
                    deviceNode = addNode(processNode, LaneKind::DeviceHeader, device, 0,
                                         device >= 0 ? deviceLabel(session.devices[device])
                                                     : QStringLiteral("Unknown GPU"));
                    addNode(deviceNode, LaneKind::GpuBusy, device, 0,
                            gpu + QStringLiteral(" · busy"));
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
                addNode(deviceNode, LaneKind::Stream, static_cast<int32_t>(s), 0, label);
            }
        }
    }
    for (Node& node : m_nodes)
        node.lane.collapsible = !node.children.empty();
    layOut();
}

std::vector<int> TimelineLayout::orderedChildren(const std::vector<int>& children) const {
    std::vector<std::pair<int, int>> ranked; // (rank, node)
    ranked.reserve(children.size());
    for (size_t i = 0; i < children.size(); ++i) {
        const auto found = m_rank.find(m_nodes[children[i]].lane.key());
        ranked.emplace_back(found != m_rank.end() ? found->second : static_cast<int>(i),
                            children[i]);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<int> result;
    result.reserve(ranked.size());
    for (const auto& [rank, node] : ranked)
        result.push_back(node);
    return result;
}

void TimelineLayout::layOutNode(int node, int32_t parentRow) {
    TimelineLane lane = m_nodes[node].lane;
    lane.parent = parentRow;
    lane.collapsed = lane.collapsible && isCollapsed(lane.key());
    const int32_t row = static_cast<int32_t>(m_lanes.size());
    m_lanes.push_back(std::move(lane));
    m_rowNode.push_back(node);
    const bool collapsed = m_lanes.back().collapsed;
    const bool keepBusy = m_lanes.back().kind == LaneKind::DeviceHeader;
    for (int child : orderedChildren(m_nodes[node].children))
        if (!collapsed || (keepBusy && m_nodes[child].lane.kind == LaneKind::GpuBusy))
            layOutNode(child, row);
}

void TimelineLayout::layOut() {
    m_lanes.clear();
    m_rowNode.clear();
    for (int root : orderedChildren(m_roots))
        layOutNode(root, -1);
    fitHeights();
}

int TimelineLayout::minimumHeight(LaneKind kind) {
    switch (kind) {
    case LaneKind::ProcessHeader:
    case LaneKind::DeviceHeader:
        return kHeaderHeight;
    case LaneKind::HostThread:
        return kThreadHeight;
    case LaneKind::Range:
        return kRangeHeight;
    case LaneKind::GpuBusy:
        return kBusyHeight;
    case LaneKind::Stream:
        return kStreamHeight;
    }
    return kThreadHeight;
}

int TimelineLayout::maximumHeight(LaneKind kind) {
    switch (kind) {
    case LaneKind::ProcessHeader:
    case LaneKind::DeviceHeader:
        return kHeaderHeight;
    case LaneKind::HostThread:
    case LaneKind::Stream:
        return 96; // a few lanes fill a tall pane; taller bars stop helping
    case LaneKind::Range:
        return 32;
    case LaneKind::GpuBusy:
        return 56;
    }
    return kThreadHeight;
}

void TimelineLayout::setAvailableHeight(int pixels) {
    pixels = std::max(0, pixels);
    if (pixels == m_available)
        return;
    m_available = pixels;
    fitHeights();
}

int TimelineLayout::naturalHeight() const {
    int total = 0;
    for (const TimelineLane& lane : m_lanes)
        total += minimumHeight(lane.kind);
    return total;
}

// Every growable lane takes the same share of its headroom (max - min), so threads and streams
// grow more than NVTX rows; the pixels lost to rounding go to the first lanes that have room.
void TimelineLayout::fitHeights() {
    const int natural = naturalHeight();
    int headroom = 0;
    for (const TimelineLane& lane : m_lanes)
        headroom += maximumHeight(lane.kind) - minimumHeight(lane.kind);
    const int extra = std::clamp(m_available - natural, 0, headroom);
    int given = 0;
    for (TimelineLane& lane : m_lanes) {
        const int room = maximumHeight(lane.kind) - minimumHeight(lane.kind);
        const int grow = headroom > 0 ? static_cast<int>(int64_t(extra) * room / headroom) : 0;
        lane.height = minimumHeight(lane.kind) + grow;
        given += grow;
    }
    for (TimelineLane& lane : m_lanes) {
        if (given >= extra)
            break;
        if (lane.height < maximumHeight(lane.kind)) {
            ++lane.height;
            ++given;
        }
    }
    int y = 0;
    for (TimelineLane& lane : m_lanes) {
        lane.y = y;
        y += lane.height;
    }
}

void TimelineLayout::setCollapsed(const LaneKey& key, bool collapsed) {
    if (collapsed)
        m_collapsed.insert(key);
    else
        m_collapsed.erase(key);
    layOut();
}

void TimelineLayout::toggleCollapsed(int row) {
    if (row < 0 || static_cast<size_t>(row) >= m_lanes.size() || !m_lanes[row].collapsible)
        return;
    setCollapsed(m_lanes[row].key(), !m_lanes[row].collapsed);
}

bool TimelineLayout::canMove(int from, int to) const {
    const int count = static_cast<int>(m_lanes.size());
    if (from < 0 || to < 0 || from >= count || to >= count || from == to)
        return false;
    const TimelineLane& a = m_lanes[from];
    const TimelineLane& b = m_lanes[to];
    // Ranges keep their depth order and the busy track leads its device.
    if (a.kind == LaneKind::Range || a.kind == LaneKind::GpuBusy)
        return false;
    return a.kind == b.kind && a.parent == b.parent;
}

bool TimelineLayout::moveLane(int from, int to) {
    if (!canMove(from, to))
        return false;
    const int parentRow = m_lanes[from].parent;
    const std::vector<int>& siblings =
        parentRow < 0 ? m_roots : m_nodes[m_rowNode[parentRow]].children;
    std::vector<int> order = orderedChildren(siblings);
    const int fromNode = m_rowNode[from];
    const int toNode = m_rowNode[to];
    const auto fromAt = std::find(order.begin(), order.end(), fromNode) - order.begin();
    const auto toAt = std::find(order.begin(), order.end(), toNode) - order.begin();
    order.erase(order.begin() + fromAt);
    // Moving down lands after the target, moving up before it: the dragged lane takes its place.
    order.insert(order.begin() + toAt, fromNode);
    for (size_t i = 0; i < order.size(); ++i)
        m_rank[m_nodes[order[i]].lane.key()] = static_cast<int>(i);
    layOut();
    return true;
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
