// The forms of a SessionComparison: the text `stallscope --compare BEFORE AFTER` prints and the
// JSON of `--compare --json` (docs/compare.md).
#pragma once

#include "model/compare/session_compare.h"

#include <QByteArray>
#include <string>

namespace stallscope::model {

std::string comparisonToText(const SessionComparison& comparison);
// The numbers of both forms (and of the app's compare view): a count per unit ("3", "0.25"), and
// a relative change ("-3.8 %", "+12 %"; "new" from 0, "" when both are 0).
std::string formatPerUnit(double value);
std::string formatChange(double before, double after);
// UTF-8 JSON ending in a newline: {"format", "version", "unit", "before", "after", "sites",
// "kernels", "predicted_saving_ns", "achieved_saving_ns"}.
QByteArray comparisonToJson(const SessionComparison& comparison);

} // namespace stallscope::model
