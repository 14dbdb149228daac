// The in-memory half of RunMerger::load (run_merge.h): the ranks' loaded sessions moved into one
// session — row ids past the previous file's, one string id per text, lane and description
// indexes after the previous file's, times onto the first host's clock — without copying an
// event: the lanes' columns are moved and changed in place.
#pragma once

#include "model/interop/run_files.h"
#include "model/session/session_loader.h"

#include <memory>
#include <string>
#include <vector>

namespace stallscope::model {

struct LoadedRank {
    std::string path;
    std::unique_ptr<Session> session; // as SessionLoader loaded it
    format::RowMoves moves;           // lastId as readLastRowIds found it; the merge sets the rest
};

// The largest row id of each table of the session file at `path` (0 for an empty or absent
// table) into moves->lastId: the file's ids move as one block past the previous file's.
bool readLastRowIds(const std::string& path, format::RowMoves* moves, std::string* error);

// `ranks` (loaded from files.sessions, in that order) as one session whose path and meta
// import_source are `source`; files.skipped become its import warning. An error names the file.
LoadResult mergeLoadedRanks(std::vector<LoadedRank> ranks, const RunFiles& files,
                            const std::string& source);

} // namespace stallscope::model
