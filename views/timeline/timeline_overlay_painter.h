// TimelineOverlayPainter: what goes over the lanes and changes without rebuilding them: the
// hatching of time a capture range left out, the highlight's veil with the highlighted events
// over it, a finding's after-fix ghosts and their legend, the ruler range's band, the hovered and
// selected events' outlines and a selected sync's arrows. It reads only the TimelineOverlay it is
// given (the selection state, and a few binary searches per frame), so hover and selection
// repaint without a draw-list build.
#pragma once

#include "model/session/event_ref.h"
#include "model/session/session.h"
#include "views/timeline/after_fix_bars.h"
#include "views/timeline/ruler_labels.h"
#include "views/timeline/sync_link.h"
#include "views/timeline/timeline_painter.h"

#include <QCoreApplication>
#include <QRect>
#include <QString>

#include <vector>

class QPainter;

namespace stallscope::views {

// What the overlay shows, as the widget holds it.
struct TimelineOverlay {
    const std::vector<model::TimeSpan>& notRecorded;
    const model::EventSpans& highlight;
    // The after-fix ghosts and their legend; none without a fix shown.
    const std::vector<GhostBlock>* ghosts = nullptr;
    QString afterFixLegend;
    const RulerRange& range;
    model::EventRef hover;
    model::EventRef selection;
    const SyncLinkTargets& link;
};

class TimelineOverlayPainter {
    Q_DECLARE_TR_FUNCTIONS(TimelineOverlayPainter)
public:
    TimelineOverlayPainter(const model::Session& session, const TimelineFrame& frame);

    // Clipped to the canvas.
    void paint(QPainter& painter, const TimelineOverlay& overlay) const;

private:
    // An event's outline, widget coordinates, at least 3 px wide; invalid when not shown.
    QRect eventRect(const model::EventRef& event) const;
    void paintNotRecorded(QPainter& painter, const std::vector<model::TimeSpan>& gaps) const;
    void paintHighlight(QPainter& painter, const model::EventSpans& highlight) const;
    void paintAfterFix(QPainter& painter, const std::vector<GhostBlock>& ghosts,
                       const QString& legend) const;
    void paintRange(QPainter& painter, const RulerRange& range) const;
    void paintLinks(QPainter& painter, const SyncLinkTargets& link) const;

    const model::Session& m_session;
    TimelineFrame m_frame;
};

} // namespace stallscope::views
