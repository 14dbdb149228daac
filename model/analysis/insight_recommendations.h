// The recommendation texts of the rules, worded for the site's language (Python/PyTorch or
// C++/CUDA). docs/insights.md quotes them; keep both in step.
#pragma once

#include "format/session_schema.h"
#include "model/analysis/insight.h"

#include <string>

namespace stallscope::model {

// `kind` matters for sync-attribution only (what the site's syncs mostly are).
std::string recommendationFor(InsightRule rule, SourceLanguage language,
                              format::SyncKind kind = format::SyncKind::Stream);
// "Stream sync", "Blocking copy to pageable memory", ...
std::string syncKindLabel(format::SyncKind kind);

} // namespace stallscope::model
