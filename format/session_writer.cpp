#include "format/session_writer.h"

#include <sqlite3.h>

#include <cstdio>
#include <string>

namespace stallscope::format {

namespace {

void bindOptional(sqlite3_stmt* statement, int index, const std::optional<int64_t>& value) {
    if (value)
        sqlite3_bind_int64(statement, index, *value);
    else
        sqlite3_bind_null(statement, index);
}

void bindText(sqlite3_stmt* statement, int index, std::string_view text) {
    // A default-constructed string_view has a null data(), which SQLite would store as NULL.
    sqlite3_bind_text(statement, index, text.data() ? text.data() : "",
                      static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void bindOptionalText(sqlite3_stmt* statement, int index, const std::optional<std::string>& text) {
    if (text)
        bindText(statement, index, *text);
    else
        sqlite3_bind_null(statement, index);
}

} // namespace

// Prepared once; every add* binds and steps one of these.
struct SessionWriter::Statements {
    sqlite3_stmt* meta = nullptr;
    sqlite3_stmt* string = nullptr;
    sqlite3_stmt* process = nullptr;
    sqlite3_stmt* processEnd = nullptr;
    sqlite3_stmt* thread = nullptr;
    sqlite3_stmt* threadName = nullptr;
    sqlite3_stmt* device = nullptr;
    sqlite3_stmt* stream = nullptr;
    sqlite3_stmt* module = nullptr;
    sqlite3_stmt* frame = nullptr;
    sqlite3_stmt* stack = nullptr;
    sqlite3_stmt* stackFrame = nullptr;
    sqlite3_stmt* source = nullptr;
    sqlite3_stmt* apiCall = nullptr;
    sqlite3_stmt* kernel = nullptr;
    sqlite3_stmt* memcpy = nullptr;
    sqlite3_stmt* memset = nullptr;
    sqlite3_stmt* sync = nullptr;
    sqlite3_stmt* cudaEvent = nullptr;
    sqlite3_stmt* range = nullptr;
    sqlite3_stmt* dropped = nullptr;
    sqlite3_stmt* diagnostic = nullptr;

    void finalizeAll() {
        for (sqlite3_stmt** s :
             {&meta,   &string, &process,   &processEnd, &thread,  &threadName, &device, &stream,
              &module, &frame,  &stack,     &stackFrame, &source,  &apiCall,    &kernel, &memcpy,
              &memset, &sync,   &cudaEvent, &range,      &dropped, &diagnostic}) {
            sqlite3_finalize(*s);
            *s = nullptr;
        }
    }
};

std::unique_ptr<SessionWriter> SessionWriter::create(const std::string& path, std::string* error) {
    std::unique_ptr<SessionWriter> writer(new SessionWriter());
    writer->m_path = path;
    // Replace an older file (and its WAL) rather than appending to a foreign database.
    std::remove(path.c_str());
    std::remove((path + "-wal").c_str());
    std::remove((path + "-shm").c_str());
    if (sqlite3_open_v2(path.c_str(), &writer->m_db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
        if (error)
            *error = path + ": cannot create session file: " +
                     (writer->m_db ? sqlite3_errmsg(writer->m_db) : "out of memory");
        return nullptr;
    }
    // WAL + synchronous=NORMAL: a commit survives a killed process; fsync only at checkpoints.
    // 16 KiB pages: fewer B-tree splits for the long integer-only event tables. Rows are appended
    // to the tables' ends, so a small page cache (1 MiB) suffices — it is memory in the recorded
    // process and a fixed cost of every import.
    writer->exec("PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                 "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-1024;");
    writer->exec("BEGIN");
    writer->exec(kSchemaSql);
    auto& s = *(writer->m_statements = std::make_unique<Statements>());
    s.meta = writer->prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
    s.string = writer->prepare("INSERT INTO strings(text) VALUES (?)");
    s.process = writer->prepare("INSERT INTO processes(pid, host, command, start_ns, end_ns, "
                                "exit_code) VALUES (?, ?, ?, ?, ?, ?)");
    s.processEnd = writer->prepare("UPDATE processes SET end_ns = ?, exit_code = ? WHERE id = ?");
    s.thread = writer->prepare("INSERT INTO threads(process_id, tid, name) VALUES (?, ?, ?)");
    s.threadName = writer->prepare("UPDATE threads SET name = ? WHERE id = ?");
    s.device = writer->prepare(
        "INSERT INTO devices(process_id, device_index, name, uuid, compute_major, compute_minor, "
        "sm_count, global_memory_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    s.stream = writer->prepare("INSERT INTO streams(device_id, context_id, stream_id, is_default, "
                               "priority) VALUES (?, ?, ?, ?, ?)");
    s.module = writer->prepare("INSERT INTO modules(process_id, path, load_bias, start_address, "
                               "end_address, build_id, loaded_ns) VALUES (?, ?, ?, ?, ?, ?, ?)");
    s.frame = writer->prepare("INSERT INTO frames(kind, address, module_id, function, file, line, "
                              "column, symbolized) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    s.stack = writer->prepare("INSERT INTO stacks(hash, depth) VALUES (?, ?)");
    s.stackFrame =
        writer->prepare("INSERT INTO stack_frames(stack_id, position, frame_id) VALUES (?, ?, ?)");
    s.source = writer->prepare("INSERT OR REPLACE INTO sources(path, sha256, size_bytes, "
                               "truncated, text) VALUES (?, ?, ?, ?, ?)");
    s.apiCall =
        writer->prepare("INSERT INTO api_calls(thread_id, domain, cbid, name_id, start_ns, end_ns, "
                        "correlation_id, return_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    s.kernel = writer->prepare(
        "INSERT INTO kernels(stream_id, name_id, start_ns, end_ns, correlation_id, grid_x, "
        "grid_y, grid_z, block_x, block_y, block_z, registers_per_thread, static_shared_bytes, "
        "dynamic_shared_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.memcpy = writer->prepare(
        "INSERT INTO memcpys(stream_id, start_ns, end_ns, correlation_id, copy_kind, src_kind, "
        "dst_kind, bytes, is_async) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.memset = writer->prepare(
        "INSERT INTO memsets(stream_id, start_ns, end_ns, correlation_id, value, bytes, "
        "dst_kind, is_async) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    s.sync = writer->prepare(
        "INSERT INTO syncs(thread_id, kind, start_ns, end_ns, correlation_id, stream_id, "
        "event_id, stack_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    s.cudaEvent = writer->prepare("INSERT INTO cuda_events(stream_id, event_id, correlation_id, "
                                  "record_ns) VALUES (?, ?, ?, ?)");
    s.range = writer->prepare("INSERT INTO ranges(thread_id, kind, name_id, start_ns, end_ns, "
                              "depth) VALUES (?, ?, ?, ?, ?, ?)");
    s.dropped = writer->prepare(
        "INSERT INTO dropped(process_id, at_ns, source, count) VALUES (?, ?, ?, ?)");
    s.diagnostic =
        writer->prepare("INSERT INTO diagnostics(at_ns, severity, message) VALUES (?, ?, ?)");

    writer->setMeta("format_name", kFormatName);
    writer->setMeta("format_version", std::to_string(kFormatVersion));
    writer->setMeta("clock", kClockName);
    writer->setMeta("status", kStatusRecording);
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
    if (m_statements)
        m_statements->finalizeAll();
    if (m_db) {
        // Destroyed without finish(): keep what was written, leave status "recording".
        sqlite3_exec(m_db, "COMMIT", nullptr, nullptr, nullptr);
        sqlite3_close_v2(m_db);
    }
}

void SessionWriter::fail(std::string_view what) {
    if (!m_error.empty())
        return;
    m_error = m_path + ": " + std::string(what) + ": " + (m_db ? sqlite3_errmsg(m_db) : "closed");
}

bool SessionWriter::exec(std::string_view sql) {
    if (!ok() || !m_db)
        return false;
    char* message = nullptr;
    if (sqlite3_exec(m_db, std::string(sql).c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        std::string what = "SQL failed (" + std::string(message ? message : "?") + ")";
        sqlite3_free(message);
        fail(what);
        return false;
    }
    return true;
}

sqlite3_stmt* SessionWriter::prepare(std::string_view sql) {
    sqlite3_stmt* statement = nullptr;
    if (ok() && sqlite3_prepare_v3(m_db, sql.data(), static_cast<int>(sql.size()),
                                   SQLITE_PREPARE_PERSISTENT, &statement, nullptr) != SQLITE_OK)
        fail("cannot prepare statement");
    return statement;
}

bool SessionWriter::stepAndReset(sqlite3_stmt* statement) {
    if (!ok() || !statement)
        return false;
    const int rc = sqlite3_step(statement);
    // No sqlite3_clear_bindings: every add* binds every column of its statement.
    sqlite3_reset(statement);
    if (rc != SQLITE_DONE) {
        fail("write failed");
        return false;
    }
    return true;
}

int64_t SessionWriter::insert(sqlite3_stmt* statement) {
    return stepAndReset(statement) ? sqlite3_last_insert_rowid(m_db) : 0;
}

void SessionWriter::setMeta(std::string_view key, std::string_view value) {
    if (!ok())
        return;
    bindText(m_statements->meta, 1, key);
    bindText(m_statements->meta, 2, value);
    stepAndReset(m_statements->meta);
}

int64_t SessionWriter::internString(std::string_view text) {
    std::string key(text);
    if (auto found = m_strings.find(key); found != m_strings.end())
        return found->second;
    if (!ok())
        return 0;
    bindText(m_statements->string, 1, text);
    const int64_t id = insert(m_statements->string);
    if (id)
        m_strings.emplace(std::move(key), id);
    return id;
}

int64_t SessionWriter::addProcess(const ProcessRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->process;
    sqlite3_bind_int64(s, 1, row.pid);
    bindText(s, 2, row.host);
    bindText(s, 3, row.command);
    sqlite3_bind_int64(s, 4, row.startNs);
    bindOptional(s, 5, row.endNs);
    bindOptional(s, 6, row.exitCode);
    return insert(s);
}

void SessionWriter::finishProcess(int64_t processId, int64_t endNs,
                                  std::optional<int64_t> exitCode) {
    if (!ok())
        return;
    auto* s = m_statements->processEnd;
    sqlite3_bind_int64(s, 1, endNs);
    bindOptional(s, 2, exitCode);
    sqlite3_bind_int64(s, 3, processId);
    stepAndReset(s);
}

int64_t SessionWriter::addThread(const ThreadRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->thread;
    sqlite3_bind_int64(s, 1, row.processId);
    sqlite3_bind_int64(s, 2, row.tid);
    bindText(s, 3, row.name);
    return insert(s);
}

void SessionWriter::setThreadName(int64_t threadId, std::string_view name) {
    if (!ok())
        return;
    bindText(m_statements->threadName, 1, name);
    sqlite3_bind_int64(m_statements->threadName, 2, threadId);
    stepAndReset(m_statements->threadName);
}

int64_t SessionWriter::addDevice(const DeviceRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->device;
    sqlite3_bind_int64(s, 1, row.processId);
    sqlite3_bind_int64(s, 2, row.deviceIndex);
    bindText(s, 3, row.name);
    bindText(s, 4, row.uuid);
    sqlite3_bind_int64(s, 5, row.computeMajor);
    sqlite3_bind_int64(s, 6, row.computeMinor);
    sqlite3_bind_int64(s, 7, row.smCount);
    sqlite3_bind_int64(s, 8, row.globalMemoryBytes);
    return insert(s);
}

int64_t SessionWriter::addStream(const StreamRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->stream;
    sqlite3_bind_int64(s, 1, row.deviceId);
    sqlite3_bind_int64(s, 2, row.contextId);
    sqlite3_bind_int64(s, 3, row.streamId);
    sqlite3_bind_int(s, 4, row.isDefault ? 1 : 0);
    sqlite3_bind_int64(s, 5, row.priority);
    return insert(s);
}

int64_t SessionWriter::addModule(const ModuleRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->module;
    sqlite3_bind_int64(s, 1, row.processId);
    bindText(s, 2, row.path);
    sqlite3_bind_int64(s, 3, row.loadBias);
    sqlite3_bind_int64(s, 4, row.startAddress);
    sqlite3_bind_int64(s, 5, row.endAddress);
    bindText(s, 6, row.buildId);
    sqlite3_bind_int64(s, 7, row.loadedNs);
    return insert(s);
}

int64_t SessionWriter::addFrame(const FrameRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->frame;
    sqlite3_bind_int(s, 1, static_cast<int>(row.kind));
    bindOptional(s, 2, row.address);
    bindOptional(s, 3, row.moduleId);
    bindOptionalText(s, 4, row.function);
    bindOptionalText(s, 5, row.file);
    bindOptional(s, 6, row.line);
    bindOptional(s, 7, row.column);
    // Python frames arrive resolved; native ones wait for the symbolizer.
    sqlite3_bind_int(s, 8, row.kind == FrameKind::Python ? 1 : 0);
    return insert(s);
}

int64_t SessionWriter::addStack(uint64_t hash, std::span<const int64_t> frameIds) {
    if (!ok())
        return 0;
    sqlite3_bind_int64(m_statements->stack, 1, static_cast<int64_t>(hash));
    sqlite3_bind_int64(m_statements->stack, 2, static_cast<int64_t>(frameIds.size()));
    const int64_t stackId = insert(m_statements->stack);
    for (size_t position = 0; position < frameIds.size() && ok(); ++position) {
        auto* s = m_statements->stackFrame;
        sqlite3_bind_int64(s, 1, stackId);
        sqlite3_bind_int64(s, 2, static_cast<int64_t>(position));
        sqlite3_bind_int64(s, 3, frameIds[position]);
        stepAndReset(s);
    }
    return ok() ? stackId : 0;
}

int64_t SessionWriter::addSource(const SourceRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->source;
    bindText(s, 1, row.path);
    bindText(s, 2, row.sha256);
    sqlite3_bind_int64(s, 3, row.sizeBytes);
    sqlite3_bind_int(s, 4, row.truncated ? 1 : 0);
    bindText(s, 5, row.text);
    return insert(s);
}

int64_t SessionWriter::addApiCall(const ApiCallRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->apiCall;
    sqlite3_bind_int64(s, 1, row.threadId);
    sqlite3_bind_int(s, 2, static_cast<int>(row.domain));
    sqlite3_bind_int64(s, 3, row.cbid);
    sqlite3_bind_int64(s, 4, row.nameId);
    sqlite3_bind_int64(s, 5, row.startNs);
    sqlite3_bind_int64(s, 6, row.endNs);
    sqlite3_bind_int64(s, 7, row.correlationId);
    sqlite3_bind_int64(s, 8, row.returnCode);
    ++m_eventCount;
    return insert(s);
}

int64_t SessionWriter::addKernel(const KernelRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->kernel;
    sqlite3_bind_int64(s, 1, row.streamId);
    sqlite3_bind_int64(s, 2, row.nameId);
    sqlite3_bind_int64(s, 3, row.startNs);
    sqlite3_bind_int64(s, 4, row.endNs);
    sqlite3_bind_int64(s, 5, row.correlationId);
    for (int i = 0; i < 3; ++i) {
        sqlite3_bind_int(s, 6 + i, row.grid[i]);
        sqlite3_bind_int(s, 9 + i, row.block[i]);
    }
    sqlite3_bind_int(s, 12, row.registersPerThread);
    sqlite3_bind_int(s, 13, row.staticSharedBytes);
    sqlite3_bind_int(s, 14, row.dynamicSharedBytes);
    ++m_eventCount;
    return insert(s);
}

int64_t SessionWriter::addMemcpy(const MemcpyRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->memcpy;
    sqlite3_bind_int64(s, 1, row.streamId);
    sqlite3_bind_int64(s, 2, row.startNs);
    sqlite3_bind_int64(s, 3, row.endNs);
    sqlite3_bind_int64(s, 4, row.correlationId);
    sqlite3_bind_int(s, 5, static_cast<int>(row.copyKind));
    sqlite3_bind_int(s, 6, static_cast<int>(row.srcKind));
    sqlite3_bind_int(s, 7, static_cast<int>(row.dstKind));
    sqlite3_bind_int64(s, 8, row.bytes);
    sqlite3_bind_int(s, 9, row.isAsync ? 1 : 0);
    ++m_eventCount;
    return insert(s);
}

int64_t SessionWriter::addMemset(const MemsetRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->memset;
    sqlite3_bind_int64(s, 1, row.streamId);
    sqlite3_bind_int64(s, 2, row.startNs);
    sqlite3_bind_int64(s, 3, row.endNs);
    sqlite3_bind_int64(s, 4, row.correlationId);
    sqlite3_bind_int64(s, 5, row.value);
    sqlite3_bind_int64(s, 6, row.bytes);
    sqlite3_bind_int(s, 7, static_cast<int>(row.dstKind));
    sqlite3_bind_int(s, 8, row.isAsync ? 1 : 0);
    ++m_eventCount;
    return insert(s);
}

int64_t SessionWriter::addSync(const SyncRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->sync;
    sqlite3_bind_int64(s, 1, row.threadId);
    sqlite3_bind_int(s, 2, static_cast<int>(row.kind));
    sqlite3_bind_int64(s, 3, row.startNs);
    sqlite3_bind_int64(s, 4, row.endNs);
    sqlite3_bind_int64(s, 5, row.correlationId);
    bindOptional(s, 6, row.streamId);
    bindOptional(s, 7, row.eventId);
    bindOptional(s, 8, row.stackId);
    ++m_eventCount;
    return insert(s);
}

int64_t SessionWriter::addCudaEvent(const CudaEventRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->cudaEvent;
    sqlite3_bind_int64(s, 1, row.streamId);
    sqlite3_bind_int64(s, 2, row.eventId);
    sqlite3_bind_int64(s, 3, row.correlationId);
    sqlite3_bind_int64(s, 4, row.recordNs);
    ++m_eventCount;
    return insert(s);
}

int64_t SessionWriter::addRange(const RangeRow& row) {
    if (!ok())
        return 0;
    auto* s = m_statements->range;
    sqlite3_bind_int64(s, 1, row.threadId);
    sqlite3_bind_int(s, 2, static_cast<int>(row.kind));
    sqlite3_bind_int64(s, 3, row.nameId);
    sqlite3_bind_int64(s, 4, row.startNs);
    sqlite3_bind_int64(s, 5, row.endNs);
    sqlite3_bind_int64(s, 6, row.depth);
    ++m_eventCount;
    return insert(s);
}

void SessionWriter::addDropped(const DroppedRow& row) {
    if (!ok())
        return;
    auto* s = m_statements->dropped;
    bindOptional(s, 1, row.processId);
    sqlite3_bind_int64(s, 2, row.atNs);
    bindText(s, 3, row.source);
    sqlite3_bind_int64(s, 4, row.count);
    stepAndReset(s);
}

void SessionWriter::addDiagnostic(int64_t atNs, std::string_view severity,
                                  std::string_view message) {
    if (!ok())
        return;
    auto* s = m_statements->diagnostic;
    sqlite3_bind_int64(s, 1, atNs);
    bindText(s, 2, severity);
    bindText(s, 3, message);
    stepAndReset(s);
}

bool SessionWriter::commit() {
    return exec("COMMIT") && exec("BEGIN");
}

bool SessionWriter::finish(std::string_view status) {
    setMeta("status", status);
    exec(kIndexSql);
    exec("COMMIT");
    // A finished session is one self-contained file (no -wal/-shm), readable on read-only media.
    exec("PRAGMA journal_mode=DELETE");
    const bool succeeded = ok();
    m_statements->finalizeAll();
    if (sqlite3_close(m_db) != SQLITE_OK && succeeded)
        fail("cannot close");
    m_db = nullptr;
    return succeeded && ok();
}

} // namespace stallscope::format
