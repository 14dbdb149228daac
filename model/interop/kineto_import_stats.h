// KinetoImportStats: what a Kineto import read, wrote and left out, for the importer's summary and
// the session's import meta. The converter and its thread resolver count into one.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace stallscope::model {

struct KinetoImportStats {
    int64_t files = 0;
    int64_t jsonBytes = 0; // decompressed JSON parsed
    int64_t fileBytes = 0; // bytes on disk (compressed for .gz)
    int64_t events = 0;    // trace events seen
    int64_t rows = 0;      // event rows written (API calls, GPU work, syncs, ranges)
    int64_t syncs = 0;
    int64_t cudaEvents = 0;   // GPU work, CUDA API calls and syncs written: 0 means nothing to show
    int64_t pythonFrames = 0; // distinct Python frames
    std::map<std::string, int64_t> ignoredCategories; // known, not mapped (cpu_op, ...)
    std::map<std::string, int64_t> unknownCategories;
    int64_t windowClippedNs = 0;   // host time outside the profiler's window (KinetoWindow)
    int64_t windowDroppedRows = 0; // buffered rows (syncs, ranges) entirely outside it
    int64_t controlCharacters = 0; // raw control characters in strings, read as spaces
    int64_t unpairedBeginEnd = 0;  // 'B' or 'E' events without their pair (kineto_begin_end.h)
    int64_t untimedEvents = 0;     // complete ('X') events without a numeric "ts": not read
};

} // namespace stallscope::model
