// TimelineHitTest: which event lies under a point of a lane. Binary search on the lane's columns
// (O(log n) per column, a bounded scan for nested API calls), so hovering stays far under a
// millisecond on a 10-million-event session. Events thinner than a pixel are picked when they
// lie within a few pixels of the cursor: the nearest wins, an event containing the time wins
// over any neighbour, and on a host lane a sync wins over the API call it blocks in.
#pragma once

#include "views/timeline/event_style.h"
#include "views/timeline/timeline_layout.h"
#include "views/timeline/timeline_viewport.h"

#include <cstddef>
#include <cstdint>

namespace stallscope::model {
class Session;
struct IntervalColumns;
} // namespace stallscope::model

namespace stallscope::views {

class TimelineHitTest {
public:
    static constexpr double kTolerancePx = 3.0;
    static constexpr size_t kNone = static_cast<size_t>(-1);

    // The event of `lane` at canvas x (viewport coordinates), or an invalid model::EventRef.
    static model::EventRef at(const model::Session& session, const TimelineLane& lane,
                              const TimelineViewport& viewport, double canvasX,
                              double tolerancePx = kTolerancePx);

    // Index of the event of `columns` nearest to time t (0 when t lies inside it) if that
    // distance is at most toleranceNs, else kNone; *distanceNs receives the distance.
    static size_t nearest(const model::IntervalColumns& columns, int64_t t, int64_t toleranceNs,
                          int64_t* distanceNs = nullptr);
};

} // namespace stallscope::views
