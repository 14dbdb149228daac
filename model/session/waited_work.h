// waitedWork: what a host-blocking sync waited for — the last kernel, copy or memset that ended
// at or before the sync returned, on the stream the sync names, or, for a device sync (and a sync
// whose stream is unknown, e.g. an event sync), on any stream of the device(s) of the syncing
// thread's process. The timeline's "waited for" arrow (views/timeline/sync_link.h) and the
// Chrome export's sync flows (model/interop/chrome_trace_export.h) give the same answer; a test
// (tests/interop/test_chrome_export_flows.cpp) holds them to it.
#pragma once

#include "model/session/event_ref.h"

#include <cstdint>
#include <vector>

namespace stallscope::model {

class Session;

// Stream lanes (Session::streamLanes indexes) sync `syncIndex` of host lane `hostLane` may have
// waited on.
std::vector<int32_t> waitCandidateStreamLanes(const Session& session, int32_t hostLane,
                                              uint32_t syncIndex);
// The last work on one stream lane ending at or before t, or invalid.
EventRef lastWorkEndingBy(const Session& session, int32_t streamLane, int64_t t);
// The work the sync waited for, or invalid when none ended before it returned.
EventRef waitedWork(const Session& session, int32_t hostLane, uint32_t syncIndex);

} // namespace stallscope::model
