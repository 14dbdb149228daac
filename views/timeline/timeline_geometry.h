// TimelineGeometry: where the timeline's parts lie in widget coordinates at one moment: the
// canvas (right of the label column, below the ruler), each lane's rectangle at the current
// scroll position, the x of a time and the row that shows an event. TimelineWidget makes one from
// its state for each question or frame; its painters take one rather than the widget, so that
// what they draw depends only on what they are given.
#pragma once

#include "model/session/event_ref.h"
#include "views/timeline/timeline_layout.h"
#include "views/timeline/timeline_viewport.h"

#include <QRect>

#include <cstdint>

namespace stallscope::views {

class TimelineGeometry {
public:
    // canvas: the events' area, widget coordinates; scroll: how far the lanes are scrolled up.
    TimelineGeometry(const TimelineLayout& layout, const TimelineViewport& viewport,
                     const QRect& canvas, int scroll);

    const TimelineLayout& layout() const { return *m_layout; }
    const TimelineViewport& viewport() const { return *m_viewport; }
    const QRect& canvas() const { return m_canvas; }

    // A lane's rectangle (may lie outside the canvas).
    QRect laneRect(int row) const;
    // The row at widget y (below the ruler), or -1.
    int laneAtY(int widgetY) const;
    double xForTime(int64_t timeNs) const;
    int64_t timeForX(double widgetX) const;
    // The row showing an event's lane, or -1 when it is collapsed away.
    int rowOf(const model::EventRef& event) const;

private:
    const TimelineLayout* m_layout;
    const TimelineViewport* m_viewport;
    QRect m_canvas;
    int m_scroll;
};

} // namespace stallscope::views
