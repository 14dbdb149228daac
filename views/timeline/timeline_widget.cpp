#include "views/timeline/timeline_widget.h"

#include "model/session/session.h"
#include "model/session/session_summary.h"
#include "views/timeline/correlation_index.h"
#include "views/timeline/timeline_activity.h"
#include "views/timeline/timeline_hit_test.h"
#include "views/timeline/timeline_overlay_painter.h"

#include <QPainter>
#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace stallscope::views {

namespace {

// Breathing room around framed events, as a share of the framed span.
constexpr double kFrameMargin = 0.05;
// The narrowest span a frame zooms to: a 2 µs sync framed alone still shows its neighbours.
constexpr int64_t kMinFrameNs = 10'000;

} // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
    qRegisterMetaType<model::EventRef>("stallscope::model::EventRef");
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true); // hover outline
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
    return {kMinLabelWidth + 200, kRulerHeight + 80};
}

void TimelineWidget::setSession(std::shared_ptr<const model::Session> session) {
    m_session = std::move(session);
    m_lodSummaries.clear();
    m_layout.clear();
    m_layout.resetState();
    m_selection = {};
    m_hover = {};
    m_link = {};
    m_range = {};
    m_highlight.clear();
    m_correlations.reset();
    m_afterFix = {};
    m_ghosts.clear();
    m_notRecorded.clear();
    if (m_session) {
        m_notRecorded = m_session->notRecorded();
        m_layout.build(*m_session);
        m_labels.fitTo(m_layout, font());
        m_viewport.setOrigin(m_session->startNs);
        m_viewport.setDataRange(m_session->startNs, m_session->endNs);
    }
    m_scrollBar->setValue(0);
    updateScrollBar(); // first: whether the scroll bar shows decides the canvas width
    m_viewport.setWidth(canvasRect().width());
    zoomToActivity();
}

const DrawList& TimelineWidget::drawList() {
    // Only the rows shown: a run of many ranks has more lanes than fit, and scrolling to others
    // costs a build of the rows then shown, as a zoom step does.
    const int top = m_scrollBar->value();
    const int bottom = top + canvasRect().height();
    if (!m_drawList.covers(top, bottom))
        m_drawListDirty = true;
    if (m_drawListDirty) {
        if (m_session)
            m_drawList =
                DrawList::build(*m_session, m_layout, m_viewport, top, bottom, &m_lodSummaries);
        else
            m_drawList = DrawList();
        ++m_drawListBuilds;
        m_drawListDirty = false;
        m_ghostsDirty = true;
    }
    return m_drawList;
}

const std::vector<GhostBlock>& TimelineWidget::ghostBlocks() {
    drawList(); // the same viewport and layout
    if (m_ghostsDirty) {
        m_ghosts = AfterFixBars::build(m_afterFix, m_layout, m_viewport);
        m_ghostsDirty = false;
    }
    return m_ghosts;
}

void TimelineWidget::setAfterFix(AfterFix fix) {
    if (!fix.isValid() || !m_session || &fix.graph->session() != m_session.get())
        fix = {};
    m_afterFix = std::move(fix);
    m_ghostsDirty = true;
    update();
}

void TimelineWidget::clearAfterFix() {
    if (!hasAfterFix())
        return;
    setAfterFix({});
}

std::optional<std::pair<int64_t, int64_t>>
TimelineWidget::afterFixInterval(const model::EventRef& event) const {
    if (!hasAfterFix())
        return std::nullopt;
    const std::optional<uint32_t> op = AfterFixBars::operationOf(*m_afterFix.graph, event);
    if (!op)
        return std::nullopt;
    return AfterFixBars::replayed(m_afterFix, event.lane, *op);
}

QString TimelineWidget::afterFixLegend() const {
    if (!hasAfterFix())
        return {};
    return tr("After fix: ends %1 sooner")
        .arg(QString::fromStdString(model::formatDuration(m_afterFix.savingNs)));
}

QRect TimelineWidget::canvasRect() const {
    const int labelWidth = m_labels.width();
    const int scrollBarWidth = m_scrollBar->isVisibleTo(this) ? m_scrollBar->sizeHint().width() : 0;
    return QRect(labelWidth, kRulerHeight, std::max(1, width() - labelWidth - scrollBarWidth),
                 std::max(1, height() - kRulerHeight));
}

TimelineGeometry TimelineWidget::timelineGeometry() const {
    return TimelineGeometry(m_layout, m_viewport, canvasRect(), m_scrollBar->value());
}

QRect TimelineWidget::laneRect(int laneIndex) const {
    return timelineGeometry().laneRect(laneIndex);
}

int TimelineWidget::laneAtY(int widgetY) const {
    return timelineGeometry().laneAtY(widgetY);
}

double TimelineWidget::xForTime(int64_t timeNs) const {
    return timelineGeometry().xForTime(timeNs);
}

int64_t TimelineWidget::timeForX(double widgetX) const {
    return timelineGeometry().timeForX(widgetX);
}

model::EventRef TimelineWidget::eventAt(const QPoint& widgetPos) const {
    const TimelineGeometry geometry = timelineGeometry();
    const QRect& canvas = geometry.canvas();
    if (!m_session || !canvas.contains(widgetPos))
        return {};
    const int row = geometry.laneAtY(widgetPos.y());
    if (row < 0)
        return {};
    // Pixel centres: the event drawn in the column under the cursor is at distance 0.
    return TimelineHitTest::at(*m_session, m_layout.lanes()[row], m_viewport,
                               widgetPos.x() - canvas.left() + 0.5);
}

int TimelineWidget::rowOf(const model::EventRef& event) const {
    return timelineGeometry().rowOf(event);
}

void TimelineWidget::zoomToFit() {
    m_viewport.zoomToFit();
    viewportEdited();
}

std::pair<int64_t, int64_t> TimelineWidget::activityRange(const model::Session& session) {
    return TimelineActivity::range(session);
}

void TimelineWidget::zoomToActivity() {
    if (!m_session)
        return zoomToFit();
    const auto [start, end] = activityRange(*m_session);
    setVisibleRange(start, end);
}

void TimelineWidget::setVisibleRange(int64_t startNs, int64_t endNs) {
    m_viewport.setVisibleRange(startNs, endNs);
    viewportEdited();
}

void TimelineWidget::setTimeOrigin(int64_t originNs) {
    const int64_t start = m_viewport.visibleStartNs();
    const int64_t end = m_viewport.visibleEndNs();
    m_viewport.setOrigin(originNs);
    m_viewport.setVisibleRange(start, end);
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

void TimelineWidget::layoutEdited() {
    m_drawListDirty = true; // blocks refer to layout rows
    m_hover = {};
    updateScrollBar();
    m_viewport.setWidth(canvasRect().width());
    update();
}

void TimelineWidget::updateScrollBar() {
    m_layout.setAvailableHeight(height() - kRulerHeight); // lanes grow to fill the pane
    const int overflow = m_layout.contentHeight() - (height() - kRulerHeight);
    m_scrollBar->setRange(0, std::max(0, overflow));
    m_scrollBar->setPageStep(std::max(1, height() - kRulerHeight));
    m_scrollBar->setSingleStep(TimelineLayout::kThreadHeight);
    m_scrollBar->setVisible(overflow > 0);
    const int barWidth = m_scrollBar->sizeHint().width();
    m_scrollBar->setGeometry(width() - barWidth, kRulerHeight, barWidth,
                             std::max(0, height() - kRulerHeight));
}

// --- the label column and the ruler's texts ----------------------------------------------------

void TimelineWidget::setLabelColumnWidth(int width) {
    // The visible range stays; the scale follows the canvas's new width.
    const int64_t start = m_viewport.visibleStartNs();
    const int64_t end = m_viewport.visibleEndNs();
    if (!m_labels.setUserWidth(width, this->width()))
        return;
    m_viewport.setWidth(canvasRect().width());
    m_viewport.setVisibleRange(start, end);
    viewportEdited();
    emit labelColumnWidthChanged(m_labels.width());
}

bool TimelineWidget::onLabelEdge(const QPoint& pos) const {
    return m_labels.onEdge(pos, height());
}

QString TimelineWidget::laneLabelFull(int row) const {
    return LaneLabelColumn::fullText(m_layout, m_drawList, row);
}

QString TimelineWidget::laneLabelShown(int row) const {
    return m_labels.shownText(m_layout, m_drawList, row, font());
}

RulerLabels TimelineWidget::rulerLabels() const {
    return RulerLabels(timelineGeometry(), m_range, fontMetrics());
}

std::vector<QRect> TimelineWidget::rulerLabelRects() const {
    const RulerLabels labels = rulerLabels();
    std::vector<QRect> rects;
    for (const RulerLabels::Label& label : labels.ticks())
        rects.push_back(label.rect);
    return rects;
}

QRect TimelineWidget::rangeBadgeRect() const {
    return rulerLabels().badgeRect();
}

// --- painting and input ------------------------------------------------------------------------

// The lanes (TimelinePainter), the overlay over them (TimelineOverlayPainter), then the label
// column and the ruler: each covers its own part of the widget.
void TimelineWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    if (!m_session) {
        painter.fillRect(rect(), palette().base());
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No session loaded"));
        return;
    }
    const DrawList& list = drawList();
    const TimelineGeometry geometry = timelineGeometry();
    const TimelineFrame frame{geometry, list, palette(), font(), width()};
    m_painter.paintLanes(painter, frame);
    const TimelineOverlay overlay{.notRecorded = m_notRecorded,
                                  .highlight = m_highlight,
                                  .ghosts = hasAfterFix() ? &ghostBlocks() : nullptr,
                                  .afterFixLegend = afterFixLegend(),
                                  .range = m_range,
                                  .hover = m_hover,
                                  .selection = m_selection,
                                  .link = m_link};
    TimelineOverlayPainter(*m_session, frame).paint(painter, overlay);
    TimelinePainter::paintHeaders(painter, frame, m_labels, m_interaction.laneDrag(),
                                  m_interaction.draggingLabelEdge());
    TimelinePainter::paintRuler(painter, frame, rulerLabels(), m_range);
}

bool TimelineWidget::event(QEvent* event) {
    return m_interaction.toolTip(event) || QWidget::event(event);
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
    m_interaction.wheel(event);
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
    if (!m_interaction.mousePress(event))
        QWidget::mousePressEvent(event);
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
    if (!m_interaction.mouseMove(event))
        QWidget::mouseMoveEvent(event);
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (!m_interaction.mouseRelease(event))
        QWidget::mouseReleaseEvent(event);
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* event) {
    if (!m_interaction.mouseDoubleClick(event))
        QWidget::mouseDoubleClickEvent(event);
}

void TimelineWidget::keyPressEvent(QKeyEvent* event) {
    if (!m_interaction.key(event))
        QWidget::keyPressEvent(event);
}

void TimelineWidget::focusInEvent(QFocusEvent* event) {
    m_interaction.focusIn(event);
    QWidget::focusInEvent(event);
}

void TimelineWidget::leaveEvent(QEvent* event) {
    m_interaction.leave();
    QWidget::leaveEvent(event);
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

// --- selection, highlight, lanes ---------------------------------------------------------------

void TimelineWidget::selectEvent(const model::EventRef& event, bool frame) {
    if (!m_session || !event.isIn(*m_session)) {
        clearSelection();
        return;
    }
    m_selection = event;
    m_range = {};
    m_link = {};
    if (event.kind == model::EventKind::Sync) {
        if (!m_correlations)
            m_correlations = CorrelationIndex::of(m_session);
        m_link = SyncLink::targets(*m_session, event, *m_correlations);
    }
    if (frame)
        frameSelection();
    update();
    emit eventSelected(event);
}

void TimelineWidget::clearSelection() {
    const bool had =
        m_selection.isValid() || m_range.active || !m_highlight.empty() || hasAfterFix();
    m_selection = {};
    m_link = {};
    m_range = {};
    m_highlight.clear();
    clearAfterFix();
    update();
    if (had)
        emit selectionCleared();
}

void TimelineWidget::selectRange(int64_t startNs, int64_t endNs) {
    m_range.active = true;
    m_range.startNs = std::min(startNs, endNs);
    m_range.endNs = std::max(startNs, endNs);
    m_selection = {};
    m_link = {};
    update();
    emit rangeSelected(m_range.startNs, m_range.endNs);
}

void TimelineWidget::highlight(const model::EventSpans& spans) {
    m_highlight.clear();
    if (!m_session)
        return;
    int64_t first = INT64_MAX;
    int64_t last = INT64_MIN;
    model::EventRef firstEvent;
    for (const model::EventSpan& span : spans) {
        if (span.count == 0)
            continue;
        const model::EventRef head = span.first;
        const model::EventRef tail = span.last();
        if (!head.isIn(*m_session) || !tail.isIn(*m_session))
            continue; // a span from another session: ignore rather than read out of bounds
        m_highlight.push_back(span);
        if (head.start(*m_session) < first) {
            first = head.start(*m_session);
            firstEvent = head;
        }
        last = std::max({last, tail.end(*m_session), head.end(*m_session)});
    }
    if (m_highlight.empty()) {
        update();
        return;
    }
    selectEvent(firstEvent); // also clears the range and emits eventSelected
    frameRange(first, last, rowOf(firstEvent));
}

void TimelineWidget::clearHighlight() {
    if (m_highlight.empty())
        return;
    m_highlight.clear();
    update();
}

void TimelineWidget::frameRange(int64_t startNs, int64_t endNs, int laneRow) {
    int64_t span = std::max<int64_t>(endNs - startNs, 1);
    int64_t margin = std::llround(static_cast<double>(span) * kFrameMargin);
    if (span + 2 * margin < kMinFrameNs)
        margin = (kMinFrameNs - span) / 2;
    setVisibleRange(startNs - margin, endNs + margin);
    if (laneRow >= 0)
        ensureRowVisible(laneRow);
}

void TimelineWidget::frameSelection() {
    if (!m_session)
        return;
    if (!m_highlight.empty()) {
        int64_t first = INT64_MAX;
        int64_t last = INT64_MIN;
        for (const model::EventSpan& span : m_highlight) {
            first = std::min(first, span.first.start(*m_session));
            last = std::max(last, span.last().end(*m_session));
        }
        frameRange(first, last);
    } else if (m_selection.isValid()) {
        frameRange(m_selection.start(*m_session), m_selection.end(*m_session), rowOf(m_selection));
    } else if (m_range.active) {
        frameRange(m_range.startNs, m_range.endNs);
    }
}

void TimelineWidget::ensureRowVisible(int row) {
    if (row < 0 || static_cast<size_t>(row) >= m_layout.lanes().size())
        return;
    const TimelineLane& lane = m_layout.lanes()[row];
    const int view = height() - kRulerHeight;
    if (lane.y < m_scrollBar->value())
        m_scrollBar->setValue(lane.y);
    else if (lane.y + lane.height > m_scrollBar->value() + view)
        m_scrollBar->setValue(lane.y + lane.height - view);
}

void TimelineWidget::toggleLane(int row) {
    m_layout.toggleCollapsed(row);
    layoutEdited();
}

bool TimelineWidget::moveLane(int fromRow, int toRow) {
    if (!m_layout.moveLane(fromRow, toRow))
        return false;
    layoutEdited();
    return true;
}

QString TimelineWidget::toolTipFor(const model::EventRef& event) const {
    const model::Session& session = *m_session;
    const int64_t start = event.start(session);
    const int64_t end = event.end(session);
    QString text = QStringLiteral("<b>%1</b><br>").arg(toolTipName(eventName(session, event)));
    const QString duration = QString::fromStdString(model::formatDuration(end - start));
    switch (event.kind) {
    case model::EventKind::Sync:
        text += tr("<span style='color:#C62828'>host blocked <b>%1</b></span>").arg(duration);
        break;
    case model::EventKind::Memcpy:
    case model::EventKind::Memset: {
        const model::TransferColumns& transfers = *event.transfers(session);
        text +=
            tr("%1 · %2").arg(duration, QString::fromStdString(model::formatBytes(
                                            static_cast<int64_t>(transfers.bytes[event.index]))));
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
                .arg(QString::fromStdString(model::formatDuration(start - session.startNs)),
                     eventLaneLabel(session, event).toHtmlEscaped());
    if (const auto after = afterFixInterval(event)) {
        const int64_t shift = after->first - start;
        text += shift == 0
                    ? tr("<br>after fix: starts at the same time")
                    : tr("<br>after fix: starts %1 %2")
                          .arg(QString::fromStdString(model::formatDuration(std::abs(shift))),
                               shift < 0 ? tr("sooner") : tr("later"));
    }
    return text;
}

void TimelineWidget::setHover(const model::EventRef& event) {
    if (event == m_hover)
        return;
    m_hover = event;
    update(); // overlay only: the draw list stays
}

} // namespace stallscope::views
