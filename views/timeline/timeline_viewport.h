// TimelineViewport: the horizontal time <-> pixel mapping of the timeline canvas. A plain value
// type (no Qt widgets) so the mapping, zoom and pan can be tested without painting.
//
// Times are kept relative to an int64 origin (the session start) as doubles: CLOCK_MONOTONIC
// values are too large for a double to hold with sub-nanosecond precision, offsets are not.
#pragma once

#include <cstdint>

namespace stallscope::views {

class TimelineViewport {
public:
    // The zoom limits: a tenth of a nanosecond per pixel in, four times the data range out.
    static constexpr double kMinNsPerPixel = 0.1;

    void setOrigin(int64_t originNs) { m_originNs = originNs; }
    int64_t originNs() const { return m_originNs; }

    // Canvas width in pixels (at least 1). Keeps the start, so widening shows more time.
    void setWidth(int widthPx);
    int width() const { return m_widthPx; }

    // The data range bounds panning and zooming out; empty ranges are widened to 1 µs.
    void setDataRange(int64_t startNs, int64_t endNs);

    // Shows [startNs, endNs) across the width.
    void setVisibleRange(int64_t startNs, int64_t endNs);
    void zoomToFit() { setVisibleRange(m_dataStartNs, m_dataEndNs); }

    double nsPerPixel() const { return m_nsPerPixel; }
    // Visible range in absolute nanoseconds (start rounded down, end rounded up).
    int64_t visibleStartNs() const;
    int64_t visibleEndNs() const;
    double visibleDurationNs() const { return m_nsPerPixel * m_widthPx; }

    double xForTime(int64_t timeNs) const {
        return (static_cast<double>(timeNs - m_originNs) - m_startOffsetNs) / m_nsPerPixel;
    }
    // Relative time (ns since origin) at x, without rounding: for grids and rulers.
    double offsetForX(double x) const { return m_startOffsetNs + x * m_nsPerPixel; }
    int64_t timeForX(double x) const;

    // factor > 1 zooms in. The time under x stays under x (unless a limit clamps it).
    void zoomAround(double x, double factor);
    // Positive dx moves the content right (shows earlier time), like dragging it.
    void panByPixels(double dx);

    bool operator==(const TimelineViewport&) const = default;

private:
    void clamp();

    int64_t m_originNs = 0;
    double m_startOffsetNs = 0.0; // visible start, relative to the origin
    double m_nsPerPixel = 1000.0;
    int m_widthPx = 1000;
    int64_t m_dataStartNs = 0;
    int64_t m_dataEndNs = 1000000;
};

} // namespace stallscope::views
