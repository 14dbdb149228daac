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
// What to write instead of the PyTorch operation that synchronized, by the ATen op the user's line
// called and the one that synchronized (AtenFrames): a tensor used as a Python bool, boolean-mask
// indexing, ops whose output size depends on the data. "" for other ops.
std::string operationAdvice(std::string_view calledOp, std::string_view syncingOp);
// Whether the op makes a Python bool of a tensor (`if t:`, `while t:`, `assert t`, `bool(t)`): a
// read that decides the host's control flow.
bool decidesControlFlow(std::string_view calledOp);
// The fix of a device-wide sync that waited for the work of several streams: wait for the work the
// host uses alone.
std::string narrowingRecommendation(SourceLanguage language);
// The pageable-copy fix for copies from pageable host memory to the device (uploads).
std::string pageableUploadRecommendation(SourceLanguage language);
// "Stream sync", "Blocking copy to pageable memory", ...
std::string syncKindLabel(format::SyncKind kind);

} // namespace stallscope::model
