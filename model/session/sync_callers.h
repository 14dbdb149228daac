// Syncs moved to the thread that made them. A CUPTI synchronization record that no sync callback
// of the recorder matched (the driver synchronizing inside cudaHostAlloc on PyTorch's pin-memory
// thread, inside a graph launch) names no thread: the recorder writes it, stackless, on its
// process's main thread. Its correlation id still names the API call that made it when the
// recorder kept that call's record (api_calls): the sync belongs on that call's thread.
#pragma once

#include "model/session/session.h"

namespace stallscope::model {

// Moves every stackless sync whose correlation id names an API call on another thread of the
// same process to that thread's lane. Runs on the loaded, not yet finalized (unsorted) columns.
// Returns the number of syncs moved.
int64_t moveSyncsToCallingThreads(Session& session);

} // namespace stallscope::model
