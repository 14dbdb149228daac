// TimelineWidget's label column and ruler geometry: the column's width (fitted to the labels
// until the user drags its edge), each lane's label as painted (elided on the right) and in full
// (its tooltip), the ruler's tick labels and the range badge that they make room for.
#include "views/timeline/timeline_widget.h"

#include "model/session/session_summary.h"
#include "views/timeline/time_ruler.h"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

namespace stallscope::views {

namespace {

// How close to the label column's edge a press grabs it.
constexpr int kEdgeGrab = 3;
// Left indent of a label: room for the collapse triangle, then 12 px per nesting level.
int indentOf(const TimelineLane& lane) {
    return 20 + 12 * lane.level;
}
constexpr int kLabelRightPadding = 6;

} // namespace

QFont TimelineWidget::laneLabelFont(const TimelineLane& lane) const {
    QFont result = font();
    if (lane.isHeader())
        result.setBold(true);
    else if (lane.kind == LaneKind::Range || lane.kind == LaneKind::GpuBusy)
        result.setPointSizeF(result.pointSizeF() * 0.85);
    return result;
}

QRect TimelineWidget::laneLabelRect(int row) const {
    const TimelineLane& lane = m_layout.lanes().at(row);
    const QRect rect = laneRect(row);
    return QRect(indentOf(lane), rect.top(),
                 std::max(0, m_labelWidth - indentOf(lane) - kLabelRightPadding), rect.height());
}

QString TimelineWidget::laneLabelFull(int row) const {
    if (row < 0 || static_cast<size_t>(row) >= m_layout.lanes().size())
        return {};
    const TimelineLane& lane = m_layout.lanes()[row];
    if (lane.kind != LaneKind::GpuBusy)
        return lane.label;
    // The share of the visible range, not of the session (the Insights summary has that one).
    const double share = m_drawList.busyShare(static_cast<size_t>(row));
    return tr("%1 (view) %2 %").arg(lane.label, QString::number(share * 100.0, 'f', 0));
}

QString TimelineWidget::laneLabelShown(int row) const {
    if (row < 0 || static_cast<size_t>(row) >= m_layout.lanes().size())
        return {};
    // Eliding shapes the text: once per label, font and width, not on every frame.
    QString full = laneLabelFull(row);
    QFont font = laneLabelFont(m_layout.lanes()[row]);
    const int width = laneLabelRect(row).width();
    if (m_shownLabels.size() != m_layout.lanes().size())
        m_shownLabels.assign(m_layout.lanes().size(), {});
    ShownLabel& shown = m_shownLabels[static_cast<size_t>(row)];
    if (shown.width != width || shown.full != full || shown.font != font) {
        shown.text = QFontMetrics(font).elidedText(full, Qt::ElideRight, width);
        shown.full = std::move(full);
        shown.font = std::move(font);
        shown.width = width;
    }
    return shown.text;
}

// The widest label (process headers aside: a command line may be any length) decides the
// column, within kDefaultMinLabelWidth..kDefaultMaxLabelWidth; a width the user chose stays.
void TimelineWidget::fitLabelColumn() {
    if (m_labelWidthByUser)
        return;
    int widest = 0;
    for (const TimelineLane& lane : m_layout.lanes()) {
        if (lane.kind == LaneKind::ProcessHeader)
            continue;
        const QString text = lane.kind == LaneKind::GpuBusy
                                 ? tr("%1 (view) %2 %").arg(lane.label, QStringLiteral("100"))
                                 : lane.label;
        widest = std::max(widest, indentOf(lane) +
                                      QFontMetrics(laneLabelFont(lane)).horizontalAdvance(text) +
                                      kLabelRightPadding + 2);
    }
    m_labelWidth = std::clamp(widest, kDefaultMinLabelWidth, kDefaultMaxLabelWidth);
}

void TimelineWidget::setLabelColumnWidth(int width) {
    const int most = this->width() > 0 ? std::max(kMinLabelWidth, this->width() / 2) : width;
    width = std::clamp(width, kMinLabelWidth, std::max(kMinLabelWidth, most));
    m_labelWidthByUser = true;
    if (width == m_labelWidth)
        return;
    // The visible range stays; the scale follows the canvas's new width.
    const int64_t start = m_viewport.visibleStartNs();
    const int64_t end = m_viewport.visibleEndNs();
    m_labelWidth = width;
    m_viewport.setWidth(canvasRect().width());
    m_viewport.setVisibleRange(start, end);
    viewportEdited();
    emit labelColumnWidthChanged(m_labelWidth);
}

bool TimelineWidget::onLabelEdge(const QPoint& pos) const {
    return std::abs(pos.x() - m_labelWidth) <= kEdgeGrab && pos.y() >= 0 && pos.y() < height();
}

QString TimelineWidget::rangeBadgeText() const {
    return QString::fromStdString(model::formatDuration(std::abs(m_range.endNs - m_range.startNs)));
}

// The range's length on a plate centred over the band, when the band is wide enough for it.
QRect TimelineWidget::rangeBadgeRect() const {
    if (!m_range.active)
        return {};
    const double a = xForTime(std::min(m_range.startNs, m_range.endNs));
    const double b = xForTime(std::max(m_range.startNs, m_range.endNs));
    if (b - a <= 40.0)
        return {};
    const int w = fontMetrics().horizontalAdvance(rangeBadgeText()) + 10;
    const int centre = static_cast<int>(std::lround((a + b) / 2.0));
    return QRect(centre - w / 2, 3, w, kRulerHeight - 8);
}

// Tick labels right of their tick; one cut by the canvas's right edge (it would read as another
// number) or one the range badge would cover is left out.
std::vector<TimelineWidget::RulerLabel> TimelineWidget::rulerLabels() const {
    std::vector<RulerLabel> result;
    const QRect canvas = canvasRect();
    const QRect badge = rangeBadgeRect().adjusted(-4, 0, 4, 0);
    const QFontMetrics metrics = fontMetrics();
    for (RulerTick& tick : TimeRuler::ticks(m_viewport)) {
        const int x = canvas.left() + static_cast<int>(std::floor(tick.x));
        const int textWidth = metrics.horizontalAdvance(tick.label);
        if (x + 4 + textWidth > canvas.right())
            continue;
        const QRect rect(x + 4, 0, textWidth + 2, kRulerHeight - 4);
        if (badge.isValid() && rect.intersects(badge))
            continue;
        result.push_back({rect, std::move(tick.label)});
    }
    return result;
}

std::vector<QRect> TimelineWidget::rulerLabelRects() const {
    std::vector<QRect> rects;
    for (const RulerLabel& label : rulerLabels())
        rects.push_back(label.rect);
    return rects;
}

} // namespace stallscope::views
