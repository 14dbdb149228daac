// TimelineWidget: the timeline canvas. Lane headers on the left, a time ruler on top, host-thread,
// range and GPU-stream lanes below. Paints from a cached DrawList that is rebuilt only when the
// viewport, the canvas size or the session change (m_drawListDirty), never per event.
//
// Navigation: wheel zooms around the cursor, Shift+wheel scrolls lanes, horizontal wheel and
// left-drag pan, W/S zoom, A/D and arrows pan, Home (or 0) zooms to fit.
#pragma once

#include "draw_list.h"
#include "timeline_layout.h"
#include "timeline_viewport.h"

#include <QPoint>
#include <QWidget>

#include <memory>

class QScrollBar;

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    static constexpr int kLaneHeaderWidth = 210;
    static constexpr int kRulerHeight = 26;

    explicit TimelineWidget(QWidget* parent = nullptr);
    ~TimelineWidget() override;

    void setSession(std::shared_ptr<const model::Session> session);
    const std::shared_ptr<const model::Session>& session() const { return m_session; }

    const TimelineLayout& layout() const { return m_layout; }
    const TimelineViewport& viewport() const { return m_viewport; }
    // The draw list for the current viewport (rebuilt first if stale).
    const DrawList& drawList();
    // How many times the draw list was built (tests check that painting alone does not rebuild).
    int drawListBuilds() const { return m_drawListBuilds; }

    // The area where events are drawn, in widget coordinates.
    QRect canvasRect() const;
    // A lane's rectangle in widget coordinates (may lie outside the visible canvas).
    QRect laneRect(int laneIndex) const;
    // Widget x of a time / time at a widget x.
    double xForTime(int64_t timeNs) const;
    int64_t timeForX(double widgetX) const;

    void setVisibleRange(int64_t startNs, int64_t endNs);
    void zoomAround(double widgetX, double factor);
    void panByPixels(double dx);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    void zoomToFit();

signals:
    void viewportChanged(qint64 startNs, qint64 endNs);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void viewportEdited();
    void updateScrollBar();
    void paintLanes(QPainter& painter, const QRect& canvas);
    void paintHeaders(QPainter& painter, const QRect& canvas);
    void paintRuler(QPainter& painter, const QRect& canvas);

    std::shared_ptr<const model::Session> m_session;
    TimelineLayout m_layout;
    TimelineViewport m_viewport;
    DrawList m_drawList;
    bool m_drawListDirty = true;
    int m_drawListBuilds = 0;
    QScrollBar* m_scrollBar = nullptr;
    bool m_dragging = false;
    QPoint m_lastDragPos;
};

} // namespace stallscope::views
