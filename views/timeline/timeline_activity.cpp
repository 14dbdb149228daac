#include "views/timeline/timeline_activity.h"

#include "model/session/session.h"

#include <algorithm>
#include <vector>

namespace stallscope::views {

namespace {

struct Cursor {
    const model::IntervalColumns* columns = nullptr;
    size_t next = 0; // forward: next index; backward: one past the next index
};

// Walks at most `limit` GPU operations in start order from the beginning and returns the start of
// the first operation after the last gap of at least `gap` ns (or the first start).
int64_t startAfterStrays(std::vector<Cursor> cursors, size_t limit, int64_t gap) {
    int64_t result = INT64_MAX;
    int64_t coveredEnd = INT64_MIN;
    for (size_t step = 0; step <= limit; ++step) {
        Cursor* pick = nullptr;
        for (Cursor& c : cursors)
            if (c.next < c.columns->size() &&
                (!pick || c.columns->start[c.next] < pick->columns->start[pick->next]))
                pick = &c;
        if (!pick)
            break;
        const int64_t start = pick->columns->start[pick->next];
        if (result == INT64_MAX || start - coveredEnd >= gap)
            result = start;
        coveredEnd = std::max(coveredEnd, pick->columns->end[pick->next]);
        ++pick->next;
    }
    return result;
}

// The mirror image: the end of the last operation before the first gap (walking backwards from
// the end) of at least `gap` ns among the last `limit` operations.
int64_t endBeforeStrays(std::vector<Cursor> cursors, size_t limit, int64_t gap) {
    int64_t result = INT64_MIN;
    int64_t coveredStart = INT64_MAX;
    for (Cursor& c : cursors)
        c.next = c.columns->size();
    for (size_t step = 0; step <= limit; ++step) {
        Cursor* pick = nullptr;
        for (Cursor& c : cursors)
            if (c.next > 0 &&
                (!pick || c.columns->end[c.next - 1] > pick->columns->end[pick->next - 1]))
                pick = &c;
        if (!pick)
            break;
        const int64_t end = pick->columns->end[pick->next - 1];
        if (result == INT64_MIN || coveredStart - end >= gap)
            result = end;
        coveredStart = std::min(coveredStart, pick->columns->start[pick->next - 1]);
        --pick->next;
    }
    return result;
}

} // namespace

std::pair<int64_t, int64_t> TimelineActivity::range(const model::Session& session) {
    std::vector<Cursor> cursors;
    size_t operations = 0;
    for (const model::StreamLane& lane : session.streamLanes)
        for (const model::IntervalColumns* columns :
             {static_cast<const model::IntervalColumns*>(&lane.kernels),
              static_cast<const model::IntervalColumns*>(&lane.memcpys),
              static_cast<const model::IntervalColumns*>(&lane.memsets)})
            if (!columns->empty()) {
                cursors.push_back({columns, 0});
                operations += columns->size();
            }
    if (cursors.empty())
        return {session.startNs, session.endNs};
    const double total = std::max<double>(1.0, static_cast<double>(session.durationNs()));
    const auto gap = static_cast<int64_t>(kIsolatingGapShare * total);
    const size_t strays = static_cast<size_t>(static_cast<double>(operations) * kStrayShare);
    int64_t first = startAfterStrays(cursors, strays, gap);
    int64_t last = endBeforeStrays(cursors, strays, gap);
    for (const model::HostLane& lane : session.hostLanes) // a sync after the last work counts
        if (!lane.syncs.empty() && lane.syncs.end.back() > last &&
            static_cast<double>(lane.syncs.end.back() - last) < kIsolatingGapShare * total)
            last = lane.syncs.end.back();
    if (last <= first)
        return {session.startNs, session.endNs};
    if (static_cast<double>(first - session.startNs) < kTrimShare * total)
        first = session.startNs;
    if (static_cast<double>(session.endNs - last) < kTrimShare * total)
        last = session.endNs;
    const int64_t margin = (last - first) / 100;
    return {std::max(session.startNs, first - margin), std::min(session.endNs, last + margin)};
}

} // namespace stallscope::views
