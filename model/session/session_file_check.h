// Checks a file before SQLite sees it, so that empty, foreign and truncated files get a precise
// message instead of SQLite's generic "file is not a database" (or, worse, a silent partial read).
#pragma once

#include <string>

namespace stallscope::model {

// Returns an empty string when the file looks like a complete SQLite database, else the problem
// (without the file name), e.g. "empty file (0 bytes)".
std::string checkSqliteFile(const std::string& path);

} // namespace stallscope::model
