#include "recorder/session_finalizer.h"

#include "format/checked_sql.h"
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "format/sqlite_database.h"
#include "recorder/signal_names.h"

#include <unistd.h>

#include <string>

namespace stallscope::recorder {

namespace {

constexpr const char* kNeverInitializedCuda =
    "the target never initialized CUDA under the recorder: no GPU activity was recorded";

using format::CheckedSql;

// The first column of the first row of `sql` (with `value` bound to ?1 when given); 0 when none.
template <typename... Value>
int64_t queryInt(const format::Database& db, CheckedSql sql, const Value&... value) {
    format::Statement statement = db.prepare(sql.text());
    (statement.bind(1, value), ...);
    return statement.step() ? statement.integer(0) : 0;
}

std::string metaValue(const format::Database& db, std::string_view key) {
    format::Statement statement =
        db.prepare(CheckedSql("SELECT {meta.value} FROM {meta} WHERE {meta.key} = ?").text());
    statement.bind(1, key);
    return statement.step() ? statement.text(0) : std::string();
}

void setMeta(const format::Database& db, std::string_view key, const std::string& value) {
    format::Statement statement = db.prepare(
        CheckedSql("INSERT OR REPLACE INTO {meta}({meta.key}, {meta.value}) VALUES (?, ?)").text());
    statement.execute(key, value);
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
        writer->addDiagnostic(outcome.endNs, "warning", kNeverInitializedCuda);
        writer->setMeta(format::meta::kIncompleteReason, kNeverInitializedCuda);
        if (!writer->finish(format::kStatusIncomplete)) {
            *error = writer->lastError();
            return false;
        }
    }
    format::Database db;
    std::string openError;
    if (!db.open(path, format::Database::Mode::ReadWrite, &openError)) {
        *error = path + ": " + openError;
        return false;
    }
    db.setBusyTimeout(5000);
    db.exec("BEGIN IMMEDIATE");
    std::string status = metaValue(db, format::meta::kStatus);
    // "recording" here means the writer died with its process before finishing; a program that
    // died of a signal did not run to its end, whatever its recorder managed to write.
    if (status != format::kStatusComplete || outcome.signal != 0) {
        status = std::string(format::kStatusIncomplete);
        if (metaValue(db, format::meta::kIncompleteReason).empty())
            setMeta(db, format::meta::kIncompleteReason,
                    !outcome.stopReason.empty() ? outcome.stopReason
                    : outcome.signal != 0
                        ? "the target was " + killedBy(outcome.signal)
                        : std::string("the recorder in the target did not finish the session "
                                      "(the target crashed or was killed)"));
    }
    setMeta(db, format::meta::kStatus, status);
    setMeta(db, format::meta::kCommand, outcome.command);
    setMeta(db, format::meta::kExitCode, std::to_string(outcome.exitCode));
    if (outcome.signal)
        setMeta(db, format::meta::kExitSignal, std::to_string(outcome.signal));
    setMeta(db, format::meta::kDurationNs, std::to_string(outcome.endNs - outcome.startNs));
    setMeta(db, format::meta::kRecordStartNs, std::to_string(outcome.startNs));
    setMeta(db, format::meta::kRecordEndNs, std::to_string(outcome.endNs));
    format::Statement update =
        db.prepare(CheckedSql("UPDATE {processes} SET {processes.exit_code} = ?, "
                              "{processes.end_ns} = COALESCE({processes.end_ns}, ?) "
                              "WHERE {processes.pid} = ?")
                       .text());
    update.execute(int64_t{outcome.exitCode}, int64_t{outcome.endNs}, int64_t{outcome.pid});
    const bool committed = db.exec("COMMIT", error);
    if (status != std::string(format::kStatusComplete))
        db.exec(format::kIndexSql);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    summary->status = status;
    // The syncs that block the host: every kind but a stream's wait for an event.
    const auto notBlocking = static_cast<int64_t>(format::SyncKind::StreamWaitEvent);
    summary->kernels = queryInt(db, "SELECT count(*) FROM {kernels}");
    summary->syncs =
        queryInt(db, "SELECT count(*) FROM {syncs} WHERE {syncs.kind} != ?", notBlocking);
    summary->blockedNs = queryInt(db,
                                  "SELECT COALESCE(sum({syncs.end_ns} - {syncs.start_ns}), 0) "
                                  "FROM {syncs} WHERE {syncs.kind} != ?",
                                  notBlocking);
    summary->memcpys = queryInt(db, "SELECT count(*) FROM {memcpys}");
    summary->stacks = queryInt(db, "SELECT count(*) FROM {stacks}");
    summary->dropped = queryInt(db, "SELECT COALESCE(sum({dropped.count}), 0) FROM {dropped}");
    summary->captureMedianNs =
        queryInt(db, "SELECT CAST({meta.value} AS INTEGER) FROM {meta} WHERE {meta.key} = ?",
                 format::meta::kStackCaptureMedianNs);
    return committed;
}

} // namespace stallscope::recorder
