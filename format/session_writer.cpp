#include "format/session_writer.h"

#include "format/checked_sql.h"
#include "format/session_meta.h"
#include "format/session_schema.h"

#include <cstdio>
#include <string>

namespace stallscope::format {

namespace {

// The stored value of an enum column (the enums' values are the file's numbers).
template <typename Enum> int64_t code(Enum value) {
    return static_cast<int64_t>(value);
}

// Meta keys and source paths are unique: writing one again replaces the old row.
std::string_view insertVerb(const Table& table) {
    return &table == &tables::kMeta || &table == &tables::kSources ? "INSERT OR REPLACE" : "INSERT";
}

} // namespace

std::unique_ptr<SessionWriter> SessionWriter::create(const std::string& path, std::string* error,
                                                     Durability durability) {
    std::unique_ptr<SessionWriter> writer(new SessionWriter());
    writer->m_path = path;
    // Replace an older file (and its WAL) rather than appending to a foreign database.
    std::remove(path.c_str());
    std::remove((path + "-wal").c_str());
    std::remove((path + "-shm").c_str());
    std::string openError;
    if (!writer->m_db.open(path, Database::Mode::Create, &openError)) {
        if (error)
            *error = path + ": cannot create session file: " + openError;
        return nullptr;
    }
    // WAL + synchronous=NORMAL: a commit survives a killed process; fsync only at checkpoints.
    // 16 KiB pages: fewer B-tree splits for the long integer-only event tables. Rows are appended
    // to the tables' ends, so a small page cache (1 MiB) suffices — it is memory in the recorded
    // process and a fixed cost of every import.
    writer->exec(durability == Durability::Recording
                     ? "PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                     : "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
    writer->exec("PRAGMA temp_store=MEMORY; PRAGMA cache_size=-1024;");
    writer->exec("BEGIN");
    writer->exec(schemaSql());
    const Database& db = writer->m_db;
    for (size_t i = 0; i < kTables.size(); ++i)
        writer->m_inserts[i] = db.prepare(insertSql(*kTables[i], insertVerb(*kTables[i])), true);
    writer->m_processEnd =
        db.prepare("UPDATE processes SET end_ns = ?, exit_code = ? WHERE id = ?", true);
    writer->m_threadName = db.prepare("UPDATE threads SET name = ? WHERE id = ?", true);
    writer->m_deviceUpdate =
        db.prepare("UPDATE devices SET name = ?, uuid = ?, compute_major = ?, compute_minor = ?, "
                   "sm_count = ?, global_memory_bytes = ? WHERE id = ?",
                   true);
    writer->m_captureEnd =
        db.prepare("UPDATE capture_intervals SET end_ns = ?, closed_by = ? WHERE id = ?", true);
    for (const Statement* statement : {&writer->m_processEnd, &writer->m_threadName,
                                       &writer->m_deviceUpdate, &writer->m_captureEnd})
        if (statement->failed())
            writer->fail("cannot prepare statement", statement->error());
    for (const Statement& statement : writer->m_inserts)
        if (statement.failed())
            writer->fail("cannot prepare statement", statement.error());

    writer->setMeta(meta::kFormatName, kFormatName);
    writer->setMeta(meta::kFormatVersion, std::to_string(kFormatVersion));
    writer->setMeta(meta::kClock, kClockName);
    writer->setMeta(meta::kStatus, kStatusRecording);
    // The empty schema is committed at once so a file exists and identifies itself from the start.
    writer->commit();
    if (!writer->ok()) {
        if (error)
            *error = writer->m_error;
        return nullptr;
    }
    return writer;
}

SessionWriter::~SessionWriter() {
    finalizeStatements();
    // Destroyed without finish(): keep what was written, leave status "recording".
    if (m_db.isOpen())
        m_db.exec("COMMIT");
}

void SessionWriter::finalizeStatements() {
    for (Statement& statement : m_inserts)
        statement = Statement();
    m_processEnd = Statement();
    m_threadName = Statement();
    m_deviceUpdate = Statement();
    m_captureEnd = Statement();
    for (Statement& statement : m_discards)
        statement = Statement();
    m_discardClosedIntervals = Statement();
    m_cutOpenIntervals = Statement();
    m_cutProcesses = Statement();
}

void SessionWriter::fail(std::string_view what, std::string_view message) {
    if (m_error.empty())
        m_error = m_path + ": " + std::string(what) + ": " + std::string(message);
}

bool SessionWriter::exec(std::string_view sql) {
    if (!ok() || !m_db.isOpen())
        return false;
    std::string message;
    if (!m_db.exec(sql, &message)) {
        fail("SQL failed (" + message + ")", m_db.lastMessage());
        return false;
    }
    return true;
}

bool SessionWriter::execute(Statement& statement) {
    if (!ok() || !statement.prepared())
        return false;
    if (!statement.execute()) {
        fail("write failed", statement.error());
        return false;
    }
    return true;
}

void SessionWriter::setMeta(std::string_view key, std::string_view value) {
    insert<tables::kMeta>(key, value);
}

int64_t SessionWriter::internString(std::string_view text) {
    std::string key(text);
    if (auto found = m_strings.find(key); found != m_strings.end())
        return found->second;
    const int64_t id = insert<tables::kStrings>(text);
    if (id)
        m_strings.emplace(std::move(key), id);
    return id;
}

int64_t SessionWriter::addProcess(const ProcessRow& row) {
    return insert<tables::kProcesses>(row.pid, row.host, row.command, row.startNs, row.endNs,
                                      row.exitCode);
}

int64_t SessionWriter::addProcessRank(const ProcessRankRow& row) {
    return insert<tables::kProcessRanks>(row.processId, row.rank, row.localRank, row.worldSize,
                                         row.launcher, row.clockShiftNs);
}

void SessionWriter::updateDevice(int64_t deviceId, const DeviceRow& row) {
    if (!ok())
        return;
    m_deviceUpdate.bindAll(row.name, row.uuid, row.computeMajor, row.computeMinor, row.smCount,
                           row.globalMemoryBytes, deviceId);
    execute(m_deviceUpdate);
}

void SessionWriter::finishProcess(int64_t processId, int64_t endNs,
                                  std::optional<int64_t> exitCode) {
    if (!ok())
        return;
    m_processEnd.bindAll(endNs, exitCode, processId);
    execute(m_processEnd);
}

int64_t SessionWriter::addThread(const ThreadRow& row) {
    return insert<tables::kThreads>(row.processId, row.tid, row.name);
}

void SessionWriter::setThreadName(int64_t threadId, std::string_view name) {
    if (!ok())
        return;
    m_threadName.bindAll(name, threadId);
    execute(m_threadName);
}

int64_t SessionWriter::addDevice(const DeviceRow& row) {
    return insert<tables::kDevices>(row.processId, row.deviceIndex, row.name, row.uuid,
                                    row.computeMajor, row.computeMinor, row.smCount,
                                    row.globalMemoryBytes);
}

int64_t SessionWriter::addStream(const StreamRow& row) {
    return insert<tables::kStreams>(row.deviceId, row.contextId, row.streamId,
                                    int64_t{row.isDefault}, row.priority);
}

int64_t SessionWriter::addModule(const ModuleRow& row) {
    return insert<tables::kModules>(row.processId, row.path, row.loadBias, row.startAddress,
                                    row.endAddress, row.buildId, row.loadedNs);
}

int64_t SessionWriter::addFrame(const FrameRow& row) {
    // Python frames arrive resolved; native ones wait for the symbolizer, which also sets is_user.
    const int64_t symbolized = row.kind == FrameKind::Python ? 1 : 0;
    const std::optional<int64_t> isUser;
    return insert<tables::kFrames>(code(row.kind), row.address, row.moduleId, row.function,
                                   row.file, row.line, row.column, symbolized, isUser);
}

int64_t SessionWriter::addStack(uint64_t hash, std::span<const int64_t> frameIds) {
    frameIds = frameIds.first(std::min(frameIds.size(), size_t(kMaxStackDepth)));
    const int64_t stackId =
        insert<tables::kStacks>(static_cast<int64_t>(hash), static_cast<int64_t>(frameIds.size()));
    for (size_t position = 0; position < frameIds.size() && ok(); ++position)
        insert<tables::kStackFrames>(stackId, static_cast<int64_t>(position), frameIds[position]);
    return ok() ? stackId : 0;
}

int64_t SessionWriter::addSource(const SourceRow& row) {
    return insert<tables::kSources>(row.path, row.sha256, row.sizeBytes, int64_t{row.truncated},
                                    row.text);
}

int64_t SessionWriter::addApiCall(const ApiCallRow& row) {
    return insertEvent<tables::kApiCalls>(row.threadId, code(row.domain), row.cbid, row.nameId,
                                          row.startNs, row.endNs, row.correlationId,
                                          row.returnCode);
}

int64_t SessionWriter::addKernel(const KernelRow& row) {
    return insertEvent<tables::kKernels>(
        row.streamId, row.nameId, row.startNs, row.endNs, row.correlationId, int64_t{row.grid[0]},
        int64_t{row.grid[1]}, int64_t{row.grid[2]}, int64_t{row.block[0]}, int64_t{row.block[1]},
        int64_t{row.block[2]}, int64_t{row.registersPerThread}, int64_t{row.staticSharedBytes},
        int64_t{row.dynamicSharedBytes});
}

int64_t SessionWriter::addMemcpy(const MemcpyRow& row) {
    return insertEvent<tables::kMemcpys>(row.streamId, row.startNs, row.endNs, row.correlationId,
                                         code(row.copyKind), code(row.srcKind), code(row.dstKind),
                                         row.bytes, int64_t{row.isAsync});
}

int64_t SessionWriter::addMemset(const MemsetRow& row) {
    return insertEvent<tables::kMemsets>(row.streamId, row.startNs, row.endNs, row.correlationId,
                                         row.value, row.bytes, code(row.dstKind),
                                         int64_t{row.isAsync});
}

int64_t SessionWriter::addSync(const SyncRow& row) {
    return insertEvent<tables::kSyncs>(row.threadId, code(row.kind), row.startNs, row.endNs,
                                       row.correlationId, row.streamId, row.eventId, row.stackId);
}

int64_t SessionWriter::addCudaEvent(const CudaEventRow& row) {
    return insertEvent<tables::kCudaEvents>(row.streamId, row.eventId, row.correlationId,
                                            row.recordNs);
}

int64_t SessionWriter::addRange(const RangeRow& row) {
    return insertEvent<tables::kRanges>(row.threadId, code(row.kind), row.nameId, row.startNs,
                                        row.endNs, row.depth);
}

int64_t SessionWriter::addHostSample(const HostSampleRow& row) {
    return insert<tables::kHostSamples>(row.threadId, row.startNs, row.endNs, row.samples,
                                        row.stackId);
}

int64_t SessionWriter::addCollectiveCall(const CollectiveCallRow& row) {
    return insert<tables::kCollectiveCalls>(row.processId, row.correlationId, row.function,
                                            row.datatype, row.count, row.bytes, row.calls);
}

int64_t SessionWriter::addCaptureInterval(const CaptureIntervalRow& row) {
    return insert<tables::kCaptureIntervals>(row.processId, row.startNs, row.endNs, row.openedBy,
                                             row.closedBy);
}

void SessionWriter::endCaptureInterval(int64_t intervalId, int64_t endNs,
                                       std::string_view closedBy) {
    m_captureEnd.bindAll(endNs, closedBy, intervalId);
    execute(m_captureEnd);
}

void SessionWriter::addDropped(const DroppedRow& row) {
    insert<tables::kDropped>(row.processId, row.atNs, row.source, row.count);
}

void SessionWriter::addDiagnostic(int64_t atNs, std::string_view severity,
                                  std::string_view message) {
    insert<tables::kDiagnostics>(atNs, severity, message);
}

bool SessionWriter::commit() {
    return exec("COMMIT") && exec("BEGIN");
}

void SessionWriter::discardThrough(const RowMarks& marks, int64_t cutNs, std::string_view reason) {
    if (!ok())
        return;
    if (!m_cutProcesses.prepared()) { // the first cut: a recording without a ring never gets here
        for (size_t i = 0; i < kAgingTables.size(); ++i)
            m_discards[i] = m_db.prepare(
                "DELETE FROM " + std::string(kAgingTables[i]->name) + " WHERE rowid <= ?", true);
        m_discardClosedIntervals = m_db.prepare(
            CheckedSql("DELETE FROM {capture_intervals} WHERE {capture_intervals.end_ns} <= ?")
                .text(),
            true);
        m_cutOpenIntervals = m_db.prepare(
            CheckedSql("UPDATE {capture_intervals} SET {capture_intervals.start_ns} = ?1, "
                       "{capture_intervals.opened_by} = ?2 WHERE {capture_intervals.start_ns} < ?1")
                .text(),
            true);
        m_cutProcesses = m_db.prepare(CheckedSql("UPDATE {processes} SET {processes.start_ns} = ?1 "
                                                 "WHERE {processes.start_ns} < ?1")
                                          .text(),
                                      true);
    }
    for (size_t i = 0; i < kAgingTables.size(); ++i) {
        m_discards[i].bindAll(marks[tableIndex(*kAgingTables[i])]);
        execute(m_discards[i]);
    }
    m_discardClosedIntervals.bindAll(cutNs);
    execute(m_discardClosedIntervals);
    m_cutOpenIntervals.bindAll(cutNs, reason);
    execute(m_cutOpenIntervals);
    m_cutProcesses.bindAll(cutNs);
    execute(m_cutProcesses);
}

bool SessionWriter::writeSnapshot(const std::string& path, int64_t atNs, std::string_view closedBy,
                                  std::string_view status,
                                  const std::vector<std::pair<std::string, std::string>>& meta,
                                  std::string* error) {
    auto failed = [&](const std::string& why) {
        if (error)
            *error = path + ": " + why;
        return false;
    };
    if (!exec("COMMIT"))
        return failed(m_error);
    // VACUUM runs outside a transaction; it reads what is committed, as any reader would.
    Statement vacuum = m_db.prepare("VACUUM INTO ?", true);
    const bool copied = !vacuum.failed() && vacuum.execute(path);
    const std::string copyError = copied ? "" : vacuum.error();
    vacuum = Statement();
    if (!exec("BEGIN"))
        return failed(m_error);
    if (!copied)
        return failed("cannot write the snapshot (" + copyError + ")");

    Database copy;
    std::string openError;
    if (!copy.open(path, Database::Mode::ReadWrite, &openError))
        return failed("cannot open the snapshot: " + openError);
    std::string sqlError;
    bool done = copy.exec("PRAGMA journal_mode=DELETE; BEGIN", &sqlError);
    auto run = [&](std::string_view sql, auto... values) {
        if (!done)
            return;
        Statement statement = copy.prepare(sql);
        done = !statement.failed() && statement.execute(values...);
        if (!done)
            sqlError = statement.error();
    };
    run(CheckedSql("UPDATE {capture_intervals} SET {capture_intervals.end_ns} = ?, "
                   "{capture_intervals.closed_by} = ? WHERE {capture_intervals.end_ns} IS NULL")
            .text(),
        atNs, closedBy);
    run(CheckedSql("UPDATE {processes} SET {processes.end_ns} = ? WHERE {processes.end_ns} IS NULL")
            .text(),
        atNs);
    const std::string setMetaSql = insertSql(tables::kMeta, "INSERT OR REPLACE");
    for (const auto& [key, value] : meta)
        run(setMetaSql, key, value);
    run(setMetaSql, meta::kStatus, status);
    if (done)
        done = copy.exec(std::string(kIndexSql) + "COMMIT", &sqlError);
    if (!copy.close() && done)
        return failed("cannot close the snapshot (" + copy.lastMessage() + ")");
    return done || failed("cannot finish the snapshot (" + sqlError + ")");
}

bool SessionWriter::finish(std::string_view status) {
    setMeta(meta::kStatus, status);
    exec(kIndexSql);
    exec("COMMIT");
    // A finished session is one self-contained file (no -wal/-shm), readable on read-only media.
    exec("PRAGMA journal_mode=DELETE");
    const bool succeeded = ok();
    finalizeStatements();
    if (!m_db.close() && succeeded)
        fail("cannot close", m_db.lastMessage());
    return succeeded && ok();
}

} // namespace stallscope::format
