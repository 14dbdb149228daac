// TimelineLayout: the vertical arrangement of the timeline's lanes. Per process: a header, one
// lane per host thread followed by its NVTX/scope rows by depth, then per device a header, a
// GPU-busy track and one lane per stream ("GPU 0 · stream 7"). Pure data, testable without
// painting.
//
// Lane heights follow the room: each kind has a minimum (the constants below) and a maximum
// (maximumHeight). Given the pane's height (setAvailableHeight), lanes that would leave the pane
// partly empty grow towards their maximum, all by the same share of their headroom, until they
// fill it; with more lanes than fit they keep their minimum and the pane scrolls. Headers never
// grow.
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
    // Minimum heights: a thread or stream lane shows a stall's "blocked 2.2 ms" label inside it.
    static constexpr int kHeaderHeight = 22;
    static constexpr int kThreadHeight = 28;
    static constexpr int kRangeHeight = 18;
    static constexpr int kBusyHeight = 22;
    static constexpr int kStreamHeight = 28;
    static int minimumHeight(LaneKind kind);
    // How tall a lane of this kind grows when the pane has room to spare.
    static int maximumHeight(LaneKind kind);

    // Builds the lane tree for the session and lays it out with the current collapse and order
    // state (call resetState() first for a different session).
    void build(const model::Session& session);
    void clear();
    void resetState();

    const std::vector<TimelineLane>& lanes() const { return m_lanes; }
    // The pane's height in pixels: lanes grow to fill it (0: every lane at its minimum).
    void setAvailableHeight(int pixels);
    int contentHeight() const;
    // The height of the visible lanes at their minimum heights, whatever the room.
    int naturalHeight() const;
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
    int addNode(int parentNode, LaneKind kind, int32_t source, int32_t depth, QString label);
    void layOut();
    void layOutNode(int node, int32_t parentRow);
    void fitHeights(); // heights and y of m_lanes for m_available
    std::vector<int> orderedChildren(const std::vector<int>& children) const;

    std::vector<Node> m_nodes;
    std::vector<int> m_roots;
    std::vector<int> m_rowNode; // node of each row
    std::vector<TimelineLane> m_lanes;
    std::set<LaneKey> m_collapsed;
    std::map<LaneKey, int> m_rank; // user order among siblings; default: build order
    int m_available = 0;
};

} // namespace stallscope::views
