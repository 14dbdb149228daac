// EventRef: one event of the loaded session, named by its column and its position in that
// column — what the timeline selects, hovers and links, and what the details panel shows.
// Session lane indexes (not layout rows), so a reference survives collapsing and reordering.
//
// model::EventSpan (insight.h) has no column for NVTX ranges; EventRef does (BlockKind::Range
// with a depth), and converts from spans with fromSpan().
#pragma once

#include "model/analysis/insight.h"
#include "views/timeline/draw_list.h"

#include <QMetaType>
#include <QRgb>
#include <QString>

#include <cstdint>
#include <string>

namespace stallscope::model {
class Session;
struct IntervalColumns;
} // namespace stallscope::model

namespace stallscope::views {

struct EventRef {
    BlockKind kind = BlockKind::ApiCall;
    int32_t lane = -1;  // Session::hostLanes index (ApiCall, Sync, Range) or streamLanes index
    int32_t depth = 0;  // Range only
    uint32_t index = 0; // position in the time-sorted column

    bool isValid() const { return lane >= 0; }
    bool isHost() const {
        return kind == BlockKind::ApiCall || kind == BlockKind::Sync || kind == BlockKind::Range;
    }
    bool operator==(const EventRef&) const = default;

    // The column this event lives in, or null when the reference does not fit the session.
    const model::IntervalColumns* columns(const model::Session& session) const;
    bool isIn(const model::Session& session) const;
    int64_t start(const model::Session& session) const;
    int64_t end(const model::Session& session) const;
    // Kernel name, API function, range name, "Memcpy DtoH", or the sync kind.
    QString name(const model::Session& session) const;
    // "python (4242)", "GPU 0 · stream 7".
    QString laneLabel(const model::Session& session) const;
    // Process of the event's thread or stream (index into Session::processes), -1 if unknown.
    int32_t processIndex(const model::Session& session) const;
    uint32_t correlationId(const model::Session& session) const; // 0 when none

    static EventRef fromSpan(const model::EventSpan& span, uint32_t offset = 0);
};

// A kernel name as people read it: CUPTI records Itanium-mangled names ("_ZN7cutlass..."); they
// are demangled, anything else is returned as is.
QString kernelDisplayName(const std::string& name);
// "stream synchronize", "device synchronize", … (format::SyncKind values).
QString syncKindName(int kind);
// "HtoD", "DtoH", … (format::CopyKind values); "" when unknown.
QString copyKindName(int kind);
// "pageable", "pinned", "device", … (format::MemoryKind values).
QString memoryKindName(int kind);
// The colour the timeline paints the event in (TimelinePalette).
QRgb eventColor(const model::Session& session, const EventRef& event);
// True for syncs that block the host (every kind but stream-wait-event).
bool isHostBlocking(int syncKind);

} // namespace stallscope::views

Q_DECLARE_METATYPE(stallscope::views::EventRef)
