// TimelineLink: keeps two timelines on one time axis. A moment of the first run and a moment of
// the second (compare view: each run's first step) are declared the same: both rulers count from
// them, and whatever changes one viewport — zoom, pan, framing, a resize — is applied to the
// other, shifted by the difference. Where the other run's data range clamps the shifted view it
// stays clamped; nothing bounces back. Same scale, same left edge: x means one moment in both.
#pragma once

#include <QObject>
#include <QPointer>

#include <cstdint>

namespace stallscope::views {

class TimelineWidget;

class TimelineLink : public QObject {
    Q_OBJECT
public:
    TimelineLink(TimelineWidget* first, TimelineWidget* second, QObject* parent = nullptr);

    // `firstNs` in the first timeline's session is `secondNs` in the second's. Sets both rulers'
    // origins and brings the second timeline to the first one's view.
    void align(int64_t firstNs, int64_t secondNs);
    // Second minus first: what a time of the first run adds to be the same moment of the second.
    int64_t offsetNs() const { return m_offsetNs; }

private:
    void follow(TimelineWidget* leader, TimelineWidget* follower, int64_t shiftNs);

    QPointer<TimelineWidget> m_first;
    QPointer<TimelineWidget> m_second;
    int64_t m_offsetNs = 0;
    bool m_following = false; // the follower's own viewportChanged is not followed back
};

} // namespace stallscope::views
