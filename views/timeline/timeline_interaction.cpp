#include "views/timeline/timeline_interaction.h"

#include "views/timeline/timeline_layout.h"

#include <QCursor>
#include <QFocusEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <utility>

namespace stallscope::views {

QString TimelineInteraction::navigationHelp() {
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

std::pair<int, int> TimelineInteraction::laneDrag() const {
    if (m_drag != Drag::Lane)
        return {-1, -1};
    return {m_dragRow, m_dropRow};
}

void TimelineInteraction::wheel(QWheelEvent* event) {
    const QPoint delta = event->angleDelta();
    QScrollBar& scrollBar = m_target.laneScrollBar();
    if (event->modifiers() & Qt::ShiftModifier) {
        scrollBar.setValue(scrollBar.value() - (delta.y() != 0 ? delta.y() : delta.x()) / 2);
    } else if (std::abs(delta.x()) > std::abs(delta.y())) {
        m_target.panByPixels(delta.x() / 2.0);
    } else if (delta.y() != 0) {
        const QRect canvas = m_target.canvasRect();
        const double x =
            std::clamp(event->position().x(), double(canvas.left()), double(canvas.right()));
        // One notch (120) zooms by 1.25.
        m_target.zoomAround(x, std::pow(1.25, delta.y() / 120.0));
    }
    event->accept();
}

bool TimelineInteraction::mousePress(QMouseEvent* event) {
    QWidget& widget = m_target.widget();
    const QPoint pos = event->position().toPoint();
    m_pressPos = pos;
    m_lastDragPos = pos;
    m_pressGaveFocus = std::exchange(m_focusedByPress, false);
    const QRect canvas = m_target.canvasRect();
    if (event->button() == Qt::MiddleButton) {
        m_drag = Drag::Pan;
        widget.setCursor(Qt::ClosedHandCursor);
    } else if (event->button() != Qt::LeftButton) {
        return false;
    } else if (m_target.onLabelEdge(pos)) {
        m_drag = Drag::LabelEdge;
        widget.setCursor(Qt::SplitHCursor);
        widget.update();
    } else if (pos.y() < canvas.top() && pos.x() >= canvas.left()) { // on the ruler
        m_drag = Drag::Range;
        const int64_t t = m_target.timeForX(std::clamp(pos.x(), canvas.left(), canvas.right()));
        m_target.rulerRange() = {true, t, t};
        widget.update();
    } else if (pos.x() < m_target.labelColumnWidth() && m_target.laneAtY(pos.y()) >= 0) {
        m_drag = Drag::Lane;
        m_dragRow = m_target.laneAtY(pos.y());
        m_dropRow = -1;
    } else {
        m_drag = Drag::Pending; // a click, or a pan once it moves
    }
    event->accept();
    return true;
}

bool TimelineInteraction::mouseMove(QMouseEvent* event) {
    QWidget& widget = m_target.widget();
    const QPoint pos = event->position().toPoint();
    const bool moved = (pos - m_pressPos).manhattanLength() > kClickSlop;
    switch (m_drag) {
    case Drag::None:
        m_target.setHover(m_target.eventAt(pos));
        if (m_target.onLabelEdge(pos))
            widget.setCursor(Qt::SplitHCursor);
        else if (widget.cursor().shape() == Qt::SplitHCursor)
            widget.unsetCursor();
        return false;
    case Drag::LabelEdge:
        m_target.setLabelColumnWidth(pos.x());
        break;
    case Drag::Pending:
        if (!moved)
            break;
        m_drag = Drag::Pan;
        widget.setCursor(Qt::ClosedHandCursor);
        m_target.setHover({});
        [[fallthrough]];
    case Drag::Pan: {
        const QPoint delta = pos - m_lastDragPos;
        m_lastDragPos = pos;
        QScrollBar& scrollBar = m_target.laneScrollBar();
        if (delta.y() != 0)
            scrollBar.setValue(scrollBar.value() - delta.y());
        if (delta.x() != 0)
            m_target.panByPixels(delta.x());
        break;
    }
    case Drag::Range: {
        const QRect canvas = m_target.canvasRect();
        const int64_t t = m_target.timeForX(std::clamp(pos.x(), canvas.left(), canvas.right() + 1));
        m_target.rulerRange().endNs = t;
        widget.update();
        break;
    }
    case Drag::Lane:
        if (moved) {
            m_dropRow = m_target.laneAtY(pos.y());
            widget.setCursor(Qt::SizeVerCursor);
            widget.update();
        }
        break;
    }
    event->accept();
    return true;
}

bool TimelineInteraction::mouseRelease(QMouseEvent* event) {
    QWidget& widget = m_target.widget();
    const QPoint pos = event->position().toPoint();
    const Drag drag = m_drag;
    m_drag = Drag::None;
    widget.unsetCursor();
    switch (drag) {
    case Drag::None:
        return false;
    case Drag::Pending: { // a click
        const model::EventRef hit = m_target.eventAt(pos);
        if (hit.isValid())
            m_target.selectEvent(hit, false);
        else if (!m_pressGaveFocus)
            m_target.clearSelection();
        break;
    }
    case Drag::Pan:
        break;
    case Drag::LabelEdge:
        m_target.setLabelColumnWidth(pos.x());
        widget.update();
        break;
    case Drag::Range: {
        RulerRange& range = m_target.rulerRange();
        if (std::abs(pos.x() - m_pressPos.x()) > kClickSlop) {
            m_target.selectRange(range.startNs, range.endNs);
        } else {
            range = {};
            widget.update();
        }
        break;
    }
    case Drag::Lane:
        if (m_dropRow >= 0 && m_dropRow != m_dragRow)
            m_target.moveLane(m_dragRow, m_dropRow);
        else if (m_dropRow < 0 && (pos - m_pressPos).manhattanLength() <= kClickSlop)
            m_target.toggleLane(m_dragRow);
        m_dragRow = m_dropRow = -1;
        widget.update();
        break;
    }
    event->accept();
    return true;
}

bool TimelineInteraction::mouseDoubleClick(QMouseEvent* event) {
    const model::EventRef hit = event->button() == Qt::LeftButton
                                    ? m_target.eventAt(event->position().toPoint())
                                    : model::EventRef();
    if (!hit.isValid())
        return false;
    m_target.selectEvent(hit, true);
    event->accept();
    return true;
}

void TimelineInteraction::focusIn(QFocusEvent* event) {
    // Qt focuses a clicked widget before it delivers the press.
    m_focusedByPress = event->reason() == Qt::MouseFocusReason;
}

void TimelineInteraction::leave() {
    m_target.setHover({});
}

// An event's tooltip over the canvas; a lane label's full text over the label column.
bool TimelineInteraction::toolTip(QEvent* event) {
    if (event->type() != QEvent::ToolTip)
        return false;
    auto* help = static_cast<QHelpEvent*>(event);
    const model::EventRef hit = m_target.eventAt(help->pos());
    const int row =
        help->pos().x() < m_target.labelColumnWidth() ? m_target.laneAtY(help->pos().y()) : -1;
    if (hit.isValid())
        QToolTip::showText(help->globalPos(), m_target.toolTipFor(hit), &m_target.widget());
    else if (row >= 0) // the whole label, however narrow the column
        QToolTip::showText(help->globalPos(), m_target.laneLabelFull(row), &m_target.widget());
    else
        QToolTip::hideText();
    return true;
}

bool TimelineInteraction::key(QKeyEvent* event) {
    const QRect canvas = m_target.canvasRect();
    const QPoint cursor = m_target.widget().mapFromGlobal(QCursor::pos());
    const double anchor = canvas.contains(cursor) ? cursor.x() : canvas.center().x();
    const double panStep = canvas.width() / 8.0;
    QScrollBar& scrollBar = m_target.laneScrollBar();
    switch (event->key()) {
    case Qt::Key_W:
        m_target.zoomAround(anchor, 1.25);
        break;
    case Qt::Key_S:
        m_target.zoomAround(anchor, 1.0 / 1.25);
        break;
    case Qt::Key_A:
    case Qt::Key_Left:
        m_target.panByPixels(panStep);
        break;
    case Qt::Key_D:
    case Qt::Key_Right:
        m_target.panByPixels(-panStep);
        break;
    case Qt::Key_Up:
        scrollBar.setValue(scrollBar.value() - TimelineLayout::kThreadHeight);
        break;
    case Qt::Key_Down:
        scrollBar.setValue(scrollBar.value() + TimelineLayout::kThreadHeight);
        break;
    case Qt::Key_Home:
        m_target.zoomToActivity();
        break;
    case Qt::Key_0:
        m_target.zoomToFit();
        break;
    case Qt::Key_F:
        m_target.frameSelection();
        break;
    case Qt::Key_Escape:
        m_target.clearSelection();
        break;
    default:
        return false;
    }
    event->accept();
    return true;
}

} // namespace stallscope::views
