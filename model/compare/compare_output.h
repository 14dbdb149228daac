// The forms of a SessionComparison: the text `stallscope --compare BEFORE AFTER` prints and the
// JSON of `--compare --json` (docs/compare.md).
#pragma once

#include "model/compare/session_compare.h"

#include <QByteArray>
#include <string>

namespace stallscope::model {

std::string comparisonToText(const SessionComparison& comparison);
// UTF-8 JSON ending in a newline: {"format", "version", "unit", "before", "after", "sites",
// "kernels", "predicted_saving_ns", "achieved_saving_ns"}.
QByteArray comparisonToJson(const SessionComparison& comparison);

} // namespace stallscope::model
