// A duration as the panels show it ("1.25 ms": model/session/number_format.h), as a QString.
#pragma once

#include "model/session/number_format.h"

#include <QString>

#include <cmath>
#include <cstdint>

namespace stallscope::views {

inline QString durationText(int64_t ns) {
    return QString::fromStdString(model::formatDuration(ns));
}
// A mean or a per-unit time, to the nearest nanosecond.
inline QString durationText(double ns) {
    return durationText(static_cast<int64_t>(std::llround(ns)));
}

} // namespace stallscope::views
