// TimelineInteraction: the timeline's input. The mouse gesture in progress (a click, a pan, a
// range dragged on the ruler, a lane header dragged to a new place or clicked to collapse it, the
// label column's edge dragged), the wheel, the keys and the tooltips, turned into view and
// selection changes on its Target, the widget. Its state is the gesture's alone; what a gesture
// changes stays the widget's, changed through the widget's public API where it has one.
//
// Mouse: wheel zooms around the cursor, Shift+wheel scrolls lanes, horizontal wheel and
// left-drag pan; click selects (nearest event within 3 px; on empty space it clears the
// selection, unless that press only gave the timeline focus), double-click frames an event; drag
// on the ruler selects a time range; click a lane header to collapse it, drag it to reorder;
// drag the label column's right edge to widen or narrow it. Keys: see navigationHelp().
#pragma once

#include "model/session/event_ref.h"
#include "views/timeline/ruler_labels.h"

#include <QCoreApplication>
#include <QPoint>
#include <QRect>
#include <QString>

#include <cstdint>
#include <utility>

class QEvent;
class QFocusEvent;
class QKeyEvent;
class QMouseEvent;
class QScrollBar;
class QWheelEvent;
class QWidget;

namespace stallscope::views {

class TimelineInteraction {
    Q_DECLARE_TR_FUNCTIONS(TimelineInteraction)
public:
    // What the gestures act on: TimelineWidget, which includes this header (so the gestures are
    // written against this interface, not the widget's header). Where the widget's public API
    // has a function, it is that function: its name and signature.
    class Target {
    public:
        virtual QWidget& widget() = 0; // the cursor, tooltips and repaints
        virtual QScrollBar& laneScrollBar() = 0;
        virtual QRect canvasRect() const = 0;
        virtual int laneAtY(int widgetY) const = 0;
        virtual int64_t timeForX(double widgetX) const = 0;
        virtual model::EventRef eventAt(const QPoint& widgetPos) const = 0;
        virtual int labelColumnWidth() const = 0;
        virtual bool onLabelEdge(const QPoint& pos) const = 0;
        virtual void setLabelColumnWidth(int width) = 0;
        virtual void setHover(const model::EventRef& event) = 0;
        virtual void selectEvent(const model::EventRef& event, bool frame) = 0;
        virtual void clearSelection() = 0;
        // The range selected on the ruler, changed in place while it is dragged (with repaints),
        // then selectRange'd.
        virtual RulerRange& rulerRange() = 0;
        virtual void selectRange(int64_t startNs, int64_t endNs) = 0;
        virtual void zoomAround(double widgetX, double factor) = 0;
        virtual void panByPixels(double dx) = 0;
        virtual void zoomToFit() = 0;
        virtual void zoomToActivity() = 0;
        virtual void frameSelection() = 0;
        virtual void toggleLane(int row) = 0;
        virtual bool moveLane(int fromRow, int toRow) = 0;
        virtual QString toolTipFor(const model::EventRef& event) const = 0;
        virtual QString laneLabelFull(int row) const = 0;

    protected:
        ~Target() = default;
    };

    // Below this many pixels a press-and-release is a click, not a drag.
    static constexpr int kClickSlop = 3;

    explicit TimelineInteraction(Target& target) : m_target(target) {}

    // The keys and mouse gestures, as HTML for Help ▸ Timeline Navigation.
    static QString navigationHelp();

    // The widget's event handlers hand their events here; false: not handled, the widget's base
    // class has it.
    void wheel(QWheelEvent* event);
    bool mousePress(QMouseEvent* event);
    bool mouseMove(QMouseEvent* event);
    bool mouseRelease(QMouseEvent* event);
    bool mouseDoubleClick(QMouseEvent* event);
    bool key(QKeyEvent* event);
    bool toolTip(QEvent* event);
    void focusIn(QFocusEvent* event);
    void leave();

    // The lane header being dragged and the row under the cursor (-1 before it moves), or
    // {-1, -1}: for painting where it would land.
    std::pair<int, int> laneDrag() const;
    bool draggingLabelEdge() const { return m_drag == Drag::LabelEdge; }

private:
    enum class Drag { None, Pending, Pan, Range, Lane, LabelEdge };

    Target& m_target;
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    QPoint m_lastDragPos;
    int m_dragRow = -1;
    int m_dropRow = -1;
    // The press that gave the timeline focus only focuses it: released on empty space, it keeps
    // the selection (the keys work without focus; a click to "wake" the timeline must not clear).
    bool m_focusedByPress = false;
    bool m_pressGaveFocus = false;
};

} // namespace stallscope::views
