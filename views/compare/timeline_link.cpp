#include "views/compare/timeline_link.h"

#include "views/timeline/timeline_widget.h"

#include <cmath>

namespace stallscope::views {

TimelineLink::TimelineLink(TimelineWidget* first, TimelineWidget* second, QObject* parent)
    : QObject(parent), m_first(first), m_second(second) {
    connect(first, &TimelineWidget::viewportChanged, this,
            [this] { follow(m_first, m_second, m_offsetNs); });
    connect(second, &TimelineWidget::viewportChanged, this,
            [this] { follow(m_second, m_first, -m_offsetNs); });
}

void TimelineLink::align(int64_t firstNs, int64_t secondNs) {
    m_offsetNs = secondNs - firstNs;
    m_following = true; // setting the origins moves no view: nothing to follow yet
    m_first->setTimeOrigin(firstNs);
    m_second->setTimeOrigin(secondNs);
    m_following = false;
    follow(m_first, m_second, m_offsetNs);
}

void TimelineLink::follow(TimelineWidget* leader, TimelineWidget* follower, int64_t shiftNs) {
    if (m_following || !leader || !follower)
        return;
    m_following = true;
    // The same scale from the same left edge, rather than the same range: a timeline with a
    // scroll bar has a narrower canvas, and the same range would then end at another x.
    const TimelineViewport& view = leader->viewport();
    const int64_t start = view.visibleStartNs() + shiftNs;
    const auto span = std::llround(view.nsPerPixel() * follower->viewport().width());
    follower->setVisibleRange(start, start + span);
    m_following = false;
}

} // namespace stallscope::views
