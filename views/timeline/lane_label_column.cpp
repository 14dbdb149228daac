#include "views/timeline/lane_label_column.h"

#include "views/timeline/draw_list.h"

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

QFont LaneLabelColumn::labelFont(const TimelineLane& lane, const QFont& font) {
    QFont result = font;
    if (lane.isHeader())
        result.setBold(true);
    else if (lane.kind == LaneKind::Range || lane.kind == LaneKind::GpuBusy)
        result.setPointSizeF(result.pointSizeF() * 0.85);
    return result;
}

int LaneLabelColumn::textWidth(const TimelineLane& lane) const {
    return std::max(0, m_width - indentOf(lane) - kLabelRightPadding);
}

QRect LaneLabelColumn::labelRect(const TimelineLane& lane, const QRect& laneRect) const {
    return QRect(indentOf(lane), laneRect.top(), textWidth(lane), laneRect.height());
}

QString LaneLabelColumn::fullText(const TimelineLayout& layout, const DrawList& drawList, int row) {
    if (row < 0 || static_cast<size_t>(row) >= layout.lanes().size())
        return {};
    const TimelineLane& lane = layout.lanes()[row];
    if (lane.kind != LaneKind::GpuBusy)
        return lane.label;
    // The share of the visible range, not of the session (the Insights summary has that one).
    const double share = drawList.busyShare(static_cast<size_t>(row));
    return tr("%1 (view) %2 %").arg(lane.label, QString::number(share * 100.0, 'f', 0));
}

QString LaneLabelColumn::shownText(const TimelineLayout& layout, const DrawList& drawList, int row,
                                   const QFont& font) const {
    if (row < 0 || static_cast<size_t>(row) >= layout.lanes().size())
        return {};
    // Eliding shapes the text: once per label, font and width, not on every frame.
    const TimelineLane& lane = layout.lanes()[row];
    QString full = fullText(layout, drawList, row);
    QFont labelFont = LaneLabelColumn::labelFont(lane, font);
    const int width = textWidth(lane);
    if (m_shownLabels.size() != layout.lanes().size())
        m_shownLabels.assign(layout.lanes().size(), {});
    ShownLabel& shown = m_shownLabels[static_cast<size_t>(row)];
    if (shown.width != width || shown.full != full || shown.font != labelFont) {
        shown.text = QFontMetrics(labelFont).elidedText(full, Qt::ElideRight, width);
        shown.full = std::move(full);
        shown.font = std::move(labelFont);
        shown.width = width;
    }
    return shown.text;
}

// The widest label (process headers aside: a command line may be any length) decides the
// column, within kDefaultMinWidth..kDefaultMaxWidth; a width the user chose stays.
void LaneLabelColumn::fitTo(const TimelineLayout& layout, const QFont& font) {
    if (m_widthByUser)
        return;
    int widest = 0;
    for (const TimelineLane& lane : layout.lanes()) {
        if (lane.kind == LaneKind::ProcessHeader)
            continue;
        const QString text = lane.kind == LaneKind::GpuBusy
                                 ? tr("%1 (view) %2 %").arg(lane.label, QStringLiteral("100"))
                                 : lane.label;
        widest = std::max(widest, indentOf(lane) +
                                      QFontMetrics(labelFont(lane, font)).horizontalAdvance(text) +
                                      kLabelRightPadding + 2);
    }
    m_width = std::clamp(widest, kDefaultMinWidth, kDefaultMaxWidth);
}

bool LaneLabelColumn::setUserWidth(int width, int widgetWidth) {
    const int most = widgetWidth > 0 ? std::max(kMinWidth, widgetWidth / 2) : width;
    width = std::clamp(width, kMinWidth, std::max(kMinWidth, most));
    m_widthByUser = true;
    if (width == m_width)
        return false;
    m_width = width;
    return true;
}

bool LaneLabelColumn::onEdge(const QPoint& pos, int widgetHeight) const {
    return std::abs(pos.x() - m_width) <= kEdgeGrab && pos.y() >= 0 && pos.y() < widgetHeight;
}

} // namespace stallscope::views
