// TimelineLayout: the vertical arrangement of the timeline's lanes. Per process: a header, one
// lane per host thread followed by its NVTX/scope rows by depth, then per device a header and one
// lane per stream ("GPU 0 · stream 7"). Pure data, testable without painting.
#pragma once

#include <QString>

#include <cstdint>
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
    Stream,        // source = Session::streamLanes index
};

struct TimelineLane {
    LaneKind kind = LaneKind::HostThread;
    int32_t source = -1;
    int32_t depth = 0;
    int y = 0; // top, in content coordinates (0 = just below the ruler)
    int height = 0;
    QString label;
    bool isHeader() const {
        return kind == LaneKind::ProcessHeader || kind == LaneKind::DeviceHeader;
    }
};

class TimelineLayout {
public:
    static constexpr int kHeaderHeight = 20;
    static constexpr int kThreadHeight = 24;
    static constexpr int kRangeHeight = 16;
    static constexpr int kStreamHeight = 22;

    void build(const model::Session& session);
    void clear() { m_lanes.clear(); }

    const std::vector<TimelineLane>& lanes() const { return m_lanes; }
    int contentHeight() const;
    // Index of the lane at content y, or -1.
    int laneAt(int y) const;
    // First lane of the given kind and source, or -1 (e.g. the lane of host lane 0).
    int find(LaneKind kind, int32_t source, int32_t depth = 0) const;

private:
    void add(LaneKind kind, int32_t source, int32_t depth, int height, QString label);

    std::vector<TimelineLane> m_lanes;
};

} // namespace stallscope::views
