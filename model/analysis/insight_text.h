// The human-readable form of an insight report (`stallscope --insights FILE`): the summary, top
// sync sites and kernels, then every insight with its evidence, fix and estimated savings.
#pragma once

#include "model/analysis/insight.h"

#include <string>

namespace stallscope::model {

std::string insightReportToText(const InsightReport& report);

} // namespace stallscope::model
