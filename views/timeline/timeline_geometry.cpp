#include "views/timeline/timeline_geometry.h"

namespace stallscope::views {

TimelineGeometry::TimelineGeometry(const TimelineLayout& layout, const TimelineViewport& viewport,
                                   const QRect& canvas, int scroll)
    : m_layout(&layout), m_viewport(&viewport), m_canvas(canvas), m_scroll(scroll) {}

QRect TimelineGeometry::laneRect(int row) const {
    const TimelineLane& lane = m_layout->lanes().at(row);
    return QRect(m_canvas.left(), m_canvas.top() + lane.y - m_scroll, m_canvas.width(),
                 lane.height);
}

int TimelineGeometry::laneAtY(int widgetY) const {
    if (widgetY < m_canvas.top()) // the ruler
        return -1;
    return m_layout->laneAt(widgetY - m_canvas.top() + m_scroll);
}

double TimelineGeometry::xForTime(int64_t timeNs) const {
    return m_canvas.left() + m_viewport->xForTime(timeNs);
}

int64_t TimelineGeometry::timeForX(double widgetX) const {
    return m_viewport->timeForX(widgetX - m_canvas.left());
}

int TimelineGeometry::rowOf(const model::EventRef& event) const {
    if (!event.isValid())
        return -1;
    switch (event.kind) {
    case model::EventKind::ApiCall:
    case model::EventKind::Sync:
        return m_layout->find(LaneKind::HostThread, event.lane);
    case model::EventKind::Range:
        return m_layout->find(LaneKind::Range, event.lane, event.depth);
    default:
        return m_layout->find(LaneKind::Stream, event.lane);
    }
}

} // namespace stallscope::views
