// EventRef: the one identity of an event of a loaded session — its kind, its lane, its range depth
// and its position in its time-sorted column. Insights, the timeline's selection and hover, the
// details panel and the tables all name events this way. Lanes are Session lane indexes (not
// layout rows), so a reference survives collapsing and reordering lanes in the views.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::model {

class Session;
struct IntervalColumns;
struct TransferColumns;

// Host events live in Session::hostLanes (ApiCall: apiCalls, Sync: syncs, Range:
// rangesByDepth[depth]); GPU events in Session::streamLanes (kernels, memcpys, memsets).
enum class EventKind : uint8_t { ApiCall, Sync, Range, Kernel, Memcpy, Memset };

struct EventRef {
    EventKind kind = EventKind::ApiCall;
    int32_t lane = -1;  // Session::hostLanes index for host kinds, else Session::streamLanes index
    int32_t depth = 0;  // Range only
    uint32_t index = 0; // position in the time-sorted column

    static EventRef sync(int32_t lane, uint32_t index) { return {EventKind::Sync, lane, 0, index}; }
    static bool isHostKind(EventKind kind) {
        return kind == EventKind::ApiCall || kind == EventKind::Sync || kind == EventKind::Range;
    }

    bool isValid() const { return lane >= 0; }
    bool isHost() const { return isHostKind(kind); }
    // The event `offset` positions later in the same column.
    EventRef advancedBy(uint32_t offset) const { return {kind, lane, depth, index + offset}; }
    bool operator==(const EventRef&) const = default;

    // The column this event lives in, or null when the reference does not fit the session.
    const IntervalColumns* columns(const Session& session) const;
    bool isIn(const Session& session) const { return columns(session) != nullptr; }
    // A memcpy's or memset's column (bytes, copy and memory kinds); null for other kinds or when
    // the reference does not fit the session.
    const TransferColumns* transfers(const Session& session) const;
    int64_t start(const Session& session) const; // 0 when not in the session
    int64_t end(const Session& session) const;   // 0 when not in the session
    // Kernel name (demangled), API function, range name, "Memcpy DtoH", or the sync kind.
    std::string name(const Session& session) const;
    // "python (4242)", "GPU 0 · stream 7".
    std::string laneLabel(const Session& session) const;
    // Process of the event's thread or stream (index into Session::processes), -1 if unknown.
    int32_t processIndex(const Session& session) const;
    uint32_t correlationId(const Session& session) const; // 0 when none (ranges)
};

// A run of consecutive events of one column: how insights and tables name many events at once
// (16 bytes per run however many events it holds).
struct EventSpan {
    EventRef first;
    uint32_t count = 0;

    EventRef at(uint32_t offset) const { return first.advancedBy(offset); }
    EventRef last() const { return at(count - 1); }
    bool operator==(const EventSpan&) const = default;
};
using EventSpans = std::vector<EventSpan>;
// Events the spans hold, summed.
int64_t eventCount(const EventSpans& spans);
// The event of `kind` in the spans whose duration is the median (the upper one of an even count):
// the typical one of a site's syncs, not its first. Invalid when the spans hold none.
EventRef medianEvent(const Session& session, const EventSpans& spans, EventKind kind);
// The event of `kind` that started first, and the one that took longest (the first of equals).
EventRef firstEvent(const Session& session, const EventSpans& spans, EventKind kind);
EventRef slowestEvent(const Session& session, const EventSpans& spans, EventKind kind);

// True for syncs that block the host: every format::SyncKind but stream-wait-event.
bool isHostBlocking(uint8_t syncKind);

} // namespace stallscope::model
