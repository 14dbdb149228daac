#include "views/timeline/timeline_painter.h"

#include "model/session/session_summary.h"
#include "views/timeline/opaque_fill.h"
#include "views/timeline/time_ruler.h"
#include "views/timeline/timeline_palette.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace stallscope::views {

namespace {

// `pixel` under black of opacity alpha/255, as QPainter's source-over blends it.
QRgb darkenedBy(QRgb pixel, int alpha) {
    auto channel = [alpha](int c) { return (c * (255 - alpha) + 127) / 255; };
    return qRgb(channel(qRed(pixel)), channel(qGreen(pixel)), channel(qBlue(pixel)));
}

} // namespace

QMargins TimelinePainter::blockInsets(model::EventKind kind) {
    switch (kind) {
    case model::EventKind::Sync:
        return {0, 1, 0, 1};
    case model::EventKind::ApiCall:
        return {0, 5, 0, 5};
    case model::EventKind::Range:
        return {0, 1, 0, 1};
    default:
        return {0, 2, 0, 2};
    }
}

// Lane stripes, grid, blocks and busy tracks are opaque rectangles (paintLaneRects). Many of them
// (a zoomed-out run: ~70 k a pixel or two wide) go into m_laneImage, written directly
// (opaque_fill.h) and drawn in one blit; a few go to the painter, whose large fills beat a pass
// over the image and its blit. Either way the same pixels; the labels then go over them.
void TimelinePainter::paintLanes(QPainter& painter, const TimelineFrame& frame) {
    const DrawList& list = frame.drawList;
    const TimelineGeometry& geometry = frame.geometry;
    const QRect& canvas = geometry.canvas();
    const QPoint origin = canvas.topLeft();
    if (list.blocks().size() >= kBlocksForTheImage) {
        if (m_laneImage.size() != canvas.size())
            m_laneImage = QImage(canvas.size(), QImage::Format_RGB32);
        paintLaneRects(frame, canvas.size(), [&](const QRect& rect, QRgb color) {
            fillOpaque(m_laneImage, rect, color);
        });
        painter.drawImage(origin, m_laneImage);
    } else {
        painter.save();
        painter.setClipRect(canvas);
        paintLaneRects(frame, canvas.size(), [&](const QRect& rect, QRgb color) {
            painter.fillRect(rect.translated(origin), QColor(color));
        });
        painter.restore();
    }
    // Labels inside events that are wide enough.
    painter.save();
    painter.setClipRect(canvas);
    QFont font = frame.font;
    font.setPointSizeF(font.pointSizeF() * 0.85);
    painter.setFont(font);
    const QFontMetrics metrics(font);
    for (const DrawLabel& label : list.labels()) {
        const QRect lane = geometry.laneRect(static_cast<int>(label.lane));
        if (!lane.intersects(canvas))
            continue;
        const int left = canvas.left() + std::max(0, static_cast<int>(label.x0)) + 3;
        const int right = canvas.left() + std::min(canvas.width(), static_cast<int>(label.x1)) - 3;
        if (right - left < 12)
            continue;
        const QString text = metrics.elidedText(label.text, Qt::ElideRight, right - left);
        if (text.isEmpty() || text == QStringLiteral("…"))
            continue;
        painter.setPen(TimelinePalette::textOn(label.color));
        painter.drawText(QRect(left, lane.top(), right - left, lane.height()),
                         Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    painter.restore();
}

// The canvas's rectangles in canvas coordinates, in painting order: lane backgrounds (alternating
// stripes, group headers shaded) with the ruler's grid lines over them, the canvas below the last
// lane, then each lane's blocks or busy bars.
void TimelinePainter::paintLaneRects(const TimelineFrame& frame, QSize size, const Fill& fill) {
    const DrawList& list = frame.drawList;
    const TimelineGeometry& geometry = frame.geometry;
    const auto& lanes = geometry.layout().lanes();
    const QPoint origin = geometry.canvas().topLeft();
    const QRect area(QPoint(0, 0), size);
    const QRgb base = frame.palette.base().color().rgb();
    const QRgb header = frame.palette.window().color().darker(104).rgb();
    const QRgb alternate = frame.palette.alternateBase().color().rgb();
    std::vector<int> gridX;
    for (const RulerTick& tick : TimeRuler::ticks(geometry.viewport()))
        gridX.push_back(static_cast<int>(std::floor(tick.x)));
    int stripe = 0;
    int lanesBottom = 0;
    for (size_t i = 0; i < lanes.size(); ++i) {
        const QRect lane = geometry.laneRect(static_cast<int>(i)).translated(-origin);
        lanesBottom = std::max(lanesBottom, lane.bottom() + 1);
        QRgb color = base;
        if (lanes[i].isHeader()) {
            stripe = 0;
            color = header;
        } else {
            color = (stripe++ % 2) ? alternate : base;
        }
        if (!lane.intersects(area))
            continue;
        fill(lane, color);
        // Grid lines behind the events: black at 22/255 over the stripe.
        for (int x : gridX)
            fill(QRect(x, lane.top(), 1, lane.height()), darkenedBy(color, 22));
    }
    if (lanesBottom < size.height()) {
        fill(QRect(0, lanesBottom, size.width(), size.height() - lanesBottom), base);
        for (int x : gridX)
            fill(QRect(x, lanesBottom, 1, size.height() - lanesBottom), darkenedBy(base, 22));
    }
    // Blocks, in the draw list's order (a host lane's syncs after its API calls: on top). Runs of
    // narrow blocks of one colour and height are coalesced into one rectangle; events a few
    // pixels wide keep a one-pixel gap at their end so back-to-back events stay distinguishable.
    constexpr int kNarrow = 3;
    for (size_t i = 0; i < lanes.size(); ++i) {
        const QRect lane = geometry.laneRect(static_cast<int>(i)).translated(-origin);
        if (!lane.intersects(area))
            continue;
        if (lanes[i].kind == LaneKind::GpuBusy) {
            paintBusyTrack(frame, fill, lane, i);
            continue;
        }
        QRect pending;
        QRgb pendingColor = 0;
        bool pendingNarrow = false;
        for (const DrawBlock& block : list.laneBlocks(i)) {
            const int left = static_cast<int>(std::floor(block.x0));
            const int right = std::max(left + 1, static_cast<int>(std::lround(block.x1)));
            const bool narrow = right - left <= kNarrow;
            QRect rect = QRect(QPoint(left, lane.top()), QPoint(right - 1, lane.bottom())) -
                         blockInsets(block.kind);
            if (!narrow)
                rect.setRight(rect.right() - 1);
            if (block.fill < 1.0f) // density: bottom-aligned, as tall as the pixels are busy
                rect.setTop(rect.bottom() + 1 -
                            std::max(2, static_cast<int>(std::lround(rect.height() * block.fill))));
            if (narrow && pendingNarrow && pending.isValid() && pendingColor == block.color &&
                rect.top() == pending.top() && rect.left() <= pending.right() + 1) {
                pending.setRight(std::max(pending.right(), rect.right()));
                continue;
            }
            if (pending.isValid())
                fill(pending, pendingColor);
            pending = rect;
            pendingColor = block.color;
            pendingNarrow = narrow;
        }
        if (pending.isValid())
            fill(pending, pendingColor);
    }
}

// One bar per pixel column, as tall as the column is busy; equal neighbours are one rectangle.
void TimelinePainter::paintBusyTrack(const TimelineFrame& frame, const Fill& fill,
                                     const QRect& lane, size_t row) {
    const std::span<const float> values = frame.drawList.busyValues(row);
    const int usable = lane.height() - 2;
    const QRgb color = TimelinePalette::gpuBusy();
    int runStart = 0;
    int runHeight = -1;
    auto flush = [&](int end) {
        if (runHeight > 0)
            fill(
                QRect(lane.left() + runStart, lane.bottom() - runHeight, end - runStart, runHeight),
                color);
    };
    for (int x = 0; x < static_cast<int>(values.size()); ++x) {
        // Any work at all shows as at least one pixel: a 0.2 % busy GPU is not an idle one.
        const float v = values[x];
        const int h = v <= 0.0f ? 0 : std::max(1, static_cast<int>(std::lround(v * usable)));
        if (h != runHeight) {
            flush(x);
            runStart = x;
            runHeight = h;
        }
    }
    flush(static_cast<int>(values.size()));
}

void TimelinePainter::paintHeaders(QPainter& painter, const TimelineFrame& frame,
                                   const LaneLabelColumn& labels, std::pair<int, int> laneDrag,
                                   bool edgeDragged) {
    const TimelineGeometry& geometry = frame.geometry;
    const QPalette& palette = frame.palette;
    const QRect& canvas = geometry.canvas();
    const QRect column(0, canvas.top(), labels.width(), canvas.height());
    painter.save();
    painter.setClipRect(column); // group titles too: the canvas is the events' alone
    painter.fillRect(column, palette.window());
    const auto& lanes = geometry.layout().lanes();
    const auto [dragRow, dropRow] = laneDrag;
    const bool dropping = geometry.layout().canMove(dragRow, dropRow);
    for (size_t i = 0; i < lanes.size(); ++i) {
        const TimelineLane& lane = lanes[i];
        const QRect rect = geometry.laneRect(static_cast<int>(i));
        const QRect row(0, rect.top(), labels.width(), rect.height());
        if (!row.intersects(column))
            continue;
        const QRect text = labels.labelRect(lane, rect);
        painter.setFont(LaneLabelColumn::labelFont(lane, frame.font));
        if (lane.isHeader()) {
            painter.fillRect(row, palette.window().color().darker(110));
            painter.setPen(palette.color(QPalette::WindowText));
        } else if (lane.kind == LaneKind::Range || lane.kind == LaneKind::GpuBusy) {
            painter.setPen(palette.color(QPalette::PlaceholderText));
        } else {
            painter.setPen(palette.color(QPalette::WindowText));
        }
        if (dropping && static_cast<int>(i) == dragRow)
            painter.fillRect(row, QColor(TimelinePalette::selection()).lighter(180));
        if (lane.collapsible) { // ▸ collapsed, ▾ expanded
            const QPointF c(text.left() - 9.0, row.center().y() + 0.5);
            QPainterPath triangle;
            if (lane.collapsed) {
                triangle.moveTo(c + QPointF(-2.5, -4.0));
                triangle.lineTo(c + QPointF(2.5, 0.0));
                triangle.lineTo(c + QPointF(-2.5, 4.0));
            } else {
                triangle.moveTo(c + QPointF(-4.0, -2.0));
                triangle.lineTo(c + QPointF(4.0, -2.0));
                triangle.lineTo(c + QPointF(0.0, 3.0));
            }
            triangle.closeSubpath();
            painter.fillPath(triangle, palette.color(QPalette::WindowText));
        }
        painter.drawText(
            text, Qt::AlignVCenter | Qt::AlignLeft,
            labels.shownText(geometry.layout(), frame.drawList, static_cast<int>(i), frame.font));
        painter.setPen(palette.color(QPalette::Mid));
        painter.drawLine(row.bottomLeft(), row.bottomRight());
    }
    if (dropping) { // where the dragged lane will land
        const QRect target = geometry.laneRect(dropRow);
        const int y = dropRow > dragRow ? target.bottom() : target.top();
        painter.fillRect(QRect(0, y - 1, labels.width(), 3), QColor(TimelinePalette::selection()));
    }
    painter.restore();
    // The column's edge, thicker while dragged: it is a handle.
    painter.setPen(QPen(palette.color(edgeDragged ? QPalette::Highlight : QPalette::Mid),
                        edgeDragged ? 2 : 1));
    painter.drawLine(column.topRight(), column.bottomRight());
}

void TimelinePainter::paintRuler(QPainter& painter, const TimelineFrame& frame,
                                 const RulerLabels& labels, const RulerRange& range) {
    const TimelineGeometry& geometry = frame.geometry;
    const QPalette& palette = frame.palette;
    const QRect& canvas = geometry.canvas();
    constexpr int kHeight = TimeRuler::kHeight;
    const QRect ruler(canvas.left(), 0, canvas.width(), kHeight);
    painter.fillRect(QRect(0, 0, frame.width, kHeight), palette.window());
    // Corner, over the label column: the visible span, so the scale is readable at a glance.
    painter.setPen(palette.color(QPalette::WindowText));
    painter.drawText(QRect(8, 0, canvas.left() - 16, kHeight), Qt::AlignVCenter | Qt::AlignLeft,
                     tr("View: %1")
                         .arg(QString::fromStdString(model::formatDuration(
                             std::llround(geometry.viewport().visibleDurationNs())))));
    painter.save();
    painter.setClipRect(ruler);
    if (range.active) {
        const double a = geometry.xForTime(std::min(range.startNs, range.endNs));
        const double b = geometry.xForTime(std::max(range.startNs, range.endNs));
        const QRectF band(a, 0, std::max(1.0, b - a), kHeight - 1);
        QColor fill(TimelinePalette::selection());
        fill.setAlpha(70);
        painter.fillRect(band, fill);
    }
    painter.setPen(palette.color(QPalette::Dark));
    for (const RulerTick& tick : TimeRuler::ticks(geometry.viewport())) {
        const int x = canvas.left() + static_cast<int>(std::floor(tick.x));
        painter.drawLine(x, kHeight - 8, x, kHeight - 1);
    }
    painter.setPen(palette.color(QPalette::WindowText));
    for (const RulerLabels::Label& label : labels.ticks()) // none under the badge
        painter.drawText(label.rect, Qt::AlignVCenter | Qt::AlignLeft, label.text);
    const QRect& plate = labels.badgeRect(); // the range's length, over the ticks
    if (plate.isValid()) {
        painter.fillRect(plate, QColor(TimelinePalette::selection()));
        painter.setPen(Qt::white);
        painter.drawText(plate, Qt::AlignCenter, labels.badgeText());
    }
    painter.restore();
    painter.setPen(palette.color(QPalette::Mid));
    painter.drawLine(0, kHeight - 1, frame.width, kHeight - 1);
}

} // namespace stallscope::views
