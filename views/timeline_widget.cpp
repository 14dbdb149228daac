#include "timeline_widget.h"

#include "session.h"
#include "session_summary.h"
#include "time_ruler.h"
#include "timeline_palette.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace stallscope::views {

namespace {

// Vertical insets per block kind: syncs fill the lane so they stand out against the thinner
// API calls they block in.
QMargins insetFor(BlockKind kind) {
    switch (kind) {
    case BlockKind::Sync:
        return {0, 1, 0, 1};
    case BlockKind::ApiCall:
        return {0, 5, 0, 5};
    case BlockKind::Range:
        return {0, 1, 0, 1};
    default:
        return {0, 2, 0, 2};
    }
}

} // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setBackgroundRole(QPalette::Base);
    m_scrollBar = new QScrollBar(Qt::Vertical, this);
    m_scrollBar->hide();
    connect(m_scrollBar, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
}

TimelineWidget::~TimelineWidget() = default;

QSize TimelineWidget::sizeHint() const {
    return {1000, 500};
}
QSize TimelineWidget::minimumSizeHint() const {
    return {kLaneHeaderWidth + 200, kRulerHeight + 80};
}

void TimelineWidget::setSession(std::shared_ptr<const model::Session> session) {
    m_session = std::move(session);
    m_layout.clear();
    if (m_session) {
        m_layout.build(*m_session);
        m_viewport.setOrigin(m_session->startNs);
        m_viewport.setDataRange(m_session->startNs, m_session->endNs);
    }
    m_scrollBar->setValue(0);
    updateScrollBar(); // first: whether the scroll bar shows decides the canvas width
    m_viewport.setWidth(canvasRect().width());
    zoomToFit();
}

const DrawList& TimelineWidget::drawList() {
    if (m_drawListDirty) {
        if (m_session)
            m_drawList = DrawList::build(*m_session, m_layout, m_viewport);
        else
            m_drawList = DrawList();
        ++m_drawListBuilds;
        m_drawListDirty = false;
    }
    return m_drawList;
}

QRect TimelineWidget::canvasRect() const {
    const int scrollBarWidth = m_scrollBar->isVisibleTo(this) ? m_scrollBar->sizeHint().width() : 0;
    return QRect(kLaneHeaderWidth, kRulerHeight,
                 std::max(1, width() - kLaneHeaderWidth - scrollBarWidth),
                 std::max(1, height() - kRulerHeight));
}

QRect TimelineWidget::laneRect(int laneIndex) const {
    const TimelineLane& lane = m_layout.lanes().at(laneIndex);
    const QRect canvas = canvasRect();
    return QRect(canvas.left(), canvas.top() + lane.y - m_scrollBar->value(), canvas.width(),
                 lane.height);
}

double TimelineWidget::xForTime(int64_t timeNs) const {
    return canvasRect().left() + m_viewport.xForTime(timeNs);
}

int64_t TimelineWidget::timeForX(double widgetX) const {
    return m_viewport.timeForX(widgetX - canvasRect().left());
}

void TimelineWidget::zoomToFit() {
    m_viewport.zoomToFit();
    viewportEdited();
}

void TimelineWidget::setVisibleRange(int64_t startNs, int64_t endNs) {
    m_viewport.setVisibleRange(startNs, endNs);
    viewportEdited();
}

void TimelineWidget::zoomAround(double widgetX, double factor) {
    m_viewport.zoomAround(widgetX - canvasRect().left(), factor);
    viewportEdited();
}

void TimelineWidget::panByPixels(double dx) {
    m_viewport.panByPixels(dx);
    viewportEdited();
}

void TimelineWidget::viewportEdited() {
    m_drawListDirty = true;
    update();
    emit viewportChanged(m_viewport.visibleStartNs(), m_viewport.visibleEndNs());
}

void TimelineWidget::updateScrollBar() {
    const int overflow = m_layout.contentHeight() - (height() - kRulerHeight);
    m_scrollBar->setRange(0, std::max(0, overflow));
    m_scrollBar->setPageStep(std::max(1, height() - kRulerHeight));
    m_scrollBar->setSingleStep(TimelineLayout::kThreadHeight);
    m_scrollBar->setVisible(overflow > 0);
    const int barWidth = m_scrollBar->sizeHint().width();
    m_scrollBar->setGeometry(width() - barWidth, kRulerHeight, barWidth,
                             std::max(0, height() - kRulerHeight));
}

void TimelineWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Keep what the user was looking at: the visible range stays, the scale follows the width.
    const int64_t start = m_viewport.visibleStartNs();
    const int64_t end = m_viewport.visibleEndNs();
    updateScrollBar();
    m_viewport.setWidth(canvasRect().width());
    m_viewport.setVisibleRange(start, end);
    viewportEdited();
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ShiftModifier) {
        m_scrollBar->setValue(m_scrollBar->value() - (delta.y() != 0 ? delta.y() : delta.x()) / 2);
    } else if (std::abs(delta.x()) > std::abs(delta.y())) {
        panByPixels(delta.x() / 2.0);
    } else if (delta.y() != 0) {
        const QRect canvas = canvasRect();
        const double x =
            std::clamp(event->position().x(), double(canvas.left()), double(canvas.right()));
        // One notch (120) zooms by 1.25.
        zoomAround(x, std::pow(1.25, delta.y() / 120.0));
    }
    event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton || event->button() == Qt::MiddleButton) {
        m_dragging = true;
        m_lastDragPos = event->position().toPoint();
        setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    QWidget::mousePressEvent(event);
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
    if (!m_dragging)
        return QWidget::mouseMoveEvent(event);
    const QPoint pos = event->position().toPoint();
    const QPoint delta = pos - m_lastDragPos;
    m_lastDragPos = pos;
    if (delta.y() != 0)
        m_scrollBar->setValue(m_scrollBar->value() - delta.y());
    if (delta.x() != 0)
        panByPixels(delta.x());
    event->accept();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (m_dragging) {
        m_dragging = false;
        unsetCursor();
        event->accept();
        return;
    }
    QWidget::mouseReleaseEvent(event);
}

void TimelineWidget::keyPressEvent(QKeyEvent* event) {
    const QRect canvas = canvasRect();
    const QPoint cursor = mapFromGlobal(QCursor::pos());
    const double anchor = canvas.contains(cursor) ? cursor.x() : canvas.center().x();
    const double panStep = canvas.width() / 8.0;
    switch (event->key()) {
    case Qt::Key_W:
        zoomAround(anchor, 1.25);
        break;
    case Qt::Key_S:
        zoomAround(anchor, 1.0 / 1.25);
        break;
    case Qt::Key_A:
    case Qt::Key_Left:
        panByPixels(panStep);
        break;
    case Qt::Key_D:
    case Qt::Key_Right:
        panByPixels(-panStep);
        break;
    case Qt::Key_Up:
        m_scrollBar->setValue(m_scrollBar->value() - TimelineLayout::kThreadHeight);
        break;
    case Qt::Key_Down:
        m_scrollBar->setValue(m_scrollBar->value() + TimelineLayout::kThreadHeight);
        break;
    case Qt::Key_Home:
    case Qt::Key_0:
        zoomToFit();
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TimelineWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const QRect canvas = canvasRect();
    if (!m_session) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No session loaded"));
        return;
    }
    paintLanes(painter, canvas);
    paintHeaders(painter, canvas);
    paintRuler(painter, canvas);
}

void TimelineWidget::paintLanes(QPainter& painter, const QRect& canvas) {
    const DrawList& list = drawList();
    const auto& lanes = m_layout.lanes();
    painter.save();
    painter.setClipRect(canvas);
    // Lane backgrounds (alternating stripes; group headers shaded).
    int stripe = 0;
    for (size_t i = 0; i < lanes.size(); ++i) {
        const QRect lane = laneRect(static_cast<int>(i));
        if (lanes[i].isHeader()) {
            stripe = 0;
            if (lane.intersects(canvas))
                painter.fillRect(lane, palette().window().color().darker(104));
            continue;
        }
        if (lane.intersects(canvas))
            painter.fillRect(lane, (stripe % 2) ? palette().alternateBase() : palette().base());
        ++stripe;
    }
    // Ruler grid lines behind the events.
    painter.setPen(QColor(0, 0, 0, 22));
    for (const RulerTick& tick : TimeRuler::ticks(m_viewport)) {
        const int x = canvas.left() + static_cast<int>(std::floor(tick.x));
        painter.drawLine(x, canvas.top(), x, canvas.bottom());
    }
    // Blocks. Runs of narrow blocks of one colour are coalesced into one rectangle (at full
    // zoom-out a lane is a few hundred rectangles, not thousands); events a few pixels wide keep
    // a one-pixel gap at their end so back-to-back events stay distinguishable.
    constexpr int kNarrow = 3;
    for (size_t i = 0; i < lanes.size(); ++i) {
        const QRect lane = laneRect(static_cast<int>(i));
        if (!lane.intersects(canvas))
            continue;
        QRect pending;
        QRgb pendingColor = 0;
        bool pendingNarrow = false;
        auto flush = [&] {
            if (pending.isValid())
                painter.fillRect(pending, QColor(pendingColor));
            pending = QRect();
        };
        for (const DrawBlock& block : list.laneBlocks(i)) {
            const int left = canvas.left() + static_cast<int>(std::floor(block.x0));
            const int right =
                std::max(left + 1, canvas.left() + static_cast<int>(std::lround(block.x1)));
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
            flush();
            pending = rect;
            pendingColor = block.color;
            pendingNarrow = narrow;
        }
        flush();
    }
    // Labels inside events that are wide enough.
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

void TimelineWidget::paintHeaders(QPainter& painter, const QRect& canvas) {
    const QRect column(0, canvas.top(), kLaneHeaderWidth, canvas.height());
    painter.save();
    painter.setClipRect(column);
    painter.fillRect(column, palette().window());
    const auto& lanes = m_layout.lanes();
    QFont normal = font();
    QFont bold = font();
    bold.setBold(true);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    for (size_t i = 0; i < lanes.size(); ++i) {
        const TimelineLane& lane = lanes[i];
        const QRect rect = laneRect(static_cast<int>(i));
        const QRect row(0, rect.top(), kLaneHeaderWidth, rect.height());
        if (!row.intersects(column))
            continue;
        int indent = 8;
        if (lane.isHeader()) {
            painter.fillRect(row, palette().window().color().darker(110));
            painter.setFont(bold);
            painter.setPen(palette().color(QPalette::WindowText));
        } else if (lane.kind == LaneKind::Range) {
            painter.setFont(small);
            painter.setPen(palette().color(QPalette::PlaceholderText));
            indent = 24;
        } else {
            painter.setFont(normal);
            painter.setPen(palette().color(QPalette::WindowText));
            indent = 14;
        }
        // Group headers have no events: their titles may run on across the canvas.
        const QRect text = lane.isHeader()
                               ? QRect(indent, row.top(), width() - indent - 6, row.height())
                               : row.adjusted(indent, 0, -6, 0);
        if (lane.isHeader())
            painter.setClipRect(QRect(0, canvas.top(), width(), canvas.height()));
        painter.drawText(
            text, Qt::AlignVCenter | Qt::AlignLeft,
            painter.fontMetrics().elidedText(lane.label, Qt::ElideRight, text.width()));
        painter.setClipRect(column);
        painter.setPen(palette().color(QPalette::Mid));
        painter.drawLine(row.bottomLeft(), row.bottomRight());
    }
    painter.restore();
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(column.topRight(), column.bottomRight());
}

void TimelineWidget::paintRuler(QPainter& painter, const QRect& canvas) {
    const QRect ruler(canvas.left(), 0, canvas.width(), kRulerHeight);
    painter.fillRect(QRect(0, 0, width(), kRulerHeight), palette().window());
    // Corner: the visible span, so the scale is readable at a glance.
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(8, 0, kLaneHeaderWidth - 16, kRulerHeight),
                     Qt::AlignVCenter | Qt::AlignLeft,
                     tr("View: %1")
                         .arg(QString::fromStdString(
                             model::formatDuration(std::llround(m_viewport.visibleDurationNs())))));
    painter.save();
    painter.setClipRect(ruler);
    for (const RulerTick& tick : TimeRuler::ticks(m_viewport)) {
        const int x = canvas.left() + static_cast<int>(std::floor(tick.x));
        painter.setPen(palette().color(QPalette::Dark));
        painter.drawLine(x, kRulerHeight - 8, x, kRulerHeight - 1);
        // A label cut by the right edge reads as a different number: leave it out.
        const int textWidth = painter.fontMetrics().horizontalAdvance(tick.label);
        if (x + 4 + textWidth > ruler.right())
            continue;
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(x + 4, 0, textWidth + 2, kRulerHeight - 4),
                         Qt::AlignVCenter | Qt::AlignLeft, tick.label);
    }
    painter.restore();
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(0, kRulerHeight - 1, width(), kRulerHeight - 1);
}

} // namespace stallscope::views
