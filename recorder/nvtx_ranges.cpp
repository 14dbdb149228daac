// NvtxRanges (nvtx_ranges.h).
#include "recorder/nvtx_ranges.h"

#include <cupti.h>

#include <utility>

namespace stallscope::recorder {

NvtxRanges::NvtxRanges(format::SessionWriter* writer, std::function<int64_t(int32_t)> threadRow)
    : m_writer(writer), m_threadRow(std::move(threadRow)) {}

void NvtxRanges::write(const Open& open, int64_t endNs, format::RangeKind kind) {
    format::RangeRow row;
    row.threadId = m_threadRow(open.tid);
    row.kind = kind;
    row.nameId = open.nameId;
    row.startNs = open.startNs;
    row.endNs = endNs;
    row.depth = open.depth;
    m_writer->addRange(row);
}

int NvtxRanges::onMarker(const ActivityRecord& record, std::string_view name) {
    if (record.markerFlags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
        int& depth = m_depth[record.tid];
        m_open[record.markerId] = {record.startNs, m_writer->internString(name), record.tid, depth};
        ++depth;
        return 0;
    }
    if (record.markerFlags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
        const auto it = m_open.find(record.markerId);
        if (it == m_open.end())
            return 0;
        const Open open = it->second;
        m_open.erase(it);
        if (int& depth = m_depth[open.tid]; depth > 0)
            --depth;
        // Push/pop ranges end on the thread that opened them; start/end ranges may not.
        write(open, record.startNs,
              record.tid == open.tid ? format::RangeKind::NvtxPushPop
                                     : format::RangeKind::NvtxStartEnd);
        return 1;
    }
    if (record.markerFlags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
        write({record.startNs, m_writer->internString(name), record.tid, 0}, record.startNs,
              format::RangeKind::NvtxPushPop);
        return 1;
    }
    return 0;
}

int NvtxRanges::closeOpenBy(int64_t atNs) {
    int written = 0;
    for (auto it = m_open.begin(); it != m_open.end();) {
        const Open& open = it->second;
        if (open.startNs > atNs) {
            ++it;
            continue;
        }
        if (int& depth = m_depth[open.tid]; depth > 0)
            --depth;
        write(open, atNs, format::RangeKind::NvtxPushPop);
        ++written;
        it = m_open.erase(it);
    }
    return written;
}

} // namespace stallscope::recorder
