// Whether a session's correlation ids still tell its API calls apart. CUPTI gives every API call
// an id of its own, and the model ties launches to their kernels, copies and syncs by it. On CUDA
// 13.0 (driver 580) switching CUPTI's API records off and on mid-run while a thread was inside a
// call left every later record with one and the same id (bench/RESULTS.md, "Issue 38, item 4":
// the overhead probe's stretches), so every later launch looked like the launch of all later
// work. Such a session still opens, but its warning says from when its links cannot be trusted.
#pragma once

#include <cstdint>

namespace stallscope::model {

struct Session;

struct SharedCorrelationIds {
    // API calls with the same id as the call before them on their thread (never two of one
    // thread's calls in a sound recording), and the start of the first of them.
    int64_t calls = 0;
    int64_t firstNs = 0;
    int64_t laneCalls = 0; // the calls of the lanes where they were found

    // Many, and most of their lanes: a collapse, not a stray duplicate.
    bool collapsed() const { return calls >= kMinCalls && calls * 10 >= laneCalls; }
    static constexpr int64_t kMinCalls = 100;
};

SharedCorrelationIds apiCallsSharingIds(const Session& session);

} // namespace stallscope::model
