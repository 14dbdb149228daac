// SqliteStatement: a prepared statement that finalizes itself, so every early return in the
// finalize step is leak-free. Thin on purpose: bind/step/column, nothing else.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stallscope::symbolize {

class SqliteStatement {
public:
    SqliteStatement(sqlite3* db, std::string_view sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    bool ok() const { return m_statement != nullptr; }
    const std::string& error() const { return m_error; }

    // SQLITE_ROW -> true; SQLITE_DONE or an error -> false (error() tells which).
    bool step();
    // Runs to completion and resets; false on error.
    bool execute();
    void reset();

    void bind(int index, int64_t value);
    void bind(int index, std::string_view text);
    void bind(int index, const std::optional<int64_t>& value);
    void bindNull(int index);

    bool isNull(int column) const;
    int64_t int64(int column) const;
    std::string text(int column) const;

private:
    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_statement = nullptr;
    std::string m_error;
};

// Runs SQL without results; false (and *error) on failure.
bool sqliteExec(sqlite3* db, std::string_view sql, std::string* error);

} // namespace stallscope::symbolize
