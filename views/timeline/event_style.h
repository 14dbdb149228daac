// How the views show an event (model::EventRef): its colour and its names as Qt strings.
#pragma once

#include "model/session/event_names.h"
#include "model/session/event_ref.h"

#include <QMetaType>
#include <QRgb>
#include <QString>

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

using model::display::copyKindName;
using model::display::kernelDisplayName;
using model::display::memoryKindName;
using model::display::syncKindName;

// The colour the timeline paints the event in (TimelinePalette).
QRgb eventColor(const model::Session& session, const model::EventRef& event);
// EventRef::name and EventRef::laneLabel as QStrings.
QString eventName(const model::Session& session, const model::EventRef& event);
QString eventLaneLabel(const model::Session& session, const model::EventRef& event);
// A name for a tooltip's first line, HTML-escaped: cut to 120 characters and broken into lines of
// at most `lineChars` (after a space, "::", "," or "<" where one lies near the end), so that a C++
// template name keeps the tooltip narrow and next to the cursor (issue 42: a wide tooltip is
// pushed far to the left to stay on the screen).
QString toolTipName(const QString& name, int lineChars = 60);

} // namespace stallscope::views

Q_DECLARE_METATYPE(stallscope::model::EventRef)
