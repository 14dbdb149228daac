// The files of a run the fleet summary reads, found and checked before any is streamed: a run
// folder's *.stallscope files in rank order (as findRunFiles orders and skips them: partial
// recordings and second copies of a rank are left out with a note; a folder's files must be one
// launch's ranks), or one session file. Every file is opened read-only and immutable, its schema
// checked (format::openSession); one with a pending WAL or hot journal is read from its
// made-whole copy in the import cache. Unlike the loader, a *.stallscope file that is no readable
// session is an error, not a skip: a fleet summary short of a rank would name the wrong straggler.
#pragma once

#include "format/sqlite_database.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stallscope::model::fleet {

struct RankFile {
    std::string path;     // as listed
    std::string readPath; // what is opened: `path`, or its made-whole copy
    std::optional<int64_t> rank;
    std::string worldSize; // "" where not recorded
    int64_t pid = 0;
    std::string host;
    std::string label() const; // "rank 3", else the file's name
};

struct RankFileList {
    std::vector<RankFile> files; // in rank order, then by name
    std::vector<std::string> notes;
    std::string error; // "PATH: problem"; files is then empty
};

RankFileList listRankFiles(const std::string& path);

// Opens a rank's file for the summary's queries: read-only, immutable, schema and format
// checked, SQLite's sorts spilled to its temporary files. False with *error (without the name).
bool openRankFile(format::Database& db, const std::string& readPath, std::string* error);

} // namespace stallscope::model::fleet
