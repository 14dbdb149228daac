// The JSON form of an insight report (`stallscope --insights --json FILE`), documented in
// docs/insights.md: an object with "summary" and "insights" (plus "format", "version", "sites").
#pragma once

#include "model/analysis/insight.h"

#include <QByteArray>
#include <QJsonObject>

namespace stallscope::model {

QJsonObject insightReportToJsonObject(const InsightReport& report);
// {"file", "line", "line_is_definition", "function", "language"[, "library"]}: a site as every
// JSON output of Stallscope writes it.
QJsonObject sourceSiteToJson(const SourceSite& site);
// UTF-8 JSON text ending in a newline; indented unless compact.
QByteArray insightReportToJson(const InsightReport& report, bool compact = false);

} // namespace stallscope::model
