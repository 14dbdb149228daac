// TimelinePainter: the timeline's picture under the overlay: the lanes from the draw list
// (stripes, grid, blocks, busy tracks, the names inside wide events), the label column's lane
// headers and the time ruler. It paints what a TimelineFrame and its other arguments give it,
// never reading the widget; its one state is the image of the canvas's lanes, kept between frames
// so that a zoomed-out run's many small rectangles are written into it and drawn in one blit.
#pragma once

#include "model/session/event_ref.h"
#include "views/timeline/draw_list.h"
#include "views/timeline/lane_label_column.h"
#include "views/timeline/ruler_labels.h"
#include "views/timeline/timeline_geometry.h"

#include <QCoreApplication>
#include <QFont>
#include <QImage>
#include <QMargins>
#include <QPalette>
#include <QRgb>

#include <functional>
#include <utility>

class QPainter;

namespace stallscope::views {

// What each part of one frame is painted from: the widget's geometry, draw list and look.
struct TimelineFrame {
    const TimelineGeometry& geometry;
    const DrawList& drawList; // for geometry's viewport and rows
    const QPalette& palette;
    const QFont& font;
    int width; // the widget's
};

class TimelinePainter {
    Q_DECLARE_TR_FUNCTIONS(TimelinePainter)
public:
    // From this many blocks on, paintLanes writes the lanes into its image.
    static constexpr size_t kBlocksForTheImage = 20'000;
    // How a block of this kind sits in its lane: syncs fill it and stand out against the thinner
    // API calls they block in. The overlay outlines an event where the lanes drew it.
    static QMargins blockInsets(model::EventKind kind);

    // The canvas: lane stripes, grid, blocks, busy tracks, then the labels inside wide events.
    void paintLanes(QPainter& painter, const TimelineFrame& frame);
    // The label column: each lane's label (elided), collapse triangle and separator; while a lane
    // header is dragged (laneDrag: its row and the row under the cursor), where it would land;
    // the column's edge, thicker while dragged.
    static void paintHeaders(QPainter& painter, const TimelineFrame& frame,
                             const LaneLabelColumn& labels, std::pair<int, int> laneDrag,
                             bool edgeDragged);
    // The ruler: the visible span in the corner, ticks and their labels, the range's band and
    // length badge.
    static void paintRuler(QPainter& painter, const TimelineFrame& frame, const RulerLabels& labels,
                           const RulerRange& range);

private:
    using Fill = std::function<void(const QRect&, QRgb)>;
    static void paintLaneRects(const TimelineFrame& frame, QSize size, const Fill& fill);
    static void paintBusyTrack(const TimelineFrame& frame, const Fill& fill, const QRect& lane,
                               size_t row);

    QImage m_laneImage; // the canvas's lanes, painted anew each frame (paintLanes)
};

} // namespace stallscope::views
