#include "views/timeline/timeline_overlay_painter.h"

#include "model/session/session_summary.h"
#include "views/timeline/event_style.h"
#include "views/timeline/lod_merge.h"
#include "views/timeline/timeline_palette.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace stallscope::views {

namespace {

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

TimelineOverlayPainter::TimelineOverlayPainter(const model::Session& session,
                                               const TimelineFrame& frame)
    : m_session(session), m_frame(frame) {}

QRect TimelineOverlayPainter::eventRect(const model::EventRef& event) const {
    const TimelineGeometry& geometry = m_frame.geometry;
    const int row = geometry.rowOf(event);
    if (row < 0 || !event.isIn(m_session))
        return {};
    const QRect lane = geometry.laneRect(row) - TimelinePainter::blockInsets(event.kind);
    const QRect& canvas = geometry.canvas();
    double x0 = geometry.xForTime(event.start(m_session));
    double x1 = geometry.xForTime(event.end(m_session));
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

void TimelineOverlayPainter::paint(QPainter& painter, const TimelineOverlay& overlay) const {
    painter.save();
    painter.setClipRect(m_frame.geometry.canvas());
    paintNotRecorded(painter, overlay.notRecorded);
    if (!overlay.highlight.empty())
        paintHighlight(painter, overlay.highlight);
    if (overlay.ghosts) // over the highlight's veil: the ghosts belong to the selected finding
        paintAfterFix(painter, *overlay.ghosts, overlay.afterFixLegend);
    if (overlay.range.active)
        paintRange(painter, overlay.range);
    painter.setBrush(Qt::NoBrush);
    if (overlay.hover.isValid() && overlay.hover != overlay.selection) {
        painter.setPen(QPen(m_frame.palette.color(QPalette::Text), 1));
        painter.drawRect(eventRect(overlay.hover).adjusted(0, 0, -1, -1));
    }
    if (overlay.selection.isValid()) {
        if (overlay.link.sync == overlay.selection)
            paintLinks(painter, overlay.link);
        const QRect rect = eventRect(overlay.selection);
        if (rect.isValid()) {
            painter.setPen(QPen(QColor(TimelinePalette::selection()), 2));
            painter.drawRect(rect.adjusted(-1, -1, 0, 0));
        }
    }
    painter.restore();
}

// Time a capture range left out: hatched, so that an empty stretch is not read as idle.
void TimelineOverlayPainter::paintNotRecorded(QPainter& painter,
                                              const std::vector<model::TimeSpan>& gaps) const {
    const TimelineGeometry& geometry = m_frame.geometry;
    const QRect& canvas = geometry.canvas();
    for (const model::TimeSpan& gap : gaps) {
        const double a = std::max<double>(canvas.left(), geometry.xForTime(gap.startNs));
        const double b = std::min<double>(canvas.right() + 1, geometry.xForTime(gap.endNs));
        if (b <= a)
            continue;
        const QRectF band(a, canvas.top(), b - a, canvas.height());
        painter.fillRect(band, QBrush(m_frame.palette.color(QPalette::Mid), Qt::BDiagPattern));
        if (b - a > 120) {
            painter.setPen(m_frame.palette.color(QPalette::PlaceholderText));
            painter.drawText(band.adjusted(0, 4, 0, 0), Qt::AlignHCenter | Qt::AlignTop,
                             tr("not recorded"));
        }
    }
}

// Dims everything with a veil of the background colour, then repaints the highlighted events on
// top in their own colours, one rectangle per pixel column at most (binary search to the next
// pixel boundary, as the draw list does).
void TimelineOverlayPainter::paintHighlight(QPainter& painter,
                                            const model::EventSpans& highlight) const {
    const TimelineGeometry& geometry = m_frame.geometry;
    const TimelineViewport& viewport = geometry.viewport();
    const QRect& canvas = geometry.canvas();
    QColor veil = m_frame.palette.base().color();
    veil.setAlpha(185);
    painter.fillRect(canvas, veil);
    const int64_t t0 = viewport.visibleStartNs();
    const int64_t t1 = viewport.visibleEndNs();
    for (const model::EventSpan& span : highlight) {
        const model::EventRef head = span.first;
        const model::IntervalColumns* columns = head.columns(m_session);
        const int row = geometry.rowOf(head);
        if (!columns || row < 0)
            continue;
        const QRect lane = geometry.laneRect(row) - TimelinePainter::blockInsets(head.kind);
        if (!lane.intersects(canvas))
            continue;
        const size_t spanEnd = std::min<size_t>(columns->size(), size_t(head.index) + span.count);
        size_t i = std::max<size_t>(head.index, columns->firstEndingAfter(t0));
        while (i < spanEnd && columns->start[i] < t1) {
            model::EventRef event = head;
            event.index = static_cast<uint32_t>(i);
            const double x0 = viewport.xForTime(columns->start[i]);
            const double x1 = std::max(viewport.xForTime(columns->end[i]), x0 + 1.0);
            painter.fillRect(QRectF(canvas.left() + x0, lane.top(), x1 - x0, lane.height()),
                             QColor(eventColor(m_session, event)));
            const int64_t boundary = viewport.timeForX(std::floor(x0) + 1.0);
            i = boundary > columns->start[i] + 1 ? detail::gallopTo(*columns, i + 1, boundary)
                                                 : i + 1;
        }
    }
}

// The after-fix ghosts: a translucent bar with a dashed outline where there is room for one, a
// denser fill where a ghost is a few pixels wide; then the legend in the canvas's top-right corner.
void TimelineOverlayPainter::paintAfterFix(QPainter& painter, const std::vector<GhostBlock>& ghosts,
                                           const QString& legend) const {
    const TimelineGeometry& geometry = m_frame.geometry;
    const QRect& canvas = geometry.canvas();
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
    for (const GhostBlock& block : ghosts) {
        const QRect lane = geometry.laneRect(static_cast<int>(block.lane));
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
    QFont font = m_frame.font;
    font.setPointSizeF(font.pointSizeF() * 0.9);
    painter.setFont(font);
    const QFontMetrics metrics(font);
    constexpr int kSwatch = 14;
    const int width = kSwatch + 6 + metrics.horizontalAdvance(legend) + 12;
    const QRect plate(canvas.right() - width - 8, canvas.top() + 4, width, metrics.height() + 8);
    QColor background = m_frame.palette.base().color();
    background.setAlpha(230);
    painter.fillRect(plate, background);
    painter.setPen(QPen(ghost, 1));
    painter.drawRect(plate.adjusted(0, 0, -1, -1));
    const QRect swatch(plate.left() + 6, plate.center().y() - 5, kSwatch, 10);
    painter.fillRect(swatch, fill);
    painter.setPen(QPen(ghost, 1, Qt::DashLine));
    painter.drawRect(swatch.adjusted(0, 0, -1, -1));
    painter.setPen(m_frame.palette.color(QPalette::Text));
    painter.drawText(plate.adjusted(kSwatch + 12, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
                     legend);
}

// The range selected on the ruler (or being dragged there), as a band across the lanes.
void TimelineOverlayPainter::paintRange(QPainter& painter, const RulerRange& range) const {
    const TimelineGeometry& geometry = m_frame.geometry;
    const QRect& canvas = geometry.canvas();
    const double a = geometry.xForTime(std::min(range.startNs, range.endNs));
    const double b = geometry.xForTime(std::max(range.startNs, range.endNs));
    QColor band(TimelinePalette::selection());
    band.setAlpha(40);
    painter.fillRect(QRectF(a, canvas.top(), std::max(1.0, b - a), canvas.height()), band);
    band.setAlpha(160);
    painter.setPen(band);
    painter.drawLine(QPointF(a, canvas.top()), QPointF(a, canvas.bottom()));
    painter.drawLine(QPointF(b, canvas.top()), QPointF(b, canvas.bottom()));
}

// A selected sync: an arrow from where it returned to the end of the GPU work it waited for, and
// a dashed arrow from the API call that launched that work to the work's start.
void TimelineOverlayPainter::paintLinks(QPainter& painter, const SyncLinkTargets& link) const {
    if (!link.work.isValid())
        return;
    const TimelineGeometry& geometry = m_frame.geometry;
    const int syncRow = geometry.rowOf(link.sync);
    const int workRow = geometry.rowOf(link.work);
    if (syncRow < 0 || workRow < 0)
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QColor stall(TimelinePalette::stall());
    const QRect workRect = eventRect(link.work);
    const QPointF syncEnd(geometry.xForTime(link.sync.end(m_session)),
                          geometry.laneRect(syncRow).center().y());
    const QPointF workEnd(geometry.xForTime(link.work.end(m_session)),
                          geometry.laneRect(workRow).center().y());
    painter.setPen(QPen(stall, 2));
    painter.drawRect(workRect.adjusted(-1, -1, 0, 0));
    drawArrow(painter, syncEnd, workEnd, stall);
    const int launchRow = geometry.rowOf(link.launch);
    if (launchRow >= 0) {
        const QColor dark(TimelinePalette::launchLink());
        const QPointF launch(geometry.xForTime(link.launch.start(m_session)) + 1.0,
                             geometry.laneRect(launchRow).center().y());
        const QPointF workStart(geometry.xForTime(link.work.start(m_session)), workEnd.y());
        painter.setPen(QPen(dark, 1.5));
        painter.drawRect(eventRect(link.launch).adjusted(-1, -1, 0, 0));
        painter.setPen(QPen(dark, 1.5, Qt::DashLine));
        drawArrow(painter, launch, workStart, dark);
    }
    painter.setRenderHint(QPainter::Antialiasing, false);
}

} // namespace stallscope::views
