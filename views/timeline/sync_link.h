// SyncLink: what a selected sync waited for. The waited GPU work is the last kernel, copy or
// memset that ended at or before the sync returned, on the stream the sync names — or, for a
// device sync (and a sync whose stream is unknown, e.g. an event sync), on any stream of the
// device(s) of the syncing thread's process. The launching call is the API call with the work's
// correlation id in the same process.
#pragma once

#include "views/timeline/event_style.h"

#include <cstdint>
#include <vector>

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

class CorrelationIndex;

struct SyncLinkTargets {
    model::EventRef sync;
    model::EventRef work;   // invalid when no GPU work ended before the sync returned
    model::EventRef launch; // invalid when the work's launching call was not recorded
};

class SyncLink {
public:
    // work and (when `index` has it) launch for a sync; an empty result for other events.
    static SyncLinkTargets targets(const model::Session& session, const model::EventRef& sync,
                                   const CorrelationIndex& index);
};

} // namespace stallscope::views
