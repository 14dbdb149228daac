#include "views/timeline/event_style.h"

#include "model/session/session.h"
#include "views/timeline/timeline_palette.h"

namespace stallscope::views {

using model::EventKind;

QRgb eventColor(const model::Session& session, const model::EventRef& event) {
    if (!event.isIn(session))
        return TimelinePalette::apiCall();
    switch (event.kind) {
    case EventKind::ApiCall:
        return TimelinePalette::apiCall();
    case EventKind::Sync:
        return TimelinePalette::stall();
    case EventKind::Range:
        return TimelinePalette::range(event.depth);
    case EventKind::Kernel:
        return TimelinePalette::kernel(
            session.string(session.streamLanes[event.lane].kernels.nameId[event.index]));
    case EventKind::Memcpy:
        return TimelinePalette::memcpy(
            session.streamLanes[event.lane].memcpys.copyKind[event.index]);
    case EventKind::Memset:
        return TimelinePalette::memset();
    }
    return TimelinePalette::apiCall();
}

QString eventName(const model::Session& session, const model::EventRef& event) {
    return QString::fromStdString(event.name(session));
}

QString eventLaneLabel(const model::Session& session, const model::EventRef& event) {
    return QString::fromStdString(event.laneLabel(session));
}

} // namespace stallscope::views
