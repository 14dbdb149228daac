// LaneLabelColumn: the column of lane labels left of the canvas. Its width is fitted to the
// labels until the user drags its edge; from then on the user's width is kept, for other sessions
// too. Each lane's label has a font (bold headers, smaller range and busy rows), a place (indented
// by nesting, after the collapse triangle) and a text: in full for its tooltip, elided on the
// right to fit as painted. The elision is cached per row: it shapes the text, and every frame
// paints every label.
#pragma once

#include "views/timeline/timeline_layout.h"

#include <QCoreApplication>
#include <QFont>
#include <QPoint>
#include <QRect>
#include <QString>

#include <vector>

namespace stallscope::views {

class DrawList;

class LaneLabelColumn {
    Q_DECLARE_TR_FUNCTIONS(LaneLabelColumn)
public:
    // The narrowest the user may make it, and the bounds of the width fitted to the labels.
    static constexpr int kMinWidth = 120;
    static constexpr int kDefaultMinWidth = 210;
    static constexpr int kDefaultMaxWidth = 340;

    int width() const { return m_width; }
    // Fits the width to the labels of `layout` in the widget's font, unless the user chose it.
    void fitTo(const TimelineLayout& layout, const QFont& font);
    // The width the user dragged the edge to, clamped to kMinWidth..half the widget (any width
    // while the widget has none); kept from now on. Returns whether the width changed.
    bool setUserWidth(int width, int widgetWidth);
    // Whether a press at `pos` grabs the column's right edge.
    bool onEdge(const QPoint& pos, int widgetHeight) const;

    // A lane's label font, from the widget's.
    static QFont labelFont(const TimelineLane& lane, const QFont& font);
    // Where a lane's label text goes, given the lane's rectangle (widget coordinates).
    QRect labelRect(const TimelineLane& lane, const QRect& laneRect) const;
    // A row's label in full; a GPU-busy track's says how busy the visible range is (drawList's).
    static QString fullText(const TimelineLayout& layout, const DrawList& drawList, int row);
    // The label as painted: fullText elided on the right to fit labelRect.
    QString shownText(const TimelineLayout& layout, const DrawList& drawList, int row,
                      const QFont& font) const;

private:
    int textWidth(const TimelineLane& lane) const; // labelRect's width

    struct ShownLabel { // shownText's last elision of a row, and what it was made from
        QString full;
        QFont font;
        int width = -1;
        QString text;
    };

    int m_width = kDefaultMinWidth;
    bool m_widthByUser = false;
    mutable std::vector<ShownLabel> m_shownLabels;
};

} // namespace stallscope::views
