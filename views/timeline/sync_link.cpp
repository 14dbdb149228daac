#include "views/timeline/sync_link.h"

#include "model/session/session.h"
#include "model/session/waited_work.h"
#include "views/timeline/correlation_index.h"

namespace stallscope::views {

// One answer for the timeline's arrow and the Chrome export's sync flows
// (model/session/waited_work.h).
SyncLinkTargets SyncLink::targets(const model::Session& session, const model::EventRef& sync,
                                  const CorrelationIndex& index) {
    SyncLinkTargets result;
    if (sync.kind != model::EventKind::Sync || !sync.isIn(session))
        return result;
    result.sync = sync;
    result.work = model::waitedWork(session, sync.lane, sync.index);
    if (result.work.isValid() && index.isBuilt())
        result.launch =
            index.apiCall(result.work.processIndex(session), result.work.correlationId(session));
    return result;
}

} // namespace stallscope::views
