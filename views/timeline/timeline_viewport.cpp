#include "views/timeline/timeline_viewport.h"

#include <algorithm>
#include <cmath>

namespace stallscope::views {

void TimelineViewport::setWidth(int widthPx) {
    m_widthPx = std::max(1, widthPx);
    clamp();
}

void TimelineViewport::setDataRange(int64_t startNs, int64_t endNs) {
    m_dataStartNs = startNs;
    m_dataEndNs = std::max(endNs, startNs + 1000);
    clamp();
}

void TimelineViewport::setVisibleRange(int64_t startNs, int64_t endNs) {
    const double span = std::max<double>(static_cast<double>(endNs - startNs), 1.0);
    m_nsPerPixel = span / m_widthPx;
    m_startOffsetNs = static_cast<double>(startNs - m_originNs);
    clamp();
}

int64_t TimelineViewport::visibleStartNs() const {
    return m_originNs + static_cast<int64_t>(std::floor(m_startOffsetNs));
}

int64_t TimelineViewport::visibleEndNs() const {
    return m_originNs + static_cast<int64_t>(std::ceil(m_startOffsetNs + visibleDurationNs()));
}

int64_t TimelineViewport::timeForX(double x) const {
    return m_originNs + std::llround(offsetForX(x));
}

void TimelineViewport::zoomAround(double x, double factor) {
    if (!(factor > 0.0))
        return;
    const double anchor = offsetForX(x);
    m_nsPerPixel /= factor;
    m_startOffsetNs = anchor - x * m_nsPerPixel;
    clamp();
}

void TimelineViewport::panByPixels(double dx) {
    m_startOffsetNs -= dx * m_nsPerPixel;
    clamp();
}

// Keeps the view on the data: at most four data ranges wide, the data centred when it all fits,
// otherwise never scrolled past either end of the data (issue 42: panning ran to −0.6 s).
void TimelineViewport::clamp() {
    const double dataStart = static_cast<double>(m_dataStartNs - m_originNs);
    const double dataEnd = static_cast<double>(m_dataEndNs - m_originNs);
    const double maxNsPerPixel = 4.0 * (dataEnd - dataStart) / m_widthPx;
    m_nsPerPixel =
        std::clamp(m_nsPerPixel, kMinNsPerPixel, std::max(kMinNsPerPixel, maxNsPerPixel));
    const double visible = visibleDurationNs();
    if (visible >= dataEnd - dataStart) {
        m_startOffsetNs = (dataStart + dataEnd - visible) / 2.0; // all data in view: centre it
        return;
    }
    m_startOffsetNs = std::clamp(m_startOffsetNs, dataStart, dataEnd - visible);
}

} // namespace stallscope::views
