#include "recorder/session_finalizer.h"

#include "format/session_schema.h"
#include "format/session_writer.h"
#include <sqlite3.h>
#include <unistd.h>

#include <string>

namespace stallscope::recorder {

namespace {

int64_t queryInt(sqlite3* db, const char* sql) {
    sqlite3_stmt* statement = nullptr;
    int64_t value = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW)
        value = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    return value;
}

std::string queryText(sqlite3* db, const char* sql) {
    sqlite3_stmt* statement = nullptr;
    std::string value;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0))
        value = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    sqlite3_finalize(statement);
    return value;
}

void setMeta(sqlite3* db, const std::string& key, const std::string& value) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", -1,
                           &statement, nullptr) != SQLITE_OK)
        return;
    sqlite3_bind_text(statement, 1, key.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 2, value.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_step(statement);
    sqlite3_finalize(statement);
}

} // namespace

bool SessionFinalizer::finalize(const std::string& path, const Outcome& outcome, Summary* summary,
                                std::string* error) {
    if (access(path.c_str(), F_OK) != 0) {
        // The target never initialized CUDA (or ran untraced): still leave a valid session.
        std::unique_ptr<format::SessionWriter> writer = format::SessionWriter::create(path, error);
        if (!writer)
            return false;
        format::ProcessRow process;
        process.pid = outcome.pid;
        char host[256] = {};
        gethostname(host, sizeof(host) - 1);
        process.host = host;
        process.command = outcome.command;
        process.startNs = outcome.startNs;
        writer->addProcess(process);
        writer->addDiagnostic(outcome.endNs, "warning",
                              "the target never initialized CUDA under the recorder: no GPU "
                              "activity was recorded");
        if (!writer->finish(format::kStatusComplete)) {
            *error = writer->lastError();
            return false;
        }
    }
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        *error = path + ": " + (db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return false;
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    std::string status = queryText(db, "SELECT value FROM meta WHERE key = 'status'");
    // "recording" here means the writer died with its process before finishing.
    if (status != std::string(format::kStatusComplete))
        status = std::string(format::kStatusIncomplete);
    setMeta(db, "status", status);
    setMeta(db, "command", outcome.command);
    setMeta(db, "exit_code", std::to_string(outcome.exitCode));
    if (outcome.signal)
        setMeta(db, "exit_signal", std::to_string(outcome.signal));
    setMeta(db, "duration_ns", std::to_string(outcome.endNs - outcome.startNs));
    setMeta(db, "record_start_ns", std::to_string(outcome.startNs));
    setMeta(db, "record_end_ns", std::to_string(outcome.endNs));
    std::string update = "UPDATE processes SET exit_code = " + std::to_string(outcome.exitCode) +
                         ", end_ns = COALESCE(end_ns, " + std::to_string(outcome.endNs) +
                         ") WHERE pid = " + std::to_string(outcome.pid);
    sqlite3_exec(db, update.c_str(), nullptr, nullptr, nullptr);
    int rc = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK)
        *error = sqlite3_errmsg(db);
    if (status != std::string(format::kStatusComplete))
        sqlite3_exec(db, std::string(format::kIndexSql).c_str(), nullptr, nullptr, nullptr);
    sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
    summary->status = status;
    summary->kernels = queryInt(db, "SELECT count(*) FROM kernels");
    summary->syncs = queryInt(db, "SELECT count(*) FROM syncs WHERE kind != 4");
    summary->blockedNs =
        queryInt(db, "SELECT COALESCE(sum(end_ns - start_ns), 0) FROM syncs WHERE kind != 4");
    summary->memcpys = queryInt(db, "SELECT count(*) FROM memcpys");
    summary->stacks = queryInt(db, "SELECT count(*) FROM stacks");
    summary->dropped = queryInt(db, "SELECT COALESCE(sum(count), 0) FROM dropped");
    summary->captureMedianNs = queryInt(
        db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'stack_capture_median_ns'");
    sqlite3_close(db);
    return rc == SQLITE_OK;
}

} // namespace stallscope::recorder
