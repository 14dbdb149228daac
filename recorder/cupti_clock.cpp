#include "recorder/cupti_clock.h"

#include <cupti.h>

#include <ctime>

namespace stallscope::recorder {

namespace {

int64_t readClock(clockid_t id) {
    timespec ts;
    clock_gettime(id, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Host clock minus CUPTI's, from the pair read closest together.
int64_t offsetTo(clockid_t id) {
    int64_t best = 0, bestSpan = INT64_MAX;
    for (int i = 0; i < 5; ++i) {
        int64_t before = readClock(id);
        uint64_t cupti = 0;
        if (cuptiGetTimestamp(&cupti) != CUPTI_SUCCESS)
            return 0;
        int64_t after = readClock(id);
        if (after - before < bestSpan) {
            bestSpan = after - before;
            best = before + (after - before) / 2 - int64_t(cupti);
        }
    }
    return best;
}

} // namespace

int64_t CuptiClock::measureOffset() {
    return offsetTo(CLOCK_MONOTONIC);
}

void CuptiClock::shift(ActivityBatch* batch, int64_t offset) {
    for (ActivityRecord& r : batch->records) {
        if (r.startNs)
            r.startNs += offset;
        if (r.endNs)
            r.endNs += offset;
    }
}

std::string CuptiClock::describe() {
    return "realtime=" + std::to_string(offsetTo(CLOCK_REALTIME)) +
           " monotonic=" + std::to_string(offsetTo(CLOCK_MONOTONIC)) +
           " monotonic_raw=" + std::to_string(offsetTo(CLOCK_MONOTONIC_RAW));
}

} // namespace stallscope::recorder
