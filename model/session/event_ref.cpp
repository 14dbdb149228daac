#include "model/session/event_ref.h"

#include "format/session_schema.h"
#include "model/session/collective_names.h"
#include "model/session/event_names.h"
#include "model/session/session.h"
#include "model/session/session_summary.h"

#include <algorithm>
#include <vector>

namespace stallscope::model {

namespace {

using display::copyKindName;
using display::syncKindName;

template <typename T> bool fits(const std::vector<T>& items, int32_t index) {
    return index >= 0 && static_cast<size_t>(index) < items.size();
}

} // namespace

const IntervalColumns* EventRef::columns(const Session& session) const {
    const IntervalColumns* result = nullptr;
    if (isHost()) {
        if (!fits(session.hostLanes, lane))
            return nullptr;
        const HostLane& host = session.hostLanes[lane];
        if (kind == EventKind::ApiCall)
            result = &host.apiCalls;
        else if (kind == EventKind::Sync)
            result = &host.syncs;
        else if (fits(host.rangesByDepth, depth))
            result = &host.rangesByDepth[depth];
    } else {
        if (!fits(session.streamLanes, lane))
            return nullptr;
        const StreamLane& stream = session.streamLanes[lane];
        if (kind == EventKind::Kernel)
            result = &stream.kernels;
        else if (kind == EventKind::Memcpy)
            result = &stream.memcpys;
        else
            result = &stream.memsets;
    }
    return result && index < result->size() ? result : nullptr;
}

const TransferColumns* EventRef::transfers(const Session& session) const {
    if (kind != EventKind::Memcpy && kind != EventKind::Memset)
        return nullptr;
    return static_cast<const TransferColumns*>(columns(session));
}

int64_t EventRef::start(const Session& session) const {
    const IntervalColumns* c = columns(session);
    return c ? c->start[index] : 0;
}

int64_t EventRef::end(const Session& session) const {
    const IntervalColumns* c = columns(session);
    return c ? c->end[index] : 0;
}

std::string EventRef::name(const Session& session) const {
    if (!isIn(session))
        return {};
    switch (kind) {
    case EventKind::ApiCall:
        return session.string(session.hostLanes[lane].apiCalls.nameId[index]);
    case EventKind::Sync:
        return syncKindName(session.hostLanes[lane].syncs.kind[index]).toStdString();
    case EventKind::Range:
        return session.string(session.hostLanes[lane].rangesByDepth[depth].nameId[index]);
    case EventKind::Kernel: {
        const KernelColumns& kernels = session.streamLanes[lane].kernels;
        if (const format::CollectiveCallRow* call = session.collectiveCall(kernels.rowId[index]))
            return collectiveLabel(session.string(kernels.nameId[index]), *call);
        return readableKernelName(session.string(kernels.nameId[index]));
    }
    case EventKind::Memcpy: {
        const QString direction = copyKindName(session.streamLanes[lane].memcpys.copyKind[index]);
        return direction.isEmpty() ? "Memcpy" : "Memcpy " + direction.toStdString();
    }
    case EventKind::Memset:
        return "Memset";
    }
    return {};
}

std::string EventRef::laneLabel(const Session& session) const {
    if (!isIn(session))
        return {};
    if (isHost()) {
        const int32_t thread = session.hostLanes[lane].threadIndex;
        return fits(session.threads, thread) ? session.threadLabel(session.threads[thread])
                                             : "Thread ?";
    }
    const int32_t stream = session.streamLanes[lane].streamIndex;
    return fits(session.streams, stream) ? session.streamLabel(session.streams[stream])
                                         : "stream ?";
}

int32_t EventRef::processIndex(const Session& session) const {
    if (!isIn(session))
        return -1;
    if (isHost()) {
        const int32_t thread = session.hostLanes[lane].threadIndex;
        return fits(session.threads, thread) ? session.threads[thread].processIndex : -1;
    }
    const int32_t stream = session.streamLanes[lane].streamIndex;
    if (!fits(session.streams, stream))
        return -1;
    const int32_t device = session.streams[stream].deviceIndex;
    return fits(session.devices, device) ? session.devices[device].processIndex : -1;
}

uint32_t EventRef::correlationId(const Session& session) const {
    if (!isIn(session))
        return 0;
    switch (kind) {
    case EventKind::ApiCall:
        return session.hostLanes[lane].apiCalls.correlationId[index];
    case EventKind::Sync:
        return session.hostLanes[lane].syncs.correlationId[index];
    case EventKind::Range:
        return 0;
    case EventKind::Kernel:
        return session.streamLanes[lane].kernels.correlationId[index];
    case EventKind::Memcpy:
        return session.streamLanes[lane].memcpys.correlationId[index];
    case EventKind::Memset:
        return session.streamLanes[lane].memsets.correlationId[index];
    }
    return 0;
}

int64_t eventCount(const EventSpans& spans) {
    int64_t total = 0;
    for (const EventSpan& span : spans)
        total += span.count;
    return total;
}

EventRef medianEvent(const Session& session, const EventSpans& spans, EventKind kind) {
    std::vector<std::pair<int64_t, EventRef>> events;
    for (const EventSpan& span : spans)
        if (span.first.kind == kind)
            for (uint32_t i = 0; i < span.count; ++i) {
                const EventRef event = span.at(i);
                events.emplace_back(event.end(session) - event.start(session), event);
            }
    if (events.empty())
        return {};
    const auto middle = events.begin() + std::ptrdiff_t(events.size() / 2);
    std::nth_element(events.begin(), middle, events.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    return middle->second;
}

namespace {

// The event of `kind` in the spans that `better(candidate, best)` prefers to every other.
template <typename Better>
EventRef bestEvent(const EventSpans& spans, EventKind kind, Better better) {
    EventRef best;
    for (const EventSpan& span : spans)
        if (span.first.kind == kind)
            for (uint32_t i = 0; i < span.count; ++i)
                if (const EventRef event = span.at(i); !best.isValid() || better(event, best))
                    best = event;
    return best;
}

} // namespace

EventRef firstEvent(const Session& session, const EventSpans& spans, EventKind kind) {
    return bestEvent(spans, kind, [&session](const EventRef& a, const EventRef& b) {
        return a.start(session) < b.start(session);
    });
}

EventRef slowestEvent(const Session& session, const EventSpans& spans, EventKind kind) {
    return bestEvent(spans, kind, [&session](const EventRef& a, const EventRef& b) {
        return a.end(session) - a.start(session) > b.end(session) - b.start(session);
    });
}

bool isHostBlocking(uint8_t syncKind) {
    return syncKind != static_cast<uint8_t>(format::SyncKind::StreamWaitEvent);
}

} // namespace stallscope::model
