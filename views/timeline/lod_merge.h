// Level-of-detail merge of one lane's interval column for the current viewport: drawing cost
// follows pixels, not events. Events at least a pixel wide come out one by one; a sub-pixel event
// and everything else starting in the same pixel column is merged into one run, found by a
// galloping binary search to the next pixel boundary, so a lane costs O(width · log n).
//
// Pixel columns are counted from the viewport origin, not from the visible start: panning by whole
// pixels then merges exactly the same runs, so zoomed-out lanes do not shimmer while dragging.
#pragma once

#include "model/session/event_columns.h"
#include "views/timeline/lod_summary.h"
#include "views/timeline/timeline_viewport.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <utility>

namespace stallscope::views {

struct MergedRun {
    size_t first = 0; // index of the first event in the column
    size_t count = 0; // events merged (1: a single event)
    double x0 = 0.0;  // canvas x of the first event's start
    double x1 = 0.0;  // canvas x of the furthest end found (may be < x0 + 1: callers widen it)
    // Summed durations of the run's events, in pixels (a sub-pixel event: its share of a pixel):
    // how busy (or, for syncs, how blocked) the pixel is, for density drawing at low zoom. Exact
    // with a summary; without, exact for the first kExactEndScan events and extrapolated from
    // their mean beyond.
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

// The latest end and the summed durations of events [i, j) of a run at least two groups long: the
// partial groups at both ends event by event, the whole groups between from the summary (their
// ends for the first kExactEndScan groups; beyond them the run's end is the last event's end).
inline std::pair<int64_t, int64_t> summarizedRun(const model::IntervalColumns& columns,
                                                 const ColumnSummary& summary, size_t i, size_t j) {
    constexpr size_t kGroup = ColumnSummary::kGroup;
    const size_t firstWhole = (i + kGroup - 1) / kGroup;
    const size_t lastWhole = j / kGroup; // whole groups [firstWhole, lastWhole); j - i >= 2 groups
    int64_t furthest = columns.end[j - 1];
    int64_t covered = summary.coveredBetweenGroups(firstWhole, lastWhole);
    auto addEvents = [&](size_t from, size_t to) {
        for (size_t k = from; k < to; ++k) {
            furthest = std::max(furthest, columns.end[k]);
            covered += columns.end[k] - columns.start[k];
        }
    };
    addEvents(i, firstWhole * kGroup);
    addEvents(lastWhole * kGroup, j);
    const size_t scanned = std::min(lastWhole, firstWhole + kExactEndScan);
    for (size_t g = firstWhole; g < scanned; ++g)
        furthest = std::max(furthest, summary.groupEnd[g]);
    return {furthest, covered};
}

// The latest end and the summed durations of a run's events, the first kExactEndScan exactly
// (the rest's durations extrapolated from their mean), in two chains of maxima and sums: the scan
// is most of a zoomed-out lane's cost when there is no summary.
inline std::pair<int64_t, double> scannedRun(const model::IntervalColumns& columns, size_t i,
                                             size_t j) {
    const size_t exactEnd = std::min(j, i + kExactEndScan);
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
    return {std::max(furthest, furthestOdd), static_cast<double>(covered + coveredOdd) *
                                                 static_cast<double>(j - i) /
                                                 static_cast<double>(exactEnd - i)};
}
} // namespace detail

// Calls fn(const MergedRun&) for every run overlapping the viewport, in start order. The counts of
// the runs add up to the number of events visible in the viewport. With `summaries`, runs of at
// least two summary groups take their ends and durations from the column's summary (made on first
// use): exact where the scan alone extrapolates.
template <typename Fn>
void forEachMergedRun(const model::IntervalColumns& columns, const TimelineViewport& viewport,
                      LodSummaries* summaries, Fn&& fn) {
    const size_t n = columns.size();
    if (n == 0)
        return;
    const int64_t t0 = viewport.visibleStartNs();
    const int64_t t1 = viewport.visibleEndNs();
    const int64_t origin = viewport.originNs();
    const double nsPerPixel = viewport.nsPerPixel();
    const ColumnSummary* summary = nullptr;
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
            // The next run likely ends about as far on: ask for its starts and ends now, so their
            // cache misses overlap this run's work (a zoomed-out build waits on memory).
            if (j + lastMerged < n) {
                __builtin_prefetch(columns.start.data() + j + lastMerged);
                __builtin_prefetch(columns.end.data() + j + lastMerged);
                __builtin_prefetch(columns.end.data() + j);
            }
            int64_t furthest = 0;
            double coveredNs = 0;
            if (summaries && j - i >= 2 * ColumnSummary::kGroup) {
                if (!summary)
                    summary = &summaries->of(columns);
                const auto [end, covered] = detail::summarizedRun(columns, *summary, i, j);
                furthest = end;
                coveredNs = static_cast<double>(covered);
            } else {
                std::tie(furthest, coveredNs) = detail::scannedRun(columns, i, j);
            }
            run.x1 = viewport.xForTime(furthest);
            run.count = j - i;
            run.coveredPx = coveredNs / nsPerPixel;
            i = j;
        }
        if (run.x1 >=
            0.0) // nested lanes: firstEndingAfter may hand back calls that ended before t0
            fn(run);
    }
}

template <typename Fn>
void forEachMergedRun(const model::IntervalColumns& columns, const TimelineViewport& viewport,
                      Fn&& fn) {
    forEachMergedRun(columns, viewport, nullptr, std::forward<Fn>(fn));
}

} // namespace stallscope::views
