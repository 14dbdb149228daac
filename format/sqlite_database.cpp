#include "format/sqlite_database.h"

#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <string_view>

#include <sqlite3.h>

#include <utility>

namespace stallscope::format {

static_assert(int(Statement::ValueType::Integer) == SQLITE_INTEGER &&
              int(Statement::ValueType::Real) == SQLITE_FLOAT &&
              int(Statement::ValueType::Text) == SQLITE_TEXT &&
              int(Statement::ValueType::Blob) == SQLITE_BLOB &&
              int(Statement::ValueType::Null) == SQLITE_NULL);

Statement::Statement(sqlite3* db, sqlite3_stmt* statement, std::string error)
    : m_db(db), m_statement(statement), m_error(std::move(error)) {}

Statement::~Statement() {
    release();
}

Statement::Statement(Statement&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)),
      m_statement(std::exchange(other.m_statement, nullptr)), m_error(std::move(other.m_error)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        release();
        m_db = std::exchange(other.m_db, nullptr);
        m_statement = std::exchange(other.m_statement, nullptr);
        m_error = std::move(other.m_error);
    }
    return *this;
}

void Statement::release() {
    sqlite3_finalize(m_statement);
    m_statement = nullptr;
}

bool Statement::step() {
    if (!m_statement || failed())
        return false;
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE)
        m_error = sqlite3_errmsg(m_db);
    return false;
}

bool Statement::execute() {
    if (!m_statement || failed())
        return false;
    const int rc = sqlite3_step(m_statement);
    // No sqlite3_clear_bindings: callers bind every parameter before each execute().
    sqlite3_reset(m_statement);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        m_error = sqlite3_errmsg(m_db);
        return false;
    }
    return true;
}

void Statement::reset() {
    if (m_statement)
        sqlite3_reset(m_statement);
}

void Statement::bind(int index, int64_t value) {
    sqlite3_bind_int64(m_statement, index, value);
}

void Statement::bind(int index, std::string_view text) {
    // A default-constructed string_view has a null data(), which SQLite would store as NULL.
    sqlite3_bind_text(m_statement, index, text.data() ? text.data() : "",
                      static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void Statement::bind(int index, const std::optional<int64_t>& value) {
    if (value)
        bind(index, *value);
    else
        bindNull(index);
}

void Statement::bind(int index, const std::optional<std::string>& text) {
    if (text)
        bind(index, std::string_view(*text));
    else
        bindNull(index);
}

void Statement::bindNull(int index) {
    sqlite3_bind_null(m_statement, index);
}

int Statement::columnCount() const {
    return sqlite3_column_count(m_statement);
}

std::string Statement::columnName(int column) const {
    const char* name = sqlite3_column_name(m_statement, column);
    return name ? name : "";
}

Statement::ValueType Statement::type(int column) const {
    return static_cast<ValueType>(sqlite3_column_type(m_statement, column));
}

Statement::TypedInteger Statement::typedInteger(int column) const {
    // The column's value is read once; sqlite3_value_* calls on it take no lock.
    sqlite3_value* value = sqlite3_column_value(m_statement, column);
    const auto type = static_cast<ValueType>(sqlite3_value_type(value));
    return {type, type == ValueType::Integer ? sqlite3_value_int64(value) : 0};
}

bool Statement::isNull(int column) const {
    return sqlite3_column_type(m_statement, column) == SQLITE_NULL;
}

int64_t Statement::integer(int column) const {
    return sqlite3_column_int64(m_statement, column);
}

std::string Statement::text(int column) const {
    return std::string(textView(column));
}

std::string_view Statement::textView(int column) const {
    const auto* bytes = sqlite3_column_text(m_statement, column);
    return bytes ? std::string_view(reinterpret_cast<const char*>(bytes),
                                    static_cast<size_t>(sqlite3_column_bytes(m_statement, column)))
                 : std::string_view();
}

Database::~Database() {
    if (m_db)
        sqlite3_close_v2(m_db);
}

namespace {

// `path` as an SQLite URI with `query`: RFC 3986 escaping of everything but unreserved characters
// and '/', so that no '?', '#' or '%' in the path is read as part of the URI.
std::string fileUri(const std::string& path, std::string_view query) {
    std::string uri = "file:";
    for (const unsigned char c : path) {
        if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
            uri.push_back(static_cast<char>(c));
        } else {
            char escaped[4];
            std::snprintf(escaped, sizeof escaped, "%%%02X", c);
            uri += escaped;
        }
    }
    return uri + "?" + std::string(query);
}

// The first `count` bytes of `path` (fewer when shorter or unreadable).
std::string fileStart(const std::string& path, size_t count) {
    std::string bytes(count, '\0');
    FILE* file = std::fopen(path.c_str(), "rb");
    if (!file)
        return {};
    bytes.resize(std::fread(bytes.data(), 1, count, file));
    std::fclose(file);
    return bytes;
}

} // namespace

SqliteSideFiles sqliteSideFiles(const std::string& path) {
    SqliteSideFiles side;
    // https://www.sqlite.org/fileformat.html: write and read versions at offsets 18 and 19.
    const std::string header = fileStart(path, 20);
    side.walMode = header.size() == 20 && (header[18] == 2 || header[19] == 2);
    struct stat info {};
    for (const char* suffix : kSqliteSideFileSuffixes) {
        const std::string sidePath = path + suffix;
        if (lstat(sidePath.c_str(), &info) != 0)
            continue;
        side.anyPresent = true;
        const std::string_view name = suffix;
        if (name == "-wal")
            side.walBytes = static_cast<int64_t>(info.st_size);
        // A journal is hot when it holds a header (a zeroed one was finished: PERSIST mode).
        if (name == "-journal" && info.st_size > 0) {
            const std::string start = fileStart(sidePath, 8);
            if (start.find_first_not_of('\0') != std::string::npos)
                side.hotJournalBytes = static_cast<int64_t>(info.st_size);
        }
    }
    return side;
}

std::string pendingSideFilesProblem(const std::string& path, const SqliteSideFiles& side) {
    if (side.hotJournalBytes > 0)
        return "has an unfinished write: its rollback journal " + path + "-journal (" +
               std::to_string(side.hotJournalBytes) +
               " bytes) must be rolled back into it before it can be read, which writes the file "
               "(`sqlite3 FILE 'PRAGMA integrity_check'` rolls it back where it may be written)";
    if (side.walBytes > 0)
        return "has transactions not yet in the file: its write-ahead log " + path + "-wal (" +
               std::to_string(side.walBytes) +
               " bytes; a recording still running, or whose writer was killed) can only be read "
               "by writing beside it (`sqlite3 FILE 'PRAGMA wal_checkpoint'` moves them into the "
               "file where it may be written)";
    return {};
}

Database::Database(Database&& other) noexcept : m_db(std::exchange(other.m_db, nullptr)) {}

Database& Database::operator=(Database&& other) noexcept {
    if (this != &other) {
        if (m_db)
            sqlite3_close_v2(m_db);
        m_db = std::exchange(other.m_db, nullptr);
    }
    return *this;
}

bool Database::open(const std::string& path, Mode mode, std::string* error) {
    return openWithFlags(path, mode, 0, error);
}

bool Database::openForAttach(const std::string& path, std::string* error) {
    return openWithFlags(path, Mode::Create, SQLITE_OPEN_URI, error);
}

bool Database::attachReadOnly(const std::string& path, std::string_view name, std::string* error) {
    const std::string uri = fileUri(path, "mode=ro");
    Statement attach = prepare("ATTACH DATABASE ? AS " + std::string(name));
    attach.bind(1, uri);
    if (!attach.execute()) {
        if (error)
            *error = attach.error();
        return false;
    }
    return true;
}

bool Database::detach(std::string_view name, std::string* error) {
    return exec("DETACH DATABASE " + std::string(name), error);
}

bool Database::openWithFlags(const std::string& path, Mode mode, int extraFlags,
                             std::string* error) {
    close();
    int flags = SQLITE_OPEN_NOMUTEX | extraFlags;
    std::string name = path;
    switch (mode) {
    case Mode::ReadOnly:
        flags |= SQLITE_OPEN_READONLY;
        if (const SqliteSideFiles side = sqliteSideFiles(path); side.pending()) {
            if (error)
                *error = pendingSideFilesProblem(path, side);
            return false;
        } else if (side.walMode || side.anyPresent) {
            // Nothing to read beside it: `immutable` keeps SQLite from creating -wal and -shm.
            flags |= SQLITE_OPEN_URI;
            name = fileUri(path, "immutable=1");
        }
        break;
    case Mode::ReadWrite:
        flags |= SQLITE_OPEN_READWRITE;
        break;
    case Mode::Create:
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        break;
    }
    if (sqlite3_open_v2(name.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
        if (error)
            *error = lastMessage();
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        return false;
    }
    sqlite3_extended_result_codes(m_db, 1);
    // Every connection is defensive, whatever the file holds: its schema's triggers, views and
    // functions never run (sessions have none; a crafted one is refused by
    // session_schema_check.h, and this holds even for a reader that does not check).
    for (const auto& [option, value] :
         {std::pair{SQLITE_DBCONFIG_DEFENSIVE, 1}, std::pair{SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
          std::pair{SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
          std::pair{SQLITE_DBCONFIG_ENABLE_VIEW, 0}}) {
        if (sqlite3_db_config(m_db, option, value, nullptr) != SQLITE_OK) {
            if (error)
                *error = "cannot make the connection defensive: " + lastMessage();
            close();
            return false;
        }
    }
    // A file read is one someone else wrote: SQLite checks each b-tree page's cells as it loads
    // the page. Without this a cell that runs off its page is read on into the memory after the
    // page buffer, and a corrupt file reads differently from run to run (tests/fuzz/regressions/
    // fuzz_session_file/cell-off-end-of-page.stallscope).
    if (mode == Mode::ReadOnly && !exec("PRAGMA cell_size_check=ON", error)) {
        close();
        return false;
    }
    return true;
}

bool Database::close() {
    if (!m_db)
        return true;
    if (sqlite3_close(m_db) != SQLITE_OK)
        return false;
    m_db = nullptr;
    return true;
}

void Database::setBusyTimeout(int milliseconds) {
    if (m_db)
        sqlite3_busy_timeout(m_db, milliseconds);
}

bool Database::exec(std::string_view sql, std::string* error) {
    if (!m_db) {
        if (error)
            *error = "database not open";
        return false;
    }
    char* message = nullptr;
    if (sqlite3_exec(m_db, std::string(sql).c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        if (error)
            *error = message ? message : sqlite3_errmsg(m_db);
        sqlite3_free(message);
        return false;
    }
    return true;
}

Statement Database::prepare(std::string_view sql, bool persistent) const {
    if (!m_db)
        return Statement(nullptr, nullptr, "database not open");
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v3(m_db, sql.data(), static_cast<int>(sql.size()),
                           persistent ? SQLITE_PREPARE_PERSISTENT : 0, &statement,
                           nullptr) != SQLITE_OK) {
        sqlite3_finalize(statement);
        return Statement(m_db, nullptr, lastMessage() + " in: " + std::string(sql));
    }
    return Statement(m_db, statement, {});
}

namespace {

sqlite3_file* mainFileOf(sqlite3* db) {
    sqlite3_file* file = nullptr;
    if (!db || sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
        !file || !file->pMethods)
        return nullptr;
    return file;
}

} // namespace

bool Database::readMainFile(int64_t offset, void* buffer, int bytes) const {
    sqlite3_file* file = mainFileOf(m_db);
    return file && file->pMethods->xRead(file, buffer, bytes, offset) == SQLITE_OK;
}

int64_t Database::mainFileSize() const {
    sqlite3_file* file = mainFileOf(m_db);
    sqlite3_int64 size = -1;
    if (!file || file->pMethods->xFileSize(file, &size) != SQLITE_OK)
        return -1;
    return size;
}

int64_t Database::lastInsertRowId() const {
    return m_db ? sqlite3_last_insert_rowid(m_db) : 0;
}

std::string Database::lastMessage() const {
    return m_db ? sqlite3_errmsg(m_db) : "out of memory";
}

} // namespace stallscope::format
