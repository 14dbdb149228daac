// RulerLabels: where the time ruler's texts go: each tick's label right of its tick, and a
// selected range's length on a badge centred over the range. One layout for the painter to draw
// and the tests to check; a label that the canvas's right edge would cut (it would read as
// another number) or that the badge would cover is left out.
#pragma once

#include "views/timeline/timeline_geometry.h"

#include <QFontMetrics>
#include <QRect>
#include <QString>

#include <cstdint>
#include <vector>

namespace stallscope::views {

// A time range selected on the ruler, or being dragged there: then start is where the drag began,
// and end may lie before it.
struct RulerRange {
    bool active = false;
    int64_t startNs = 0;
    int64_t endNs = 0;
};

class RulerLabels {
public:
    struct Label {
        QRect rect; // widget coordinates
        QString text;
    };

    // metrics: the widget's font's, which the ruler is painted in.
    RulerLabels(const TimelineGeometry& geometry, const RulerRange& range,
                const QFontMetrics& metrics);

    const std::vector<Label>& ticks() const { return m_ticks; }
    // The range's length and its plate: invalid without a range or one too narrow for it.
    const QRect& badgeRect() const { return m_badgeRect; }
    const QString& badgeText() const { return m_badgeText; }

private:
    std::vector<Label> m_ticks;
    QRect m_badgeRect;
    QString m_badgeText;
};

} // namespace stallscope::views
