// TimelineLayout: the vertical arrangement of the timeline's lanes. Per process: a header, one
// lane per host thread followed by its NVTX/scope rows by depth, then per device a header, a
// GPU-busy track and one lane per stream ("GPU 0 · stream 7"). Pure data, testable without
// painting.
//
// The lanes form a tree (process → threads → ranges, process → device → busy + streams). Users
// collapse nodes and reorder siblings; that state is kept by lane key across relayouts, so it
// survives rebuilding for the same session (the widget resets it for a new one).
#pragma once

#include <QString>

#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

enum class LaneKind : uint8_t {
    ProcessHeader, // source = process index (-1: threads/devices without a process)
    HostThread,    // source = Session::hostLanes index
    Range,         // source = Session::hostLanes index, depth = range depth
    DeviceHeader,  // source = device index (-1: streams without a device)
    GpuBusy,       // source = device index (-1: streams without a device): share of time busy
    Stream,        // source = Session::streamLanes index
};

// Identifies a lane independently of its row: what collapse and order state are keyed by.
struct LaneKey {
    LaneKind kind = LaneKind::HostThread;
    int32_t source = -1;
    int32_t depth = 0;
    auto operator<=>(const LaneKey&) const = default;
};

struct TimelineLane {
    LaneKind kind = LaneKind::HostThread;
    int32_t source = -1;
    int32_t depth = 0;
    int y = 0; // top, in content coordinates (0 = just below the ruler)
    int height = 0;
    QString label;
    int32_t parent = -1; // row of the lane this one belongs to; -1 for process headers
    int level = 0;       // nesting depth, for indentation
    bool collapsible = false;
    bool collapsed = false;

    LaneKey key() const { return {kind, source, depth}; }
    bool isHeader() const {
        return kind == LaneKind::ProcessHeader || kind == LaneKind::DeviceHeader;
    }
};

class TimelineLayout {
public:
    static constexpr int kHeaderHeight = 20;
    static constexpr int kThreadHeight = 24;
    static constexpr int kRangeHeight = 16;
    static constexpr int kBusyHeight = 18;
    static constexpr int kStreamHeight = 22;

    // Builds the lane tree for the session and lays it out with the current collapse and order
    // state (call resetState() first for a different session).
    void build(const model::Session& session);
    void clear();
    void resetState();

    const std::vector<TimelineLane>& lanes() const { return m_lanes; }
    int contentHeight() const;
    // Index of the lane at content y, or -1.
    int laneAt(int y) const;
    // Row of the lane of the given kind and source, or -1 (e.g. the lane of host lane 0).
    int find(LaneKind kind, int32_t source, int32_t depth = 0) const;

    // Collapsing a process hides all its lanes, a device its streams (its busy track stays, as
    // the summary of what is hidden), a thread its NVTX rows.
    bool isCollapsed(const LaneKey& key) const { return m_collapsed.count(key) != 0; }
    void setCollapsed(const LaneKey& key, bool collapsed);
    void toggleCollapsed(int row);
    // Moves row `from` (with its lanes) to the place of row `to`: both must be siblings of one
    // kind (threads of one process, streams of one device, devices, processes).
    bool canMove(int from, int to) const;
    bool moveLane(int from, int to);

private:
    struct Node {
        TimelineLane lane; // y and parent are assigned when laying out
        std::vector<int> children;
    };
    int addNode(int parentNode, LaneKind kind, int32_t source, int32_t depth, int height,
                QString label);
    void layOut();
    void layOutNode(int node, int32_t parentRow);
    std::vector<int> orderedChildren(const std::vector<int>& children) const;

    std::vector<Node> m_nodes;
    std::vector<int> m_roots;
    std::vector<int> m_rowNode; // node of each row
    std::vector<TimelineLane> m_lanes;
    std::set<LaneKey> m_collapsed;
    std::map<LaneKey, int> m_rank; // user order among siblings; default: build order
};

} // namespace stallscope::views
