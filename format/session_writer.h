// SessionWriter: writes a session file (tables in session_tables.h). Qt-free and exception-free,
// because the recorder runs it inside users' processes. Not thread-safe: one writer thread owns it.
//
// Rows go into an open transaction; commit() makes them durable (WAL). A killed writer leaves a
// file that opens with everything up to the last commit and meta.status = "recording", which
// readers report as cut short.
#pragma once

#include "format/session_rows.h"
#include "format/session_tables.h"
#include "format/sqlite_database.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stallscope::format {

class SessionWriter {
public:
    // How the file is written until finish(). Recording: through a write-ahead log, so what was
    // committed survives a killed process and a reader may open the file while it grows.
    // Scratch: the file is a temporary one, renamed into place only when complete (an import
    // through format::OutputFile), so nothing is journaled or synced on the way (SQLite's
    // journal_mode OFF, synchronous OFF): each page is written once, not twice.
    enum class Durability { Recording, Scratch };

    // Creates (or replaces) the file at `path`. Returns nullptr and sets *error on failure.
    static std::unique_ptr<SessionWriter> create(const std::string& path, std::string* error,
                                                 Durability durability = Durability::Recording);
    ~SessionWriter();
    SessionWriter(const SessionWriter&) = delete;
    SessionWriter& operator=(const SessionWriter&) = delete;

    const std::string& path() const { return m_path; }
    // The first error seen, empty when none. Calls after an error are ignored (return 0/false).
    const std::string& lastError() const { return m_error; }
    bool ok() const { return m_error.empty(); }

    void setMeta(std::string_view key, std::string_view value);
    // Interned strings (kernel and API names, range labels): same text, same id.
    int64_t internString(std::string_view text);

    int64_t addProcess(const ProcessRow& row);
    void finishProcess(int64_t processId, int64_t endNs, std::optional<int64_t> exitCode);
    int64_t addProcessRank(const ProcessRankRow& row);
    int64_t addThread(const ThreadRow& row);
    void setThreadName(int64_t threadId, std::string_view name);
    int64_t addDevice(const DeviceRow& row);
    // Fills in a device row written before its properties were known (all but process and index).
    void updateDevice(int64_t deviceId, const DeviceRow& row);
    int64_t addStream(const StreamRow& row);
    int64_t addModule(const ModuleRow& row);
    int64_t addFrame(const FrameRow& row);
    // Frames innermost first. `hash` is the interning key the caller used.
    int64_t addStack(uint64_t hash, std::span<const int64_t> frameIds);
    int64_t addSource(const SourceRow& row);

    int64_t addApiCall(const ApiCallRow& row);
    int64_t addKernel(const KernelRow& row);
    int64_t addMemcpy(const MemcpyRow& row);
    int64_t addMemset(const MemsetRow& row);
    int64_t addSync(const SyncRow& row);
    int64_t addCudaEvent(const CudaEventRow& row);
    int64_t addRange(const RangeRow& row);
    int64_t addHostSample(const HostSampleRow& row);
    int64_t addCollectiveCall(const CollectiveCallRow& row);
    // A capture interval begins (its end and closed_by unset) and ends (format v5).
    int64_t addCaptureInterval(const CaptureIntervalRow& row);
    void endCaptureInterval(int64_t intervalId, int64_t endNs, std::string_view closedBy);
    void addDropped(const DroppedRow& row);
    void addDiagnostic(int64_t atNs, std::string_view severity, std::string_view message);

    // Commits the open transaction and starts the next one.
    bool commit();

    // The flight recorder (stallscope-record --ring). The last row id written to each table of
    // kTables so far.
    using RowMarks = std::array<int64_t, kTables.size()>;
    const RowMarks& rowMarks() const { return m_lastRowId; }
    // Deletes the rows of the aging tables (kAgingTables) up to `marks`, taken when everything
    // that had ended by `cutNs` was written: what is left is whole from cutNs on. Capture
    // intervals that closed by then go, and the process rows and the open intervals start at
    // cutNs (opened_by `reason`), so readers see what was not kept.
    void discardThrough(const RowMarks& marks, int64_t cutNs, std::string_view reason);
    // Commits, and writes what is committed to the new file `path` as a finished session of its
    // own (VACUUM INTO: consistent and compact): its open capture intervals and processes end at
    // atNs (closed_by `closedBy`), `meta` is added and its status is `status`. False (and *error)
    // when it cannot; the recording goes on either way.
    bool writeSnapshot(const std::string& path, int64_t atNs, std::string_view closedBy,
                       std::string_view status,
                       const std::vector<std::pair<std::string, std::string>>& meta,
                       std::string* error);
    // Sets meta.status (and end time), adds the finalize indexes, commits, checkpoints the WAL into
    // the main file and closes. The writer is unusable afterwards.
    bool finish(std::string_view status);

    // Rows written since creation (all event tables), for throughput figures.
    int64_t eventCount() const { return m_eventCount; }
    // Rows written to one table of kTables since creation.
    int64_t rowsWritten(const Table& table) const { return m_rowsWritten[tableIndex(table)]; }

private:
    SessionWriter() = default;
    bool exec(std::string_view sql);
    bool execute(Statement& statement);
    void fail(std::string_view what, std::string_view message);
    void finalizeStatements();

    // Binds `values` to the table's generated INSERT, in descriptor column order, and runs it.
    // Returns the new row id (0 after an error).
    template <const Table& table, typename... Values> int64_t insert(const Values&... values) {
        static_assert(sizeof...(Values) == table.insertedColumns().size(),
                      "one value per inserted column of the table");
        constexpr size_t index = tableIndex(table);
        static_assert(index < kTables.size(), "a table of kTables");
        if (!ok())
            return 0;
        Statement& statement = m_inserts[index];
        statement.bindAll(values...);
        if (!execute(statement))
            return 0;
        ++m_rowsWritten[index];
        return m_lastRowId[index] = m_db.lastInsertRowId();
    }

    // insert() into an event table, counted in eventCount().
    template <const Table& table, typename... Values> int64_t insertEvent(const Values&... values) {
        if (ok())
            ++m_eventCount;
        return insert<table>(values...);
    }

    std::string m_path;
    std::string m_error;
    Database m_db;
    int64_t m_eventCount = 0;
    std::unordered_map<std::string, int64_t> m_strings;

    // Prepared once, one per table of kTables (same order); every add* binds and runs one.
    std::array<Statement, kTables.size()> m_inserts;
    std::array<int64_t, kTables.size()> m_rowsWritten{};
    RowMarks m_lastRowId{};
    // discardThrough's statements: one DELETE per aging table, then the intervals and processes.
    std::array<Statement, kAgingTables.size()> m_discards;
    Statement m_discardClosedIntervals;
    Statement m_cutOpenIntervals;
    Statement m_cutProcesses;
    Statement m_processEnd;
    Statement m_threadName;
    Statement m_deviceUpdate;
    Statement m_captureEnd;
};

} // namespace stallscope::format
