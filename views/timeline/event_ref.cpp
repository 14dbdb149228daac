#include "views/timeline/event_ref.h"

#include "format/session_schema.h"
#include "model/session/session.h"
#include "model/session/session_summary.h"
#include "views/timeline/timeline_palette.h"

namespace stallscope::views {

namespace {

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

} // namespace

const model::IntervalColumns* EventRef::columns(const model::Session& session) const {
    if (lane < 0)
        return nullptr;
    const model::IntervalColumns* result = nullptr;
    if (isHost()) {
        if (static_cast<size_t>(lane) >= session.hostLanes.size())
            return nullptr;
        const model::HostLane& host = session.hostLanes[lane];
        if (kind == BlockKind::ApiCall)
            result = &host.apiCalls;
        else if (kind == BlockKind::Sync)
            result = &host.syncs;
        else if (depth >= 0 && static_cast<size_t>(depth) < host.rangesByDepth.size())
            result = &host.rangesByDepth[depth];
    } else {
        if (static_cast<size_t>(lane) >= session.streamLanes.size())
            return nullptr;
        const model::StreamLane& stream = session.streamLanes[lane];
        if (kind == BlockKind::Kernel)
            result = &stream.kernels;
        else if (kind == BlockKind::Memcpy)
            result = &stream.memcpys;
        else
            result = &stream.memsets;
    }
    return result && index < result->size() ? result : nullptr;
}

bool EventRef::isIn(const model::Session& session) const {
    return columns(session) != nullptr;
}

int64_t EventRef::start(const model::Session& session) const {
    const model::IntervalColumns* c = columns(session);
    return c ? c->start[index] : 0;
}

int64_t EventRef::end(const model::Session& session) const {
    const model::IntervalColumns* c = columns(session);
    return c ? c->end[index] : 0;
}

QString EventRef::name(const model::Session& session) const {
    if (!isIn(session))
        return {};
    switch (kind) {
    case BlockKind::ApiCall:
        return qs(session.string(session.hostLanes[lane].apiCalls.nameId[index]));
    case BlockKind::Sync:
        return syncKindName(session.hostLanes[lane].syncs.kind[index]);
    case BlockKind::Range:
        return qs(session.string(session.hostLanes[lane].rangesByDepth[depth].nameId[index]));
    case BlockKind::Kernel:
        return kernelDisplayName(session.string(session.streamLanes[lane].kernels.nameId[index]));
    case BlockKind::Memcpy: {
        const QString direction = copyKindName(session.streamLanes[lane].memcpys.copyKind[index]);
        return direction.isEmpty() ? QStringLiteral("Memcpy")
                                   : QStringLiteral("Memcpy ") + direction;
    }
    case BlockKind::Memset:
        return QStringLiteral("Memset");
    }
    return {};
}

QString EventRef::laneLabel(const model::Session& session) const {
    if (!isIn(session))
        return {};
    if (isHost()) {
        const int32_t thread = session.hostLanes[lane].threadIndex;
        if (thread < 0 || static_cast<size_t>(thread) >= session.threads.size())
            return QStringLiteral("Thread ?");
        return qs(session.threadLabel(session.threads[thread]));
    }
    const int32_t stream = session.streamLanes[lane].streamIndex;
    if (stream < 0 || static_cast<size_t>(stream) >= session.streams.size())
        return QStringLiteral("stream ?");
    return qs(session.streamLabel(session.streams[stream]));
}

int32_t EventRef::processIndex(const model::Session& session) const {
    if (!isIn(session))
        return -1;
    if (isHost()) {
        const int32_t thread = session.hostLanes[lane].threadIndex;
        return thread >= 0 && static_cast<size_t>(thread) < session.threads.size()
                   ? session.threads[thread].processIndex
                   : -1;
    }
    const int32_t stream = session.streamLanes[lane].streamIndex;
    if (stream < 0 || static_cast<size_t>(stream) >= session.streams.size())
        return -1;
    const int32_t device = session.streams[stream].deviceIndex;
    return device >= 0 && static_cast<size_t>(device) < session.devices.size()
               ? session.devices[device].processIndex
               : -1;
}

uint32_t EventRef::correlationId(const model::Session& session) const {
    if (!isIn(session))
        return 0;
    switch (kind) {
    case BlockKind::ApiCall:
        return session.hostLanes[lane].apiCalls.correlationId[index];
    case BlockKind::Sync:
        return session.hostLanes[lane].syncs.correlationId[index];
    case BlockKind::Range:
        return 0;
    case BlockKind::Kernel:
        return session.streamLanes[lane].kernels.correlationId[index];
    case BlockKind::Memcpy:
        return session.streamLanes[lane].memcpys.correlationId[index];
    case BlockKind::Memset:
        return session.streamLanes[lane].memsets.correlationId[index];
    }
    return 0;
}

EventRef EventRef::fromSpan(const model::EventSpan& span, uint32_t offset) {
    EventRef ref;
    ref.lane = span.lane;
    ref.index = span.first + offset;
    switch (span.column) {
    case model::EventColumn::ApiCall:
        ref.kind = BlockKind::ApiCall;
        break;
    case model::EventColumn::Sync:
        ref.kind = BlockKind::Sync;
        break;
    case model::EventColumn::Kernel:
        ref.kind = BlockKind::Kernel;
        break;
    case model::EventColumn::Memcpy:
        ref.kind = BlockKind::Memcpy;
        break;
    case model::EventColumn::Memset:
        ref.kind = BlockKind::Memset;
        break;
    }
    return ref;
}

QString kernelDisplayName(const std::string& name) {
    return QString::fromStdString(model::readableKernelName(name));
}

QString syncKindName(int kind) {
    return qs(format::syncKindName(kind));
}

QString copyKindName(int kind) {
    return qs(format::copyKindName(kind));
}

QString memoryKindName(int kind) {
    return qs(format::memoryKindName(kind));
}

QRgb eventColor(const model::Session& session, const EventRef& event) {
    if (!event.isIn(session))
        return TimelinePalette::apiCall();
    switch (event.kind) {
    case BlockKind::ApiCall:
        return TimelinePalette::apiCall();
    case BlockKind::Sync:
        return TimelinePalette::stall();
    case BlockKind::Range:
        return TimelinePalette::range(event.depth);
    case BlockKind::Kernel:
        return TimelinePalette::kernel(
            session.string(session.streamLanes[event.lane].kernels.nameId[event.index]));
    case BlockKind::Memcpy:
        return TimelinePalette::memcpy(
            session.streamLanes[event.lane].memcpys.copyKind[event.index]);
    case BlockKind::Memset:
        return TimelinePalette::memset();
    }
    return TimelinePalette::apiCall();
}

bool isHostBlocking(int syncKind) {
    return syncKind != static_cast<int>(format::SyncKind::StreamWaitEvent);
}

} // namespace stallscope::views
