// The run merge as it was before the in-memory one (issue 16, model/interop/run_merge.h): every
// input checked by SQL (schema, every reference), its rows copied through SQLite into one merged
// session file (ids moved per file, strings deduplicated, times put on the first host's clock),
// and that file loaded by SessionLoader. Kept as the reference that RunMerger::load must equal
// (test_run_merge_equivalence) and as the baseline of stallscope-bench-run-open.
#pragma once

#include "model/session/session_loader.h"

#include <string>
#include <vector>

namespace stallscope::testing {

// Opens `paths` (a run folder or several session files) the old way, the merged file written at
// `mergedPath` (replaced). The session's meta import_source names paths.front().
model::LoadResult loadThroughMergedFile(const std::vector<std::string>& paths,
                                        const std::string& mergedPath);

} // namespace stallscope::testing
