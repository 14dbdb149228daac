// The work MainWindow runs in the background through model::JobTracker, as plain synchronous
// functions: symbolizing a session on open (into a cached copy) and exporting it as a Chrome trace.
#pragma once

#include "format/output_file.h"

#include <QString>

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
    std::string copyPath;       // Symbolized: the symbolized copy to load instead of the session
    std::string error;          // Failed
};

// When a session's native frames are unresolved but their binaries (or debug files) exist on
// this machine, resolves them with LLVM's symbolizer into a copy in `cacheDirectory` (made when
// missing; reused while the session's path, size and modification time are unchanged). The
// session file itself is only read, and no source file is embedded into the copy: a session from
// elsewhere must not choose which local files end up in a file the user may pass on.
SymbolizeOutcome symbolizeSessionFile(const std::string& sessionPath,
                                      const std::string& cacheDirectory);

// Copies `from` to `to` through a temporary file in `to`'s folder renamed on success, so `to` is
// either the old file or the whole copy. Empty on success, else the error.
QString copyFileAtomically(const QString& from, const QString& to);

// Writes `session` as Chrome/Perfetto trace JSON (model/interop/chrome_trace_export.h) through
// its own connection to the session file, where `policy` allows. Empty on success, else the error.
std::string exportChromeTraceFile(const model::Session& session, const std::string& outPath,
                                  const format::OutputPolicy& policy);

} // namespace stallscope::app
