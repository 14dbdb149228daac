// TimelineWidget's input: wheel, mouse (click to select, drag to pan, drag on the ruler for a
// range, header click/drag to collapse/reorder, the label column's edge dragged), keys, tooltips
// (an event's; a lane label's full text).
#include "views/timeline/timeline_widget.h"

#include "model/session/session.h"
#include "model/session/session_summary.h"

#include <QFocusEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <utility>

namespace stallscope::views {

namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

} // namespace

QString TimelineWidget::navigationHelp() {
    return tr(
        "<h3>Timeline</h3><table>"
        "<tr><td><b>Wheel</b>, <b>W</b>/<b>S</b></td><td>zoom in/out around the cursor</td></tr>"
        "<tr><td><b>Drag</b>, <b>A</b>/<b>D</b>, <b>←</b>/<b>→</b></td><td>pan</td></tr>"
        "<tr><td><b>Shift+wheel</b>, <b>↑</b>/<b>↓</b></td><td>scroll lanes</td></tr>"
        "<tr><td><b>Home</b></td><td>fit the span with GPU work (skips a long "
        "import/CUDA-init start)</td></tr>"
        "<tr><td><b>Ctrl+0</b>, <b>0</b></td><td>fit the whole session</td></tr>"
        "<tr><td><b>Click</b></td><td>select an event (details; a sync shows what it "
        "waited for)</td></tr>"
        "<tr><td><b>Double-click</b></td><td>frame an event</td></tr>"
        "<tr><td><b>F</b></td><td>frame the selection</td></tr>"
        "<tr><td><b>Drag on the ruler</b></td><td>select a time range (summary)</td></tr>"
        "<tr><td><b>Esc</b></td><td>clear the selection and highlight (anywhere in the "
        "window)</td></tr>"
        "<tr><td><b>Click/drag a lane header</b></td><td>collapse or expand / reorder"
        "</td></tr>"
        "<tr><td><b>Drag the label column's edge</b></td><td>widen or narrow the labels"
        "</td></tr></table>");
}

// --- input -------------------------------------------------------------------------------------

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
    const QPoint pos = event->position().toPoint();
    m_pressPos = pos;
    m_lastDragPos = pos;
    m_pressGaveFocus = std::exchange(m_focusedByPress, false);
    const QRect canvas = canvasRect();
    if (event->button() == Qt::MiddleButton) {
        m_drag = Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
    } else if (event->button() != Qt::LeftButton) {
        return QWidget::mousePressEvent(event);
    } else if (onLabelEdge(pos)) {
        m_drag = Drag::LabelEdge;
        setCursor(Qt::SplitHCursor);
        update();
    } else if (pos.y() < kRulerHeight && pos.x() >= canvas.left()) {
        m_drag = Drag::Range;
        const int64_t t = timeForX(std::clamp(pos.x(), canvas.left(), canvas.right()));
        m_range = {true, t, t};
        update();
    } else if (pos.x() < m_labels.width() && laneAtY(pos.y()) >= 0) {
        m_drag = Drag::Lane;
        m_dragRow = laneAtY(pos.y());
        m_dropRow = -1;
    } else {
        m_drag = Drag::Pending; // a click, or a pan once it moves
    }
    event->accept();
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    const bool moved = (pos - m_pressPos).manhattanLength() > kClickSlop;
    switch (m_drag) {
    case Drag::None:
        setHover(eventAt(pos));
        if (onLabelEdge(pos))
            setCursor(Qt::SplitHCursor);
        else if (cursor().shape() == Qt::SplitHCursor)
            unsetCursor();
        return QWidget::mouseMoveEvent(event);
    case Drag::LabelEdge:
        setLabelColumnWidth(pos.x());
        break;
    case Drag::Pending:
        if (!moved)
            break;
        m_drag = Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
        setHover({});
        [[fallthrough]];
    case Drag::Pan: {
        const QPoint delta = pos - m_lastDragPos;
        m_lastDragPos = pos;
        if (delta.y() != 0)
            m_scrollBar->setValue(m_scrollBar->value() - delta.y());
        if (delta.x() != 0)
            panByPixels(delta.x());
        break;
    }
    case Drag::Range: {
        const QRect canvas = canvasRect();
        const int64_t t = timeForX(std::clamp(pos.x(), canvas.left(), canvas.right() + 1));
        m_range.endNs = t;
        update();
        break;
    }
    case Drag::Lane:
        if (moved) {
            m_dropRow = laneAtY(pos.y());
            setCursor(Qt::SizeVerCursor);
            update();
        }
        break;
    }
    event->accept();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    const Drag drag = m_drag;
    m_drag = Drag::None;
    unsetCursor();
    switch (drag) {
    case Drag::None:
        return QWidget::mouseReleaseEvent(event);
    case Drag::Pending: { // a click
        const model::EventRef hit = eventAt(pos);
        if (hit.isValid())
            selectEvent(hit);
        else if (!m_pressGaveFocus)
            clearSelection();
        break;
    }
    case Drag::Pan:
        break;
    case Drag::LabelEdge:
        setLabelColumnWidth(pos.x());
        update();
        break;
    case Drag::Range:
        if (std::abs(pos.x() - m_pressPos.x()) > kClickSlop) {
            selectRange(m_range.startNs, m_range.endNs);
        } else {
            m_range = {};
            update();
        }
        break;
    case Drag::Lane:
        if (m_dropRow >= 0 && m_dropRow != m_dragRow)
            moveLane(m_dragRow, m_dropRow);
        else if (m_dropRow < 0 && (pos - m_pressPos).manhattanLength() <= kClickSlop)
            toggleLane(m_dragRow);
        m_dragRow = m_dropRow = -1;
        update();
        break;
    }
    event->accept();
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* event) {
    const model::EventRef hit = event->button() == Qt::LeftButton
                                    ? eventAt(event->position().toPoint())
                                    : model::EventRef();
    if (!hit.isValid())
        return QWidget::mouseDoubleClickEvent(event);
    selectEvent(hit, true);
    event->accept();
}

void TimelineWidget::focusInEvent(QFocusEvent* event) {
    // Qt focuses a clicked widget before it delivers the press.
    m_focusedByPress = event->reason() == Qt::MouseFocusReason;
    QWidget::focusInEvent(event);
}

void TimelineWidget::leaveEvent(QEvent* event) {
    setHover({});
    QWidget::leaveEvent(event);
}

bool TimelineWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const model::EventRef hit = eventAt(help->pos());
        const int row = help->pos().x() < m_labels.width() ? laneAtY(help->pos().y()) : -1;
        if (hit.isValid())
            QToolTip::showText(help->globalPos(), toolTipFor(hit), this);
        else if (row >= 0) // the whole label, however narrow the column
            QToolTip::showText(help->globalPos(), laneLabelFull(row), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

QString TimelineWidget::toolTipFor(const model::EventRef& event) const {
    const model::Session& session = *m_session;
    const int64_t start = event.start(session);
    const int64_t end = event.end(session);
    QString text = QStringLiteral("<b>%1</b><br>").arg(toolTipName(eventName(session, event)));
    const QString duration = qs(model::formatDuration(end - start));
    switch (event.kind) {
    case model::EventKind::Sync:
        text += tr("<span style='color:#C62828'>host blocked <b>%1</b></span>").arg(duration);
        break;
    case model::EventKind::Memcpy:
    case model::EventKind::Memset: {
        const model::TransferColumns& transfers = *event.transfers(session);
        text += tr("%1 · %2").arg(
            duration, qs(model::formatBytes(static_cast<int64_t>(transfers.bytes[event.index]))));
        if (event.kind == model::EventKind::Memcpy)
            text += QStringLiteral(" · %1 → %2")
                        .arg(memoryKindName(transfers.srcKind[event.index]),
                             memoryKindName(transfers.dstKind[event.index]));
        break;
    }
    default:
        text += duration;
        break;
    }
    text += tr("<br>at %1 · %2")
                .arg(qs(model::formatDuration(start - session.startNs)),
                     eventLaneLabel(session, event).toHtmlEscaped());
    if (const auto after = afterFixInterval(event)) {
        const int64_t shift = after->first - start;
        text += shift == 0 ? tr("<br>after fix: starts at the same time")
                           : tr("<br>after fix: starts %1 %2")
                                 .arg(qs(model::formatDuration(std::abs(shift))),
                                      shift < 0 ? tr("sooner") : tr("later"));
    }
    return text;
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
        zoomToActivity();
        break;
    case Qt::Key_0:
        zoomToFit();
        break;
    case Qt::Key_F:
        frameSelection();
        break;
    case Qt::Key_Escape:
        clearSelection();
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

} // namespace stallscope::views
