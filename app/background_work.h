// The work MainWindow runs in the background through model::JobTracker, as plain synchronous
// functions: re-symbolizing a session on open and exporting it as a Chrome trace.
#pragma once

#include "format/output_file.h"

#include <cstdint>
#include <string>

namespace stallscope::model {
class Session;
}

namespace stallscope::app {

// False when this build has no symbolizer (built without LLVM).
bool symbolizerAvailable();

struct SymbolizeOutcome {
    enum class Kind { NothingToDo, Symbolized, Failed };
    Kind kind = Kind::NothingToDo;
    int64_t resolvedFrames = 0; // Symbolized: frames that now have a function name
    std::string error;          // Failed
};

// When a session's native frames are unresolved but their binaries (or debug files) exist on
// this machine, resolves them with LLVM's symbolizer (symbolize/finalize_symbols.h). Writes into
// the session file, as `stallscope-record --symbolize` does.
SymbolizeOutcome symbolizeSessionFile(const std::string& sessionPath);

// Writes `session` as Chrome/Perfetto trace JSON (model/interop/chrome_trace_export.h) through
// its own connection to the session file, where `policy` allows. Empty on success, else the error.
std::string exportChromeTraceFile(const model::Session& session, const std::string& outPath,
                                  const format::OutputPolicy& policy);

} // namespace stallscope::app
