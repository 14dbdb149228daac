// Settings and results of the finalize step (symbolization, user frames, embedded sources).
#pragma once

#include "format/path_remap.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::symbolize {

using format::parsePathRemapRule;
using format::PathRemapRule;
using format::remapPath;

struct SymbolizeOptions {
    // Roots searched for separate debug files by build id (<root>/.build-id/xx/yyyy.debug) and by
    // .gnu_debuglink. /usr/lib/debug is where Debian/Ubuntu -dbgsym packages install them.
    std::vector<std::string> debugDirectories = {"/usr/lib/debug"};
    // Applied to module and source paths that do not exist on this machine (sessions symbolized
    // or embedded after being copied elsewhere).
    std::vector<PathRemapRule> pathRemaps;
    // Redo frames that are already symbolized (e.g. after installing debug packages).
    bool resymbolize = false;
    bool embedSources = true;
    // Per-file cap on embedded text; larger files are cut at the last line break before the cap and
    // marked truncated (the hash is still of the whole file).
    int64_t sourceSizeCap = int64_t(1) << 20;
    // Directory that relative source paths (Python's co_filename of `python train.py`) are resolved
    // against; empty means the current directory.
    std::string sourceRoot;
};

struct SymbolizeStats {
    int64_t nativeFrames = 0;      // native frames looked at
    int64_t distinctAddresses = 0; // distinct (object, address) pairs sent to LLVM
    int64_t resolvedFrames = 0;    // got at least a function name
    int64_t framesWithLines = 0;   // ... and a file:line (debug info found)
    int64_t unresolvedFrames = 0;  // module missing/unreadable or address matches no symbol
    int64_t inlineRows = 0;        // frame_inlines rows written
    int64_t userFrames = 0;        // frames marked is_user = 1 (native and Python)
    int64_t modules = 0;
    int64_t missingModules = 0; // modules whose file could not be used
    int64_t stacks = 0;
    int64_t stacksWithUserFrame = 0;
    int64_t driverInternalStacks = 0;
    int64_t sourcesEmbedded = 0;
    int64_t sourcesMissing = 0;
    int64_t diagnostics = 0;   // diagnostics rows added
    double resolveSeconds = 0; // time spent in LLVM
    double totalSeconds = 0;
};

} // namespace stallscope::symbolize
