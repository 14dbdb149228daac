#include "views/timeline/ruler_labels.h"

#include "model/session/session_summary.h"
#include "views/timeline/time_ruler.h"

#include <algorithm>
#include <cmath>

namespace stallscope::views {

RulerLabels::RulerLabels(const TimelineGeometry& geometry, const RulerRange& range,
                         const QFontMetrics& metrics) {
    // The range's length on a plate centred over the band, when the band is wide enough for it.
    if (range.active) {
        m_badgeText =
            QString::fromStdString(model::formatDuration(std::abs(range.endNs - range.startNs)));
        const double a = geometry.xForTime(std::min(range.startNs, range.endNs));
        const double b = geometry.xForTime(std::max(range.startNs, range.endNs));
        if (b - a > 40.0) {
            const int w = metrics.horizontalAdvance(m_badgeText) + 10;
            const int centre = static_cast<int>(std::lround((a + b) / 2.0));
            m_badgeRect = QRect(centre - w / 2, 3, w, TimeRuler::kHeight - 8);
        }
    }
    // Tick labels right of their tick, none cut by the canvas's right edge or under the badge.
    const QRect& canvas = geometry.canvas();
    const QRect badge = m_badgeRect.adjusted(-4, 0, 4, 0);
    for (RulerTick& tick : TimeRuler::ticks(geometry.viewport())) {
        const int x = canvas.left() + static_cast<int>(std::floor(tick.x));
        const int textWidth = metrics.horizontalAdvance(tick.label);
        if (x + 4 + textWidth > canvas.right())
            continue;
        const QRect rect(x + 4, 0, textWidth + 2, TimeRuler::kHeight - 4);
        if (badge.isValid() && rect.intersects(badge))
            continue;
        m_ticks.push_back({rect, std::move(tick.label)});
    }
}

} // namespace stallscope::views
