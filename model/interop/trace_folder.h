// Which files of a folder of torch.profiler traces to import (issue 15): a folder written by a
// training run also holds other JSON (an execution trace `*_et.json.gz`, a `config.json`) and,
// after a copy, the same rank twice. Profiler traces are recognized by their `traceEvents` key
// near the start; files with the same content are imported once.
#pragma once

#include <string>
#include <vector>

namespace stallscope::model {

struct TraceFolderSelection {
    std::vector<std::string> traces;  // to import, in the order given
    std::vector<std::string> skipped; // "name: why", one per file left out
};

// How far into a file (decompressed) the `traceEvents` key must appear: Kineto writes it after
// the schema version and the device properties (a few hundred bytes per GPU).
inline constexpr size_t kTraceKeyWindowBytes = 256 * 1024;

TraceFolderSelection selectTraceFiles(const std::vector<std::string>& files);

} // namespace stallscope::model
