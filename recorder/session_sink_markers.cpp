// SessionSink::handleMarker: NVTX's MARKER records into ranges — a start waits for its end, which
// may come on another thread (start/end ranges) or on the same one (push/pop); instantaneous
// markers are ranges of no length. When capture control stops recording, the ranges still open
// end there.
#include "recorder/session_sink.h"

#include <cupti.h>

namespace stallscope::recorder {

void SessionSink::handleMarker(const ActivityRecord& record, const ActivityBatch& batch) {
    if (record.markerFlags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
        int& depth = m_markerDepth[record.tid];
        OpenMarker open{record.startNs,
                        m_writer->internString(batch.text(record.nameOffset, record.nameLength)),
                        record.tid, depth};
        ++depth;
        m_openMarkers[record.markerId] = open;
    } else if (record.markerFlags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
        auto it = m_openMarkers.find(record.markerId);
        if (it == m_openMarkers.end())
            return;
        const OpenMarker& open = it->second;
        int& depth = m_markerDepth[open.tid];
        if (depth > 0)
            --depth;
        format::RangeRow row;
        row.threadId = threadRow(open.tid ? open.tid : int32_t(m_pid));
        // Push/pop ranges end on the thread that opened them; start/end ranges may not.
        row.kind = record.tid == open.tid ? format::RangeKind::NvtxPushPop
                                          : format::RangeKind::NvtxStartEnd;
        row.nameId = open.nameId;
        row.startNs = open.startNs;
        row.endNs = record.startNs;
        row.depth = open.depth;
        m_writer->addRange(row);
        ++m_stats.events.ranges;
        m_openMarkers.erase(it);
    } else if (record.markerFlags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
        format::RangeRow row;
        row.threadId = threadRow(record.tid ? record.tid : int32_t(m_pid));
        row.kind = format::RangeKind::NvtxPushPop;
        row.nameId = m_writer->internString(batch.text(record.nameOffset, record.nameLength));
        row.startNs = row.endNs = record.startNs;
        m_writer->addRange(row);
        ++m_stats.events.ranges;
    }
}

void SessionSink::closeOpenMarkers(int64_t atNs) {
    // Those begun after atNs (recording started again since, in the same drain) stay open.
    for (auto it = m_openMarkers.begin(); it != m_openMarkers.end();) {
        const OpenMarker& open = it->second;
        if (open.startNs > atNs) {
            ++it;
            continue;
        }
        if (int& depth = m_markerDepth[open.tid]; depth > 0)
            --depth;
        format::RangeRow row;
        row.threadId = threadRow(open.tid ? open.tid : int32_t(m_pid));
        row.kind = format::RangeKind::NvtxPushPop;
        row.nameId = open.nameId;
        row.startNs = open.startNs;
        row.endNs = atNs;
        row.depth = open.depth;
        m_writer->addRange(row);
        ++m_stats.events.ranges;
        it = m_openMarkers.erase(it);
    }
}

} // namespace stallscope::recorder
