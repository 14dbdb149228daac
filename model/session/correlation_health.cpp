#include "model/session/correlation_health.h"

#include "model/session/session.h"

#include <algorithm>
#include <limits>

namespace stallscope::model {

SharedCorrelationIds apiCallsSharingIds(const Session& session) {
    SharedCorrelationIds shared;
    shared.firstNs = std::numeric_limits<int64_t>::max();
    for (const HostLane& lane : session.hostLanes) {
        const ApiCallColumns& calls = lane.apiCalls;
        int64_t sharing = 0;
        // One pass, no index: a collapse repeats one id call after call on every thread.
        for (size_t i = 1; i < calls.correlationId.size(); ++i) {
            if (calls.correlationId[i] != calls.correlationId[i - 1])
                continue;
            ++sharing;
            shared.firstNs = std::min(shared.firstNs, calls.start[i - 1]);
        }
        if (sharing == 0)
            continue;
        shared.calls += sharing;
        shared.laneCalls += static_cast<int64_t>(calls.size());
    }
    if (shared.calls == 0)
        shared.firstNs = 0;
    return shared;
}

} // namespace stallscope::model
