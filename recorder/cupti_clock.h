// CuptiClock: puts CUPTI's activity timestamps on the host's CLOCK_MONOTONIC without CUPTI's
// per-record timestamp callback.
//
// Two ways to get one host clock (DESIGN §2):
//   callback  cuptiActivityRegisterTimestampCallback(clock_gettime(CLOCK_MONOTONIC)): CUPTI calls
//   it
//             for every timestamp it takes (API enter/exit of every recorded call, markers, ...).
//   offset    (default) keep CUPTI's own timestamps and add (CLOCK_MONOTONIC -
//   cuptiGetTimestamp()),
//             measured at start and re-measured for every completed buffer, so a slewed or stepped
//             CUPTI clock is followed within one buffer. Which clock CUPTI's default source tracks
//             is written to meta (`cupti_clock_vs_host`): the offset works for any of them.
// bench/RESULTS.md ("Recorder overhead") has the measured difference.
#pragma once

#include "recorder/activity_record.h"

#include <cstdint>
#include <string>

namespace stallscope::recorder {

class CuptiClock {
public:
    // CLOCK_MONOTONIC minus cuptiGetTimestamp(), from the tightest of a few paired reads (ns).
    static int64_t measureOffset();
    // Adds `offset` to every non-zero timestamp of the batch.
    static void shift(ActivityBatch* batch, int64_t offset);
    // "realtime=<d> monotonic=<d> monotonic_raw=<d>": clock minus cuptiGetTimestamp(), ns.
    static std::string describe();
};

} // namespace stallscope::recorder
