// TimeRuler: the tick positions and labels of the timeline's time ruler. Steps follow the 1-2-5
// sequence so ticks stay at least minSpacing pixels apart at any zoom; the unit (ns, µs, ms, s)
// follows the step, and labels are times since the viewport origin (the session start).
#pragma once

#include "views/timeline/timeline_viewport.h"

#include <QString>

#include <vector>

namespace stallscope::views {

struct RulerTick {
    double x = 0;
    QString label;
};

class TimeRuler {
public:
    // The ruler's height above the canvas, in pixels.
    static constexpr int kHeight = 26;

    // The smallest 1-2-5 step (ns) that keeps ticks at least minSpacingPx apart.
    static double stepFor(double nsPerPixel, double minSpacingPx);
    static std::vector<RulerTick> ticks(const TimelineViewport& viewport,
                                        double minSpacingPx = 90.0);
    // offsetNs formatted in the unit of stepNs with just enough decimals ("1.25 ms", "40 µs"); a
    // larger unit when the offset (or magnitudeNs, the largest offset on the same ruler) would
    // need more than five integer digits ("4.23462 s", not "4234620 µs").
    static QString label(double offsetNs, double stepNs, double magnitudeNs = 0.0);
};

} // namespace stallscope::views
