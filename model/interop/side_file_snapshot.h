// Sessions with pending side data: a recording still running, or one whose writer was killed,
// keeps committed transactions in its write-ahead log (`-wal`); a writer stopped mid-transaction
// leaves a hot rollback journal (`-journal`). SQLite reads either only by writing beside the file
// (format::SqliteSideFiles), which opening never does. Such a file is copied with its side file
// into the import cache (import_cache.h), made whole there, and that copy is what loads; the
// session's warning says so. Anything else is left to the session-file importer.
#pragma once

#include "model/session/session_opener.h"

#include <string>

namespace stallscope::model {

// Whether `path` is a session file with pending side data.
bool hasPendingSideFiles(const std::string& path);

// The made-whole copy of `path` in the import cache (made now, or reused while the file and its
// side file are unchanged): its path and why it was made, or the error (naming `path`).
struct SideFileCopy {
    std::string path;
    std::string why; // "its write-ahead log PATH-wal holds transactions not yet in the file (…)"
    std::string error;
};
SideFileCopy madeWholeCopy(const std::string& path);

// Loads the made-whole copy of `path` (made now, or reused while the file and its side file are
// unchanged).
LoadResult loadSideFileSnapshot(const std::string& path, const LoadOptions& options = {});

// Lets `opener` open sessions with pending side data through loadSideFileSnapshot().
void registerSideFileSnapshotImporter(SessionOpener& opener);

} // namespace stallscope::model
