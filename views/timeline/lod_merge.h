// Level-of-detail merge of one lane's interval column for the current viewport: drawing cost
// follows pixels, not events. Events at least a pixel wide come out one by one; a sub-pixel event
// and everything else starting in the same pixel column is merged into one run, found by a
// galloping binary search to the next pixel boundary, so a lane costs O(width · log n).
//
// Pixel columns are counted from the viewport origin, not from the visible start: panning by whole
// pixels then merges exactly the same runs, so zoomed-out lanes do not shimmer while dragging.
#pragma once

#include "model/session/event_columns.h"
#include "views/timeline/timeline_viewport.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace stallscope::views {

struct MergedRun {
    size_t first = 0; // index of the first event in the column
    size_t count = 0; // events merged (1: a single event)
    double x0 = 0.0;  // canvas x of the first event's start
    double x1 = 0.0;  // canvas x of the furthest end found (may be < x0 + 1: callers widen it)
    // Summed durations of the run's events, in pixels (a sub-pixel event: its share of a pixel).
    // Exact for the first kExactEndScan events, extrapolated from their mean beyond: how busy
    // (or, for syncs, how blocked) the pixel is, for density drawing at low zoom.
    double coveredPx = 0.0;
};

namespace detail {
// A merged run scans at most this many ends exactly; beyond it the run's end is the last event's
// end. Bounds the cost of a pixel holding millions of events (a long event hidden in the middle
// of such a pixel may then be drawn short; the next runs still cover its span's other events).
inline constexpr size_t kExactEndScan = 64;

// First index in [from, n) whose startOf(index) is >= t (startOf ascending), searching outward
// from `from` first: the next pixel boundary is usually a few events away.
template <typename StartOf> size_t gallopBy(size_t from, size_t n, int64_t t, StartOf&& startOf) {
    size_t low = from;
    size_t step = 1;
    size_t high = from;
    while (high < n && startOf(high) < t) {
        low = high + 1;
        high = from + step;
        step *= 2;
    }
    high = std::min(high, n);
    while (low < high) {
        const size_t middle = low + (high - low) / 2;
        if (startOf(middle) < t)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

inline size_t gallopTo(const model::IntervalColumns& columns, size_t from, int64_t t) {
    return gallopBy(from, columns.size(), t, [&](size_t i) { return columns.start[i]; });
}

// gallopTo(columns, from, t), searching outward from `guess` (clamped to [from, n]) instead of
// from `from`: at low zoom the pixel columns hold about as many events as the previous one, so
// the boundary is a few events from from + that count.
inline size_t gallopNear(const model::IntervalColumns& columns, size_t from, size_t guess,
                         int64_t t) {
    const size_t g = std::clamp(guess, from, columns.size());
    if (g == from || columns.start[g - 1] < t)
        return gallopTo(columns, g, t); // the answer lies in [g, n]
    // start[g - 1] >= t: the answer lies in [from, g - 1]; gallop down to a start below t.
    size_t high = g - 1; // start[high] >= t
    size_t low = from;
    for (size_t step = 1; high - from >= step; step *= 2) {
        if (columns.start[high - step] < t) {
            low = high - step + 1;
            break;
        }
        high -= step;
    }
    while (low < high) {
        const size_t middle = low + (high - low) / 2;
        if (columns.start[middle] < t)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}
} // namespace detail

// Calls fn(const MergedRun&) for every run overlapping the viewport, in start order. The counts of
// the runs add up to the number of events visible in the viewport.
template <typename Fn>
void forEachMergedRun(const model::IntervalColumns& columns, const TimelineViewport& viewport,
                      Fn&& fn) {
    const size_t n = columns.size();
    if (n == 0)
        return;
    const int64_t t0 = viewport.visibleStartNs();
    const int64_t t1 = viewport.visibleEndNs();
    const int64_t origin = viewport.originNs();
    const double nsPerPixel = viewport.nsPerPixel();
    size_t i = columns.firstEndingAfter(t0);
    size_t lastMerged = 1; // events in the previous merged run: where the next boundary may be
    while (i < n && columns.start[i] < t1) {
        MergedRun run;
        run.first = i;
        run.x0 = viewport.xForTime(columns.start[i]);
        run.x1 = viewport.xForTime(columns.end[i]);
        if (run.x1 - run.x0 >= 1.0) {
            run.count = 1;
            run.coveredPx = run.x1 - run.x0;
            ++i;
        } else {
            const double offset = static_cast<double>(columns.start[i] - origin);
            const double boundaryOffset = (std::floor(offset / nsPerPixel) + 1.0) * nsPerPixel;
            // ceil: an event starting exactly on the boundary belongs to the next column. Always
            // > start[i], so the run holds at least event i.
            const int64_t boundary = origin + static_cast<int64_t>(std::ceil(boundaryOffset));
            const size_t j = detail::gallopNear(columns, i + 1, i + lastMerged,
                                                std::max(boundary, columns.start[i] + 1));
            lastMerged = j - i;
            const size_t exactEnd = std::min(j, i + detail::kExactEndScan);
            // Two chains of maxima and sums: the scan is most of a zoomed-out lane's cost.
            const int64_t* starts = columns.start.data();
            const int64_t* ends = columns.end.data();
            int64_t furthest = ends[i], furthestOdd = ends[j - 1];
            int64_t covered = ends[i] - starts[i], coveredOdd = 0;
            size_t k = i + 1;
            for (; k + 1 < exactEnd; k += 2) {
                furthest = std::max(furthest, ends[k]);
                furthestOdd = std::max(furthestOdd, ends[k + 1]);
                covered += ends[k] - starts[k];
                coveredOdd += ends[k + 1] - starts[k + 1];
            }
            if (k < exactEnd) {
                furthest = std::max(furthest, ends[k]);
                covered += ends[k] - starts[k];
            }
            furthest = std::max(furthest, furthestOdd);
            covered += coveredOdd;
            run.x1 = viewport.xForTime(furthest);
            run.count = j - i;
            run.coveredPx = static_cast<double>(covered) / nsPerPixel *
                            (static_cast<double>(run.count) / static_cast<double>(exactEnd - i));
            i = j;
        }
        if (run.x1 >=
            0.0) // nested lanes: firstEndingAfter may hand back calls that ended before t0
            fn(run);
    }
}

} // namespace stallscope::views
