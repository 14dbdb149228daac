// TimelineWidget: the timeline canvas. Lane headers on the left, a time ruler on top, host-thread,
// NVTX, GPU-busy and GPU-stream lanes below. Paints from a cached DrawList that is rebuilt only
// when the viewport, the canvas size, the lane layout or the session change (m_drawListDirty),
// never per event; selection, hover, highlight, links and the ruler range are an overlay pass
// over it, so they repaint without rebuilding it. Lanes grow to fill the pane (TimelineLayout).
//
// The widget holds the session, the view (layout, viewport, scroll) and the selection, and
// emits their changes; its parts are classes of their own, each with its own state:
// TimelineInteraction turns the mouse, wheel, keys and tooltips into calls of the widget's API
// (its event handlers hand their events there); LaneLabelColumn is the label column (its width,
// fitted or the user's; each label's font, place and elided text); TimelinePainter paints the
// lanes, headers and ruler, TimelineOverlayPainter what goes over the lanes, both from what the
// widget gives them (TimelineGeometry: where things lie; RulerLabels: the ruler's texts).
//
// A finding's fix, replayed (setAfterFix), shows as "after fix" ghosts over the stream lanes
// (AfterFixBars) with a legend; clearing the selection removes them.
#pragma once

#include "model/analysis/insight.h"
#include "views/timeline/after_fix_bars.h"
#include "views/timeline/draw_list.h"
#include "views/timeline/event_style.h"
#include "views/timeline/lane_label_column.h"
#include "views/timeline/ruler_labels.h"
#include "views/timeline/sync_link.h"
#include "views/timeline/time_ruler.h"
#include "views/timeline/timeline_geometry.h"
#include "views/timeline/timeline_interaction.h"
#include "views/timeline/timeline_layout.h"
#include "views/timeline/timeline_painter.h"
#include "views/timeline/timeline_viewport.h"

#include <QPoint>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QScrollBar;

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

class CorrelationIndex;

// Besides QWidget's, the functions marked override are TimelineInteraction::Target's: what the
// interaction calls, the public API where it has one.
class TimelineWidget : public QWidget, private TimelineInteraction::Target {
    Q_OBJECT
public:
    // The label column: fitted to the lane labels (within these bounds) until the user drags it.
    static constexpr int kMinLabelWidth = LaneLabelColumn::kMinWidth;
    static constexpr int kDefaultMinLabelWidth = LaneLabelColumn::kDefaultMinWidth;
    static constexpr int kDefaultMaxLabelWidth = LaneLabelColumn::kDefaultMaxWidth;
    static constexpr int kRulerHeight = TimeRuler::kHeight;
    // Below this many pixels a press-and-release is a click, not a drag.
    static constexpr int kClickSlop = TimelineInteraction::kClickSlop;

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

    // The label column's width: the canvas starts at its right edge.
    int labelColumnWidth() const override { return m_labels.width(); }
    // Sets it as the user would (clamped to kMinLabelWidth..half the widget); no more auto-fit.
    void setLabelColumnWidth(int width) override;
    // A lane's label as painted (elided on the right to fit the column) and as its tooltip.
    QString laneLabelShown(int row) const;
    QString laneLabelFull(int row) const override;
    // The ruler's tick labels and the selected range's length badge, widget coordinates (the
    // badge is empty without a range, and tick labels under it are left out).
    std::vector<QRect> rulerLabelRects() const;
    QRect rangeBadgeRect() const;

    // The area where events are drawn, in widget coordinates.
    QRect canvasRect() const override;
    // A lane's rectangle in widget coordinates (may lie outside the visible canvas).
    QRect laneRect(int laneIndex) const;
    // Layout row at widget y (below the ruler), or -1.
    int laneAtY(int widgetY) const override;
    // Widget x of a time / time at a widget x.
    double xForTime(int64_t timeNs) const;
    int64_t timeForX(double widgetX) const override;
    // The event at a widget position (nearest within 3 px on the lane under it), or invalid.
    model::EventRef eventAt(const QPoint& widgetPos) const override;
    // Layout row showing an event's lane, or -1 when it is collapsed away.
    int rowOf(const model::EventRef& event) const;

    void setVisibleRange(int64_t startNs, int64_t endNs);
    // The moment the ruler counts from: the session start after setSession. Two runs shown one
    // above the other share an axis by setting it to the same moment of each (views/compare).
    // Keeps the visible range.
    void setTimeOrigin(int64_t originNs);
    int64_t timeOrigin() const { return m_viewport.originNs(); }
    void zoomAround(double widgetX, double factor) override;
    void panByPixels(double dx) override;
    // The span with GPU work (TimelineActivity): what a long import/CUDA-init lead-in would
    // otherwise squeeze into a corner. The whole session when there is no GPU work.
    static std::pair<int64_t, int64_t> activityRange(const model::Session& session);

    // Selection.
    model::EventRef selectedEvent() const { return m_selection; }
    // Selects an event (invalid: clears); emits eventSelected. frame: zoom to it as well.
    void selectEvent(const model::EventRef& event, bool frame = false) override;
    void clearSelection() override; // event, range and highlight; emits selectionCleared
    bool hasRangeSelection() const { return m_range.active; }
    std::pair<int64_t, int64_t> rangeSelection() const { return {m_range.startNs, m_range.endNs}; }
    void selectRange(int64_t startNs, int64_t endNs) override; // emits rangeSelected
    // For a selected sync: the GPU work it waited for and the call that launched that work.
    const SyncLinkTargets& syncLink() const { return m_link; }
    model::EventRef hoveredEvent() const { return m_hover; }

    // Highlighting API for other panels (insight cards, tables): frames the events, selects the
    // first (eventSelected), and dims everything else until clearHighlight() or Escape.
    void highlight(const model::EventSpans& spans);
    void clearHighlight();
    bool isHighlighting() const { return !m_highlight.empty(); }
    const model::EventSpans& highlightedSpans() const { return m_highlight; }

    // The "after fix" ghosts of a finding (an invalid AfterFix, or one replayed on another
    // session's graph, clears them). clearSelection() clears them too.
    void setAfterFix(AfterFix fix);
    void clearAfterFix();
    bool hasAfterFix() const { return m_afterFix.isValid(); }
    const AfterFix& afterFix() const { return m_afterFix; }
    // The ghosts for the current viewport (rebuilt with the draw list).
    const std::vector<GhostBlock>& ghostBlocks();
    // Where the after-fix replay puts a kernel, memcpy or memset; nothing without ghosts.
    std::optional<std::pair<int64_t, int64_t>> afterFixInterval(const model::EventRef& event) const;
    // The legend drawn over the canvas while ghosts show ("After fix: ends 367 ms sooner").
    QString afterFixLegend() const;
    // The hover tooltip of an event (rich text); with ghosts, GPU work says how it moves.
    QString toolTipFor(const model::EventRef& event) const override;

    // Lanes: collapse/expand a layout row, move one before/after a sibling.
    void toggleLane(int row) override;
    bool moveLane(int fromRow, int toRow) override;

    // The keys and mouse gestures, as HTML for Help ▸ Timeline Navigation.
    static QString navigationHelp() { return TimelineInteraction::navigationHelp(); }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    void zoomToFit() override;      // the whole session (Ctrl+0, 0)
    void zoomToActivity() override; // activityRange() (Home; the default after loading)
    void frameSelection() override; // F: the highlight, else the selected event, else the range

signals:
    void viewportChanged(qint64 startNs, qint64 endNs);
    void eventSelected(const stallscope::model::EventRef& event);
    void rangeSelected(qint64 startNs, qint64 endNs);
    void selectionCleared();
    void labelColumnWidthChanged(int width);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;

private:
    // TimelineInteraction::Target, beyond the public API.
    QWidget& widget() override { return *this; }
    QScrollBar& laneScrollBar() override { return *m_scrollBar; }
    bool onLabelEdge(const QPoint& pos) const override;
    void setHover(const model::EventRef& event) override;
    RulerRange& rulerRange() override { return m_range; }

    TimelineGeometry timelineGeometry() const;
    RulerLabels rulerLabels() const;
    void viewportEdited();
    void layoutEdited();
    void updateScrollBar();
    void frameRange(int64_t startNs, int64_t endNs, int laneRow = -1);
    void ensureRowVisible(int row);

    std::shared_ptr<const model::Session> m_session;
    TimelineLayout m_layout;
    TimelineViewport m_viewport;
    DrawList m_drawList;
    LodSummaries m_lodSummaries; // the session's, for every draw-list build
    bool m_drawListDirty = true;
    int m_drawListBuilds = 0;
    AfterFix m_afterFix;
    std::vector<GhostBlock> m_ghosts;
    // What a recording with capture control left out (Session::notRecorded), hatched.
    std::vector<model::TimeSpan> m_notRecorded;
    bool m_ghostsDirty = true;
    QScrollBar* m_scrollBar = nullptr;
    LaneLabelColumn m_labels;
    TimelinePainter m_painter;
    TimelineInteraction m_interaction{*this};

    model::EventRef m_selection;
    model::EventRef m_hover;
    SyncLinkTargets m_link;
    RulerRange m_range;
    model::EventSpans m_highlight;
    std::shared_ptr<const CorrelationIndex> m_correlations; // built on the first sync selected
};

} // namespace stallscope::views
