// The finalize step's entry point, Qt-free, for `stallscope-record` (end of a run, and
// `stallscope-record --symbolize FILE`), the `stallscope-symbolize` tool and the application
// (re-symbolizing a session whose frames are unresolved when the binaries exist on this machine).
//
// finalizeSymbols() opens the session read-write (stallscope-record's own file, on the machine that
// recorded it) and, in ONE transaction:
//   1. resolves every unsymbolized native frame (LLVM; inline chains; demangled names),
//   2. sets frames.is_user (UserFrameFilter; docs/symbolization.md),
//   3. embeds the sources of user frames (size-capped, SHA-256),
//   4. records what could not be done as `diagnostics` rows and a summary in `meta`.
// Missing binaries or sources never fail it: it returns false only when the file is not a session
// or the database cannot be written, and then leaves the file untouched (rollback).
#pragma once

#include "symbolize/symbolize_options.h"

#include <string>

namespace stallscope::symbolize {

bool finalizeSymbols(const std::string& sessionPath, const SymbolizeOptions& options,
                     std::string* error, SymbolizeStats* stats = nullptr);

// Writes a symbolized copy of the session to `copyPath` and never writes the session itself: the
// session is opened read-only and its schema checked, copied (VACUUM INTO) to a temporary file
// next to `copyPath`, finalized there and renamed to `copyPath` on success (no partial copy is
// left on failure). The application's way to symbolize a session it opens; it turns
// options.embedSources off, since a session from elsewhere must not choose local files to copy in.
bool writeSymbolizedCopy(const std::string& sessionPath, const std::string& copyPath,
                         const SymbolizeOptions& options, std::string* error,
                         SymbolizeStats* stats = nullptr);

// How many unsymbolized native frames finalizeSymbols() could resolve with the binaries (or debug
// files) on this machine; opens the session read-only. -1 with *error when it is not readable.
// The application asks this before re-symbolizing a session it opens.
int64_t countResolvableFrames(const std::string& sessionPath, const SymbolizeOptions& options,
                              std::string* error);

// One human-readable line per figure, for command-line tools.
std::string describeStats(const SymbolizeStats& stats);

} // namespace stallscope::symbolize
