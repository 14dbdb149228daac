// buildReportDocument: the report's content (report_document.h) from a session and its insight
// analysis: a title page (program, command, host, GPUs, dates, recorder), the summary over the
// analysis window, one section per finding site (saving, evidence, fix, source excerpt with the
// gutter's costs), a stalled step before and after the fix (report_step.h), and the top sync
// sites and kernels.
#pragma once

#include "views/report/report_document.h"

#include <memory>

namespace stallscope::model {
class Session;
class SessionDatabase;
struct InsightReport;
} // namespace stallscope::model

namespace stallscope::views {

// Lines shown above and below the guilty line in a source excerpt.
inline constexpr int kExcerptContext = 3;

// `database` (may be null) provides the sources embedded in the session; without it findings
// carry no excerpt. `pictures`: render the stalled step (needs a QGuiApplication).
ReportDocument buildReportDocument(const std::shared_ptr<const model::Session>& session,
                                   const std::shared_ptr<const model::SessionDatabase>& database,
                                   const model::InsightReport& report, bool pictures = true);

} // namespace stallscope::views
