// The symbolization step of stallscope-record: after a run (every session the run wrote) and for
// `stallscope-record --symbolize FILE`. Built with LLVM's symbolizer when CMake found LLVM 14;
// otherwise it reports that sessions stay unsymbolized (they can be symbolized later).
#pragma once

#include <string>
#include <vector>

namespace stallscope::recorder {

struct RecordSymbolizeOptions {
    std::vector<std::string> debugDirectories; // added to the defaults
    std::vector<std::string> remaps;           // "OLD=NEW"
    std::string sourceRoot;                    // where relative source paths are resolved
    // Embed the sources of user frames. On for a run's own sessions (this machine ran the
    // program); off by default for `--symbolize FILE`, whose frames may come from anyone's file.
    bool embedSources = true;
    bool quiet = false;
};

// Returns false with a message on stderr when the file could not be symbolized.
bool symbolizeSession(const std::string& path, const RecordSymbolizeOptions& options);

} // namespace stallscope::recorder
