// TimelineWidget's painting: the cached draw list (lanes, busy tracks, labels), then an overlay
// pass (highlight dimming, ruler range, hover, selection, sync links) that reads only the
// selection state and a few binary searches, so hover and selection never rebuild the list.
#include "views/timeline/timeline_widget.h"

#include "model/session/session.h"
#include "model/session/session_summary.h"
#include "views/timeline/lod_merge.h"
#include "views/timeline/opaque_fill.h"
#include "views/timeline/time_ruler.h"
#include "views/timeline/timeline_palette.h"

#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace stallscope::views {

namespace {

// Vertical insets per block kind: syncs fill the lane so they stand out against the thinner
// API calls they block in.
QMargins insetFor(model::EventKind kind) {
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

// `pixel` under black of opacity alpha/255, as QPainter's source-over blends it.
QRgb darkenedBy(QRgb pixel, int alpha) {
    auto channel = [alpha](int c) { return (c * (255 - alpha) + 127) / 255; };
    return qRgb(channel(qRed(pixel)), channel(qGreen(pixel)), channel(qBlue(pixel)));
}

void drawArrow(QPainter& painter, QPointF from, QPointF to, const QColor& color) {
    painter.drawLine(from, to);
    const QPointF d = to - from;
    const double length = std::hypot(d.x(), d.y());
    if (length < 1.0)
        return;
    const QPointF u = d / length;
    const QPointF n(-u.y(), u.x());
    constexpr double kHead = 8.0;
    QPainterPath head;
    head.moveTo(to);
    head.lineTo(to - u * kHead + n * kHead * 0.45);
    head.lineTo(to - u * kHead - n * kHead * 0.45);
    head.closeSubpath();
    painter.fillPath(head, color);
}

} // namespace

void TimelineWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QRect canvas = canvasRect();
    if (!m_session) {
        painter.fillRect(rect(), palette().base());
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No session loaded"));
        return;
    }
    // The lanes' image covers the canvas, paintHeaders the label column, paintRuler the ruler.
    paintLanes(painter, canvas);
    paintOverlay(painter, canvas);
    paintHeaders(painter, canvas);
    paintRuler(painter, canvas);
}

// Lane stripes, grid, blocks and busy tracks are opaque rectangles (paintLaneRects). Many of them
// (a zoomed-out run: ~70 k a pixel or two wide) go into m_laneImage, written directly
// (opaque_fill.h) and drawn in one blit; a few go to the painter, whose large fills beat a pass
// over the image and its blit. Either way the same pixels; the labels then go over them.
void TimelineWidget::paintLanes(QPainter& painter, const QRect& canvas) {
    const DrawList& list = drawList();
    const QPoint origin = canvas.topLeft();
    if (list.blocks().size() >= kBlocksForTheImage) {
        if (m_laneImage.size() != canvas.size())
            m_laneImage = QImage(canvas.size(), QImage::Format_RGB32);
        paintLaneRects(canvas.size(), [&](const QRect& rect, QRgb color) {
            fillOpaque(m_laneImage, rect, color);
        });
        painter.drawImage(origin, m_laneImage);
    } else {
        painter.save();
        painter.setClipRect(canvas);
        paintLaneRects(canvas.size(), [&](const QRect& rect, QRgb color) {
            painter.fillRect(rect.translated(origin), QColor(color));
        });
        painter.restore();
    }
    // Labels inside events that are wide enough.
    painter.save();
    painter.setClipRect(canvas);
    QFont font = this->font();
    font.setPointSizeF(font.pointSizeF() * 0.85);
    painter.setFont(font);
    const QFontMetrics metrics(font);
    for (const DrawLabel& label : list.labels()) {
        const QRect lane = laneRect(static_cast<int>(label.lane));
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
void TimelineWidget::paintLaneRects(QSize size,
                                    const std::function<void(const QRect&, QRgb)>& fill) {
    const DrawList& list = m_drawList;
    const auto& lanes = m_layout.lanes();
    const QPoint origin = canvasRect().topLeft();
    const QRect area(QPoint(0, 0), size);
    const QRgb base = palette().base().color().rgb();
    const QRgb header = palette().window().color().darker(104).rgb();
    const QRgb alternate = palette().alternateBase().color().rgb();
    std::vector<int> gridX;
    for (const RulerTick& tick : TimeRuler::ticks(m_viewport))
        gridX.push_back(static_cast<int>(std::floor(tick.x)));
    int stripe = 0;
    int lanesBottom = 0;
    for (size_t i = 0; i < lanes.size(); ++i) {
        const QRect lane = laneRect(static_cast<int>(i)).translated(-origin);
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
        const QRect lane = laneRect(static_cast<int>(i)).translated(-origin);
        if (!lane.intersects(area))
            continue;
        if (lanes[i].kind == LaneKind::GpuBusy) {
            paintBusyTrack(fill, lane, i);
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
                         insetFor(block.kind);
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
void TimelineWidget::paintBusyTrack(const std::function<void(const QRect&, QRgb)>& fill,
                                    const QRect& lane, size_t row) {
    const std::span<const float> values = m_drawList.busyValues(row);
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

QRect TimelineWidget::eventRect(const model::EventRef& event) const {
    const int row = rowOf(event);
    if (row < 0 || !m_session || !event.isIn(*m_session))
        return {};
    const QRect lane = laneRect(row) - insetFor(event.kind);
    const QRect canvas = canvasRect();
    double x0 = xForTime(event.start(*m_session));
    double x1 = xForTime(event.end(*m_session));
    if (x1 - x0 < 3.0) { // thin events get a findable outline
        const double middle = (x0 + x1) / 2.0;
        x0 = middle - 1.5;
        x1 = middle + 1.5;
    }
    x0 = std::max(x0, canvas.left() - 3.0);
    x1 = std::min(x1, canvas.right() + 3.0);
    if (x1 < x0)
        return {};
    return QRect(QPoint(static_cast<int>(std::floor(x0)), lane.top()),
                 QPoint(static_cast<int>(std::ceil(x1)) - 1, lane.bottom()));
}

void TimelineWidget::paintOverlay(QPainter& painter, const QRect& canvas) {
    painter.save();
    painter.setClipRect(canvas);
    // Time a capture range left out: hatched, so that an empty stretch is not read as idle.
    for (const model::TimeSpan& gap : m_notRecorded) {
        const double a = std::max<double>(canvas.left(), xForTime(gap.startNs));
        const double b = std::min<double>(canvas.right() + 1, xForTime(gap.endNs));
        if (b <= a)
            continue;
        const QRectF band(a, canvas.top(), b - a, canvas.height());
        painter.fillRect(band, QBrush(palette().color(QPalette::Mid), Qt::BDiagPattern));
        if (b - a > 120) {
            painter.setPen(palette().color(QPalette::PlaceholderText));
            painter.drawText(band.adjusted(0, 4, 0, 0), Qt::AlignHCenter | Qt::AlignTop,
                             tr("not recorded"));
        }
    }
    if (!m_highlight.empty())
        paintHighlight(painter, canvas);
    if (hasAfterFix()) // over the highlight's veil: the ghosts belong to the selected finding
        paintAfterFix(painter, canvas);
    if (m_range.active) {
        const double a = xForTime(std::min(m_range.startNs, m_range.endNs));
        const double b = xForTime(std::max(m_range.startNs, m_range.endNs));
        QColor band(TimelinePalette::selection());
        band.setAlpha(40);
        painter.fillRect(QRectF(a, canvas.top(), std::max(1.0, b - a), canvas.height()), band);
        band.setAlpha(160);
        painter.setPen(band);
        painter.drawLine(QPointF(a, canvas.top()), QPointF(a, canvas.bottom()));
        painter.drawLine(QPointF(b, canvas.top()), QPointF(b, canvas.bottom()));
    }
    painter.setBrush(Qt::NoBrush);
    if (m_hover.isValid() && m_hover != m_selection) {
        painter.setPen(QPen(palette().color(QPalette::Text), 1));
        painter.drawRect(eventRect(m_hover).adjusted(0, 0, -1, -1));
    }
    if (m_selection.isValid()) {
        paintLinks(painter, canvas);
        const QRect rect = eventRect(m_selection);
        if (rect.isValid()) {
            painter.setPen(QPen(QColor(TimelinePalette::selection()), 2));
            painter.drawRect(rect.adjusted(-1, -1, 0, 0));
        }
    }
    painter.restore();
}

// Dims everything with a veil of the background colour, then repaints the highlighted events on
// top in their own colours, one rectangle per pixel column at most (binary search to the next
// pixel boundary, as the draw list does).
void TimelineWidget::paintHighlight(QPainter& painter, const QRect& canvas) {
    QColor veil = palette().base().color();
    veil.setAlpha(185);
    painter.fillRect(canvas, veil);
    const int64_t t0 = m_viewport.visibleStartNs();
    const int64_t t1 = m_viewport.visibleEndNs();
    for (const model::EventSpan& span : m_highlight) {
        const model::EventRef head = span.first;
        const model::IntervalColumns* columns = head.columns(*m_session);
        const int row = rowOf(head);
        if (!columns || row < 0)
            continue;
        const QRect lane = laneRect(row) - insetFor(head.kind);
        if (!lane.intersects(canvas))
            continue;
        const size_t spanEnd = std::min<size_t>(columns->size(), size_t(head.index) + span.count);
        size_t i = std::max<size_t>(head.index, columns->firstEndingAfter(t0));
        while (i < spanEnd && columns->start[i] < t1) {
            model::EventRef event = head;
            event.index = static_cast<uint32_t>(i);
            const double x0 = m_viewport.xForTime(columns->start[i]);
            const double x1 = std::max(m_viewport.xForTime(columns->end[i]), x0 + 1.0);
            painter.fillRect(QRectF(canvas.left() + x0, lane.top(), x1 - x0, lane.height()),
                             QColor(eventColor(*m_session, event)));
            const int64_t boundary = m_viewport.timeForX(std::floor(x0) + 1.0);
            i = boundary > columns->start[i] + 1 ? detail::gallopTo(*columns, i + 1, boundary)
                                                 : i + 1;
        }
    }
}

// The after-fix ghosts: a translucent bar with a dashed outline where there is room for one, a
// denser fill where a ghost is a few pixels wide; then the legend in the canvas's top-right corner.
void TimelineWidget::paintAfterFix(QPainter& painter, const QRect& canvas) {
    constexpr int kOutlined = 4;
    const QColor ghost(TimelinePalette::afterFix());
    QColor fill = ghost;
    fill.setAlpha(55);
    QColor narrowFill = ghost;
    narrowFill.setAlpha(100);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(ghost, 1, Qt::DashLine));
    // Touching narrow ghosts of a lane are one rectangle: fewer fills, no darker overlaps.
    QRect pending;
    auto flush = [&] {
        if (pending.isValid())
            painter.fillRect(pending, narrowFill);
        pending = QRect();
    };
    for (const GhostBlock& block : ghostBlocks()) {
        const QRect lane = laneRect(static_cast<int>(block.lane));
        if (!lane.intersects(canvas))
            continue;
        const int left = canvas.left() + static_cast<int>(std::floor(block.x0));
        const int right =
            std::max(left + 1, canvas.left() + static_cast<int>(std::lround(block.x1)));
        const QRect rect(QPoint(left, lane.top() + 1), QPoint(right - 1, lane.bottom() - 1));
        if (right - left < kOutlined) {
            if (pending.isValid() && pending.top() == rect.top() &&
                rect.left() <= pending.right() + 1) {
                pending.setRight(std::max(pending.right(), rect.right()));
            } else {
                flush();
                pending = rect;
            }
            continue;
        }
        painter.fillRect(rect, fill);
        painter.drawRect(rect.adjusted(0, 0, -1, -1));
    }
    flush();
    QFont font = this->font();
    font.setPointSizeF(font.pointSizeF() * 0.9);
    painter.setFont(font);
    const QString legend = afterFixLegend();
    const QFontMetrics metrics(font);
    constexpr int kSwatch = 14;
    const int width = kSwatch + 6 + metrics.horizontalAdvance(legend) + 12;
    const QRect plate(canvas.right() - width - 8, canvas.top() + 4, width, metrics.height() + 8);
    QColor background = palette().base().color();
    background.setAlpha(230);
    painter.fillRect(plate, background);
    painter.setPen(QPen(ghost, 1));
    painter.drawRect(plate.adjusted(0, 0, -1, -1));
    const QRect swatch(plate.left() + 6, plate.center().y() - 5, kSwatch, 10);
    painter.fillRect(swatch, fill);
    painter.setPen(QPen(ghost, 1, Qt::DashLine));
    painter.drawRect(swatch.adjusted(0, 0, -1, -1));
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(plate.adjusted(kSwatch + 12, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
                     legend);
}

// A selected sync: an arrow from where it returned to the end of the GPU work it waited for, and
// a dashed arrow from the API call that launched that work to the work's start.
void TimelineWidget::paintLinks(QPainter& painter, const QRect&) {
    if (m_link.sync != m_selection || !m_link.work.isValid())
        return;
    const model::Session& session = *m_session;
    const int syncRow = rowOf(m_link.sync);
    const int workRow = rowOf(m_link.work);
    if (syncRow < 0 || workRow < 0)
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QColor stall(TimelinePalette::stall());
    const QRect workRect = eventRect(m_link.work);
    const QPointF syncEnd(xForTime(m_link.sync.end(session)), laneRect(syncRow).center().y());
    const QPointF workEnd(xForTime(m_link.work.end(session)), laneRect(workRow).center().y());
    painter.setPen(QPen(stall, 2));
    painter.drawRect(workRect.adjusted(-1, -1, 0, 0));
    drawArrow(painter, syncEnd, workEnd, stall);
    const int launchRow = rowOf(m_link.launch);
    if (launchRow >= 0) {
        const QColor dark(TimelinePalette::launchLink());
        const QPointF launch(xForTime(m_link.launch.start(session)) + 1.0,
                             laneRect(launchRow).center().y());
        const QPointF workStart(xForTime(m_link.work.start(session)), workEnd.y());
        painter.setPen(QPen(dark, 1.5));
        painter.drawRect(eventRect(m_link.launch).adjusted(-1, -1, 0, 0));
        painter.setPen(QPen(dark, 1.5, Qt::DashLine));
        drawArrow(painter, launch, workStart, dark);
    }
    painter.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineWidget::paintHeaders(QPainter& painter, const QRect& canvas) {
    const QRect column(0, canvas.top(), m_labels.width(), canvas.height());
    painter.save();
    painter.setClipRect(column); // group titles too: the canvas is the events' alone
    painter.fillRect(column, palette().window());
    const auto& lanes = m_layout.lanes();
    const bool dropping = m_drag == Drag::Lane && m_layout.canMove(m_dragRow, m_dropRow);
    for (size_t i = 0; i < lanes.size(); ++i) {
        const TimelineLane& lane = lanes[i];
        const QRect rect = laneRect(static_cast<int>(i));
        const QRect row(0, rect.top(), m_labels.width(), rect.height());
        if (!row.intersects(column))
            continue;
        const QRect text = m_labels.labelRect(lane, rect);
        painter.setFont(LaneLabelColumn::labelFont(lane, font()));
        if (lane.isHeader()) {
            painter.fillRect(row, palette().window().color().darker(110));
            painter.setPen(palette().color(QPalette::WindowText));
        } else if (lane.kind == LaneKind::Range || lane.kind == LaneKind::GpuBusy) {
            painter.setPen(palette().color(QPalette::PlaceholderText));
        } else {
            painter.setPen(palette().color(QPalette::WindowText));
        }
        if (dropping && static_cast<int>(i) == m_dragRow)
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
            painter.fillPath(triangle, palette().color(QPalette::WindowText));
        }
        painter.drawText(text, Qt::AlignVCenter | Qt::AlignLeft,
                         laneLabelShown(static_cast<int>(i)));
        painter.setPen(palette().color(QPalette::Mid));
        painter.drawLine(row.bottomLeft(), row.bottomRight());
    }
    if (dropping) { // where the dragged lane will land
        const QRect target = laneRect(m_dropRow);
        const int y = m_dropRow > m_dragRow ? target.bottom() : target.top();
        painter.fillRect(QRect(0, y - 1, m_labels.width(), 3),
                         QColor(TimelinePalette::selection()));
    }
    painter.restore();
    // The column's edge, thicker while dragged: it is a handle.
    painter.setPen(
        QPen(palette().color(m_drag == Drag::LabelEdge ? QPalette::Highlight : QPalette::Mid),
             m_drag == Drag::LabelEdge ? 2 : 1));
    painter.drawLine(column.topRight(), column.bottomRight());
}

void TimelineWidget::paintRuler(QPainter& painter, const QRect& canvas) {
    const QRect ruler(canvas.left(), 0, canvas.width(), kRulerHeight);
    painter.fillRect(QRect(0, 0, width(), kRulerHeight), palette().window());
    // Corner: the visible span, so the scale is readable at a glance.
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(8, 0, m_labels.width() - 16, kRulerHeight),
                     Qt::AlignVCenter | Qt::AlignLeft,
                     tr("View: %1")
                         .arg(QString::fromStdString(
                             model::formatDuration(std::llround(m_viewport.visibleDurationNs())))));
    painter.save();
    painter.setClipRect(ruler);
    QRectF band;
    if (m_range.active) {
        const double a = xForTime(std::min(m_range.startNs, m_range.endNs));
        const double b = xForTime(std::max(m_range.startNs, m_range.endNs));
        band = QRectF(a, 0, std::max(1.0, b - a), kRulerHeight - 1);
        QColor fill(TimelinePalette::selection());
        fill.setAlpha(70);
        painter.fillRect(band, fill);
    }
    painter.setPen(palette().color(QPalette::Dark));
    for (const RulerTick& tick : TimeRuler::ticks(m_viewport)) {
        const int x = canvas.left() + static_cast<int>(std::floor(tick.x));
        painter.drawLine(x, kRulerHeight - 8, x, kRulerHeight - 1);
    }
    painter.setPen(palette().color(QPalette::WindowText));
    const RulerLabels labels = rulerLabels();
    for (const RulerLabels::Label& label : labels.ticks()) // none under the badge
        painter.drawText(label.rect, Qt::AlignVCenter | Qt::AlignLeft, label.text);
    const QRect& plate = labels.badgeRect(); // the range's length, over the ticks
    if (plate.isValid()) {
        painter.fillRect(plate, QColor(TimelinePalette::selection()));
        painter.setPen(Qt::white);
        painter.drawText(plate, Qt::AlignCenter, labels.badgeText());
    }
    painter.restore();
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(0, kRulerHeight - 1, width(), kRulerHeight - 1);
}

} // namespace stallscope::views
