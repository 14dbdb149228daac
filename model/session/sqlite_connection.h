// Minimal RAII wrappers over SQLite's C API for read-only access to session files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace stallscope::model {

class SqliteStatement;

class SqliteConnection {
public:
    SqliteConnection() = default;
    ~SqliteConnection();
    SqliteConnection(const SqliteConnection&) = delete;
    SqliteConnection& operator=(const SqliteConnection&) = delete;

    // Opens read-only. On failure returns false and sets *error to SQLite's message.
    bool openReadOnly(const std::string& path, std::string* error);
    sqlite3* handle() const { return m_db; }
    std::string lastMessage() const;

private:
    sqlite3* m_db = nullptr;
};

class SqliteStatement {
public:
    SqliteStatement(const SqliteConnection& connection, std::string_view sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    bool prepared() const { return m_statement != nullptr; }
    // True while a row is available; false at the end or on error (see failed()).
    bool step();
    bool failed() const { return m_failed; }
    void bind(int index, int64_t value);
    void bindText(int index, std::string_view text);

    int64_t integer(int column) const;
    bool isNull(int column) const;
    std::string text(int column) const;

private:
    sqlite3_stmt* m_statement = nullptr;
    bool m_failed = false;
};

} // namespace stallscope::model
