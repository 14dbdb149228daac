// NvtxRanges: NVTX's MARKER records into the session's range rows. A start waits for its end,
// which may come on another thread (start/end ranges) or on the same one (push/pop); each thread's
// open ranges give the next one its depth; instantaneous markers are ranges of no length. When
// capture control stops recording, the ranges still open end there (closeOpenBy).
#pragma once

#include "format/session_writer.h"
#include "recorder/activity_record.h"

#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_map>

namespace stallscope::recorder {

class NvtxRanges {
public:
    // `threadRow`: the threads row of a CUPTI thread id (0 for a marker CUPTI gives no thread).
    NvtxRanges(format::SessionWriter* writer, std::function<int64_t(int32_t)> threadRow);

    // One MARKER record and its name; the number of range rows written (0 or 1). An end whose
    // start was never seen writes nothing.
    int onMarker(const ActivityRecord& record, std::string_view name);
    // Writes every range open since atNs or before as ending at atNs, and forgets it; those begun
    // after atNs (recording started again since, in the same drain) stay open. The rows written.
    int closeOpenBy(int64_t atNs);
    size_t openRanges() const { return m_open.size(); }

private:
    struct Open {
        int64_t startNs;
        int64_t nameId;
        int32_t tid;
        int depth;
    };
    void write(const Open& open, int64_t endNs, format::RangeKind kind);

    format::SessionWriter* m_writer;
    std::function<int64_t(int32_t)> m_threadRow;
    std::unordered_map<uint32_t, Open> m_open; // by NVTX marker id
    std::unordered_map<int32_t, int> m_depth;  // open ranges per thread
};

} // namespace stallscope::recorder
