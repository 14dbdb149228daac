#include "symbolize/sqlite_statement.h"

namespace stallscope::symbolize {

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql) : m_db(db) {
    if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &m_statement, nullptr) !=
        SQLITE_OK) {
        m_error = std::string(sqlite3_errmsg(db)) + " in: " + std::string(sql);
        sqlite3_finalize(m_statement);
        m_statement = nullptr;
    }
}

SqliteStatement::~SqliteStatement() {
    sqlite3_finalize(m_statement);
}

bool SqliteStatement::step() {
    if (!m_statement)
        return false;
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE && m_error.empty())
        m_error = sqlite3_errmsg(m_db);
    return false;
}

bool SqliteStatement::execute() {
    if (!m_statement)
        return false;
    const int rc = sqlite3_step(m_statement);
    sqlite3_reset(m_statement);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        if (m_error.empty())
            m_error = sqlite3_errmsg(m_db);
        return false;
    }
    return true;
}

void SqliteStatement::reset() {
    if (m_statement)
        sqlite3_reset(m_statement);
}

void SqliteStatement::bind(int index, int64_t value) {
    sqlite3_bind_int64(m_statement, index, value);
}

void SqliteStatement::bind(int index, std::string_view text) {
    sqlite3_bind_text(m_statement, index, text.data(), static_cast<int>(text.size()),
                      SQLITE_TRANSIENT);
}

void SqliteStatement::bind(int index, const std::optional<int64_t>& value) {
    if (value)
        bind(index, *value);
    else
        bindNull(index);
}

void SqliteStatement::bindNull(int index) {
    sqlite3_bind_null(m_statement, index);
}

bool SqliteStatement::isNull(int column) const {
    return sqlite3_column_type(m_statement, column) == SQLITE_NULL;
}

int64_t SqliteStatement::int64(int column) const {
    return sqlite3_column_int64(m_statement, column);
}

std::string SqliteStatement::text(int column) const {
    const auto* data = sqlite3_column_text(m_statement, column);
    if (!data)
        return {};
    return std::string(reinterpret_cast<const char*>(data),
                       static_cast<size_t>(sqlite3_column_bytes(m_statement, column)));
}

bool sqliteExec(sqlite3* db, std::string_view sql, std::string* error) {
    char* message = nullptr;
    const std::string text(sql);
    if (sqlite3_exec(db, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        if (error)
            *error = message ? message : sqlite3_errmsg(db);
        sqlite3_free(message);
        return false;
    }
    return true;
}

} // namespace stallscope::symbolize
