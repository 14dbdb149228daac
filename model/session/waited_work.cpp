#include "model/session/waited_work.h"

#include "format/session_schema.h"
#include "model/session/session.h"

namespace stallscope::model {

namespace {

// How many events ending after t the backward walk steps over: events of one stream do not
// overlap, so one step is the usual case; the bound guards malformed lanes.
constexpr size_t kMaxOverlap = 64;

// Index of the last event of `columns` with end <= t, or npos.
size_t lastEndingBy(const IntervalColumns& columns, int64_t t) {
    size_t k = columns.firstStartingAtOrAfter(t); // events [0, k) start before t
    for (size_t steps = 0; k > 0 && steps < kMaxOverlap; --k, ++steps)
        if (columns.end[k - 1] <= t)
            return k - 1;
    return IntervalColumns::npos;
}

int32_t deviceOfStream(const Session& session, int32_t stream) {
    return stream >= 0 && static_cast<size_t>(stream) < session.streams.size()
               ? session.streams[stream].deviceIndex
               : -1;
}

} // namespace

std::vector<int32_t> waitCandidateStreamLanes(const Session& session, int32_t hostLane,
                                              uint32_t syncIndex) {
    std::vector<int32_t> lanes;
    if (hostLane < 0 || static_cast<size_t>(hostLane) >= session.hostLanes.size())
        return lanes;
    const HostLane& host = session.hostLanes[hostLane];
    if (syncIndex >= host.syncs.size())
        return lanes;
    const int32_t stream = host.syncs.streamIndex[syncIndex];
    const bool knownStream = stream >= 0 && static_cast<size_t>(stream) < session.streams.size();
    const bool deviceWide =
        host.syncs.kind[syncIndex] == static_cast<uint8_t>(format::SyncKind::Device);
    if (knownStream && !deviceWide) {
        for (size_t l = 0; l < session.streamLanes.size(); ++l)
            if (session.streamLanes[l].streamIndex == stream)
                lanes.push_back(static_cast<int32_t>(l));
        return lanes;
    }
    if (knownStream) { // a device sync naming a stream: every stream of that device
        const int32_t device = deviceOfStream(session, stream);
        for (size_t l = 0; l < session.streamLanes.size(); ++l)
            if (deviceOfStream(session, session.streamLanes[l].streamIndex) == device)
                lanes.push_back(static_cast<int32_t>(l));
        return lanes;
    }
    // No stream: the devices of the thread's process (all streams when the process is unknown).
    const int32_t thread = host.threadIndex;
    const int32_t process = thread >= 0 && static_cast<size_t>(thread) < session.threads.size()
                                ? session.threads[thread].processIndex
                                : -1;
    for (size_t l = 0; l < session.streamLanes.size(); ++l) {
        const int32_t device = deviceOfStream(session, session.streamLanes[l].streamIndex);
        const int32_t owner = device >= 0 && static_cast<size_t>(device) < session.devices.size()
                                  ? session.devices[device].processIndex
                                  : -1;
        if (process < 0 || owner == process)
            lanes.push_back(static_cast<int32_t>(l));
    }
    return lanes;
}

EventRef lastWorkEndingBy(const Session& session, int32_t streamLane, int64_t t) {
    EventRef best;
    if (streamLane < 0 || static_cast<size_t>(streamLane) >= session.streamLanes.size())
        return best;
    const StreamLane& stream = session.streamLanes[streamLane];
    int64_t bestEnd = 0;
    auto consider = [&](const IntervalColumns& columns, EventKind kind) {
        const size_t k = lastEndingBy(columns, t);
        if (k == IntervalColumns::npos)
            return;
        if (!best.isValid() || columns.end[k] > bestEnd) {
            best.kind = kind;
            best.lane = streamLane;
            best.index = static_cast<uint32_t>(k);
            bestEnd = columns.end[k];
        }
    };
    consider(stream.kernels, EventKind::Kernel);
    consider(stream.memcpys, EventKind::Memcpy);
    consider(stream.memsets, EventKind::Memset);
    return best;
}

EventRef waitedWork(const Session& session, int32_t hostLane, uint32_t syncIndex) {
    EventRef best;
    int64_t bestEnd = 0;
    const std::vector<int32_t> lanes = waitCandidateStreamLanes(session, hostLane, syncIndex);
    if (lanes.empty())
        return best;
    const int64_t returned = session.hostLanes[hostLane].syncs.end[syncIndex];
    for (int32_t lane : lanes) {
        const EventRef work = lastWorkEndingBy(session, lane, returned);
        if (work.isValid() && (!best.isValid() || work.end(session) > bestEnd)) {
            best = work;
            bestEnd = work.end(session);
        }
    }
    return best;
}

} // namespace stallscope::model
