#include "views/timeline/event_style.h"

#include "model/session/session.h"
#include "views/timeline/timeline_palette.h"

#include <QStringList>

#include <algorithm>

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

QString toolTipName(const QString& name, int lineChars) {
    constexpr int kMaxChars = 120;
    const QString cut = name.size() > kMaxChars ? name.left(kMaxChars - 1) + QChar(0x2026) : name;
    QStringList lines;
    for (qsizetype from = 0; from < cut.size();) {
        qsizetype length = std::min<qsizetype>(lineChars, cut.size() - from);
        if (from + length < cut.size()) {
            // The last break opportunity in the second half of the line, else a hard cut.
            for (qsizetype at = from + length; at > from + length / 2; --at) {
                const QChar before = cut[at - 1];
                if (before == QLatin1Char(' ') || before == QLatin1Char(',') ||
                    before == QLatin1Char('<') ||
                    (before == QLatin1Char(':') && at >= 2 && cut[at - 2] == QLatin1Char(':'))) {
                    length = at - from;
                    break;
                }
            }
        }
        lines << cut.mid(from, length).toHtmlEscaped();
        from += length;
    }
    return lines.join(QStringLiteral("<br>"));
}

QString eventLaneLabel(const model::Session& session, const model::EventRef& event) {
    return QString::fromStdString(event.laneLabel(session));
}

} // namespace stallscope::views
