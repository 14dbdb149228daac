// The check every reader makes before its first query of a session: that the file's schema
// (sqlite_schema: tables, their columns, indexes) is exactly the one session_tables.h and
// session_schema.h define — no triggers, no views, no generated columns, no other tables. A
// session's SQL only ever comes from Stallscope's own writer, so anything else in it was put there
// by someone else and is refused before it can run or cost anything (issue 13).
#pragma once

#include "format/session_tables.h"

#include <string>
#include <string_view>

namespace stallscope::format {

class Database;

// Empty when `table` exists in `db` and is defined as Stallscope defines it, else the problem,
// e.g. "table 'frames' has a generated column 'g'". Whitespace in the stored CREATE statement does
// not matter (older writers laid it out differently), anything else does.
std::string checkTableSchema(const Database& db, const Table& table);

// Empty when every object of `db`'s schema is Stallscope's (the tables of kTables, the indexes
// SQLite makes for their keys, the finalize indexes of kIndexSql and kFormerIndexSql) and every
// table of kTables is present; the finalize indexes are optional. Else one line without the file's
// name: "corrupt session: missing table 'kernels'", or "foreign schema: trigger 'evil' on 'frames',
// ...".
std::string checkSessionSchema(const Database& db);

// Whether `db` has a table of that name (a table newer than the file's format version may be
// missing: Table::sinceVersion).
bool hasTable(const Database& db, std::string_view name);

// Database::open(path, ReadOnly) followed by checkSessionSchema(): what a reader of a session does
// before its first query. False with *error (without the file's name) when either fails.
bool openSession(Database& db, const std::string& path, std::string* error);

} // namespace stallscope::format
