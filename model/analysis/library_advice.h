// Fix text for syncs made inside well-known library code: what the user can change at their own
// line to make the library stop syncing (a logging argument, a Trainer option), rather than the
// library line they cannot edit. The insight rules append it to the finding's fix.
#pragma once

#include "model/analysis/insight.h"

#include <span>
#include <string>
#include <string_view>

namespace stallscope::model {

// One row of the table: a library frame matches when its path from the package folder
// (format::libraryFileLabel) matches `file` and its function matches `function` (fnmatch globs,
// `*` also crosses `/`). The first matching row wins.
struct LibraryAdviceRule {
    std::string_view file;     // "lightning*fabric/utilities/apply_func.py"
    std::string_view function; // "move_data_to_device", "*"
    std::string_view advice;
};

// The advice for the site's library frame; empty when the sync is in user code or the library
// line is not a known one.
std::string libraryAdvice(const SourceSite& site);
// The table, in match order (for tests and docs).
std::span<const LibraryAdviceRule> libraryAdviceRules();

} // namespace stallscope::model
