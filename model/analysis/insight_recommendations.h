// The recommendation texts of the rules, worded for the site's language (Python/PyTorch or
// C++/CUDA). docs/insights.md quotes them; keep both in step.
#pragma once

#include "format/session_schema.h"
#include "model/analysis/insight.h"

#include <string>
#include <string_view>

namespace stallscope::model {

// `kind` matters for sync-attribution only (what the site's syncs mostly are).
std::string recommendationFor(InsightRule rule, SourceLanguage language,
                              format::SyncKind kind = format::SyncKind::Stream);
// The fix of a device-wide sync that waited for the work of several streams: wait for the work the
// host uses alone.
std::string narrowingRecommendation(SourceLanguage language);
// The pageable-copy fix for copies from pageable host memory to the device (uploads).
std::string pageableUploadRecommendation(SourceLanguage language);
// "Stream sync", "Blocking copy to pageable memory", ...
std::string syncKindLabel(format::SyncKind kind);

} // namespace stallscope::model
