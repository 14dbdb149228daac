#include "model/session/sqlite_connection.h"

#include <sqlite3.h>

namespace stallscope::model {

SqliteConnection::~SqliteConnection() {
    if (m_db)
        sqlite3_close_v2(m_db);
}

bool SqliteConnection::openReadOnly(const std::string& path, std::string* error) {
    if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK) {
        if (error)
            *error = lastMessage();
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        return false;
    }
    sqlite3_extended_result_codes(m_db, 1);
    return true;
}

std::string SqliteConnection::lastMessage() const {
    return m_db ? sqlite3_errmsg(m_db) : "out of memory";
}

SqliteStatement::SqliteStatement(const SqliteConnection& connection, std::string_view sql) {
    if (!connection.handle() ||
        sqlite3_prepare_v2(connection.handle(), sql.data(), static_cast<int>(sql.size()),
                           &m_statement, nullptr) != SQLITE_OK) {
        sqlite3_finalize(m_statement);
        m_statement = nullptr;
        m_failed = true;
    }
}

SqliteStatement::~SqliteStatement() {
    sqlite3_finalize(m_statement);
}

bool SqliteStatement::step() {
    if (!m_statement || m_failed)
        return false;
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE)
        m_failed = true;
    return false;
}

void SqliteStatement::bind(int index, int64_t value) {
    if (m_statement)
        sqlite3_bind_int64(m_statement, index, value);
}

void SqliteStatement::bindText(int index, std::string_view text) {
    if (m_statement)
        sqlite3_bind_text(m_statement, index, text.data(), static_cast<int>(text.size()),
                          SQLITE_TRANSIENT);
}

int64_t SqliteStatement::integer(int column) const {
    return sqlite3_column_int64(m_statement, column);
}

bool SqliteStatement::isNull(int column) const {
    return sqlite3_column_type(m_statement, column) == SQLITE_NULL;
}

std::string SqliteStatement::text(int column) const {
    const auto* bytes = sqlite3_column_text(m_statement, column);
    return bytes ? std::string(reinterpret_cast<const char*>(bytes),
                               static_cast<size_t>(sqlite3_column_bytes(m_statement, column)))
                 : std::string();
}

} // namespace stallscope::model
