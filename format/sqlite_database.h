// The one SQLite wrapper: a Database and its prepared Statements, both RAII. Qt-free and
// exception-free, because the recorder runs it inside users' processes; errors are reported by
// return values and messages, never thrown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace stallscope::format {

class Statement {
public:
    Statement() = default;
    ~Statement();
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    bool prepared() const { return m_statement != nullptr; }
    // False once preparing or a step failed; error() says why.
    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }

    // True while a row is available; false at the end or on an error (see failed()).
    bool step();
    // Steps once, then resets for the next bind; false on an error.
    bool execute();
    // Binds `values` to parameters 1, 2, ... in order.
    template <typename... Values> void bindAll(const Values&... values) {
        int parameter = 0;
        (bind(++parameter, values), ...);
    }
    // bindAll(values...), then execute().
    template <typename First, typename... Rest>
    bool execute(const First& first, const Rest&... rest) {
        bindAll(first, rest...);
        return execute();
    }
    void reset();

    void bind(int index, int64_t value);
    void bind(int index, std::string_view text); // a null data() binds "" (never NULL)
    void bind(int index, const std::string& text) { bind(index, std::string_view(text)); }
    void bind(int index, const std::optional<int64_t>& value);
    void bind(int index, const std::optional<std::string>& text);
    void bindNull(int index);

    // SQLite's storage class of a result value (sqlite3_column_type): a column's declared type
    // does not bind what a crafted file holds in it.
    enum class ValueType { Integer = 1, Real = 2, Text = 3, Blob = 4, Null = 5 };

    // A value's storage class and, when it is an integer, the integer (else 0): one call into
    // SQLite, for loops that check every value they read.
    struct TypedInteger {
        ValueType type;
        int64_t value;
    };

    int columnCount() const;
    std::string columnName(int column) const;
    ValueType type(int column) const;
    TypedInteger typedInteger(int column) const;
    bool isNull(int column) const;
    int64_t integer(int column) const;
    std::string text(int column) const;
    // The column's text without a copy, valid until the next step() or reset(): for a value that
    // is only looked at or cut (a crafted file's 300 MB meta value is then held once, not twice).
    std::string_view textView(int column) const;

private:
    friend class Database;
    Statement(sqlite3* db, sqlite3_stmt* statement, std::string error);
    void release();

    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_statement = nullptr;
    std::string m_error;
};

// The names SQLite gives the files beside a database (`PATH-wal`, ...), which belong to it.
inline constexpr const char* kSqliteSideFileSuffixes[] = {"-wal", "-shm", "-journal"};

// What lies beside a database file that a reader must honour: committed transactions still in the
// write-ahead log, or a rollback journal of an unfinished write. SQLite reads either only by
// writing beside the file (the -shm index; rolling the journal back), so a reader that must
// never write there reads a copy (model/interop/side_file_snapshot.h) or refuses.
struct SqliteSideFiles {
    bool walMode = false;        // the header asks for WAL (bytes 18-19 are 2)
    bool anyPresent = false;     // a -wal, -shm or -journal exists, whatever its content
    int64_t walBytes = 0;        // the -wal's size: > 0 may hold committed transactions
    int64_t hotJournalBytes = 0; // a -journal with a live header: an unfinished write
    bool pending() const { return walBytes > 0 || hotJournalBytes > 0; }
};
SqliteSideFiles sqliteSideFiles(const std::string& path);
// One line (without the file's name) saying what pending side data `path` has and why it is not
// read in place; empty when none.
std::string pendingSideFilesProblem(const std::string& path, const SqliteSideFiles& side);

class Database {
public:
    enum class Mode { ReadOnly, ReadWrite, Create };

    Database() = default;
    ~Database();
    Database(Database&& other) noexcept;
    Database& operator=(Database&& other) noexcept;
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // On failure returns false and sets *error to SQLite's message. Create makes the file when
    // missing. ReadOnly never writes the file nor creates anything beside it: a file in WAL mode,
    // or with side files, is opened `immutable` (else SQLite would create -wal and -shm); one
    // with pending side data (SqliteSideFiles::pending) is refused with
    // pendingSideFilesProblem(), since `immutable` would silently skip that data. Every
    // connection is defensive: no
    // triggers, no views, no untrusted schema functions (SQLITE_DBCONFIG_DEFENSIVE,
    // TRUSTED_SCHEMA off, ENABLE_TRIGGER off, ENABLE_VIEW off). Connections are single-threaded
    // (NOMUTEX): use one per thread.
    bool open(const std::string& path, Mode mode, std::string* error);
    // Create mode whose connection may attachReadOnly() other files (SQLITE_OPEN_URI: only for
    // outputs the program names itself, since a path starting with "file:" reads as a URI).
    bool openForAttach(const std::string& path, std::string* error);
    // Attaches `path` as schema `name`, read-only (a URI with mode=ro: never written, not even a
    // hot journal rolled back). Needs a connection made by openForAttach().
    bool attachReadOnly(const std::string& path, std::string_view name, std::string* error);
    bool detach(std::string_view name, std::string* error);
    bool isOpen() const { return m_db != nullptr; }
    // Closes now; false when SQLite refused (unfinalized statements). The destructor also closes.
    bool close();

    // How long a statement waits for another connection's lock before failing (SQLITE_BUSY).
    void setBusyTimeout(int milliseconds);

    // Runs SQL without results (several statements allowed); false and *error on failure.
    bool exec(std::string_view sql, std::string* error = nullptr);
    // `persistent`: a statement kept for the connection's lifetime (SQLite plans its memory so).
    Statement prepare(std::string_view sql, bool persistent = false) const;

    int64_t lastInsertRowId() const;
    // Reads `bytes` of the main database file from `offset`, through the connection's own file
    // handle (SQLITE_FCNTL_FILE_POINTER): no second descriptor of the file is opened, whose close
    // would drop the process's POSIX locks on it. False on an error or a short read.
    bool readMainFile(int64_t offset, void* buffer, int bytes) const;
    // The main database file's size in bytes; -1 when it cannot be read.
    int64_t mainFileSize() const;
    // SQLite's message for the last failed call on this connection.
    std::string lastMessage() const;

private:
    bool openWithFlags(const std::string& path, Mode mode, int extraFlags, std::string* error);
    sqlite3* m_db = nullptr;
};

} // namespace stallscope::format
