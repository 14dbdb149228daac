#include "model/session/session_loader.h"

#include "format/session_meta.h"
#include "format/session_row_reader.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "model/session/session_file_check.h"
#include "model/session/sync_callers.h"

#include <algorithm>
#include <array>
#include <limits>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

namespace stallscope::model {

namespace {

constexpr int64_t kNoIndex = -1;

// Maps table row ids to indexes in the session's vectors.
class RowIndex {
public:
    void add(int64_t rowId, int32_t index) { m_map.emplace(rowId, index); }
    int32_t find(int64_t rowId) const {
        const auto found = m_map.find(rowId);
        return found == m_map.end() ? kNoIndex : found->second;
    }

private:
    std::unordered_map<int64_t, int32_t> m_map;
};

// Thrown inside the loader only (never across its API) to unwind with a message.
struct LoadFailure {
    std::string message;
};

struct Cancelled {};

// Shared state of the table readers running in parallel.
struct ReadContext {
    const std::string* path = nullptr;
    const LoadOptions* options = nullptr;
    const RowIndex* threads = nullptr;
    const RowIndex* streams = nullptr;
    size_t stringCount = 0;
    int64_t estimatedRows = 1;
    std::atomic<int64_t> rowsRead{0};
    std::mutex progressMutex; // the readers report in turn: LoadOptions::progress is not reentrant

    // Called by each reader every few thousand rows; reading is 90 % of the load.
    void addRowsRead(int64_t rows) {
        rowsRead += rows;
        if (!options->progress)
            return;
        std::lock_guard lock(progressMutex);
        // Read under the lock, so that the fractions reported never go down.
        options->progress(0.9 * std::min(1.0, double(rowsRead.load()) / double(estimatedRows)));
    }
};

// Per-worker time bounds, merged at the end.
struct TimeBounds {
    int64_t first = std::numeric_limits<int64_t>::max();
    int64_t last = std::numeric_limits<int64_t>::min();
    void add(int64_t start, int64_t end) {
        first = std::min(first, start);
        last = std::max(last, end);
    }
};

class TableReader {
public:
    TableReader(ReadContext& context, Session& session) : m_context(context), m_session(session) {}

    void open() {
        std::string error;
        if (!format::openSession(m_connection, *m_context.path, &error))
            throw LoadFailure{"cannot open: " + error};
    }

    void readApiCalls() {
        scan(format::tables::kApiCalls,
             format::selectSql<format::tables::kApiCalls>(
                 {"id", "thread_id", "start_ns", "end_ns", "name_id", "correlation_id"}),
             [this](format::Statement& row) { pushNamedEvent(hostLane(row, 1).apiCalls, row); });
    }

    void readSyncs() {
        scan(format::tables::kSyncs,
             format::selectSql<format::tables::kSyncs>({"id", "thread_id", "start_ns", "end_ns",
                                                        "kind", "correlation_id", "stream_id",
                                                        "stack_id", "event_id"}),
             [this](format::Statement& row) {
                 SyncColumns& syncs = hostLane(row, 1).syncs;
                 pushInterval(syncs, row);
                 const int64_t kind = row.integer(4);
                 if (kind < 1 || kind > format::kSyncKindMax)
                     throw LoadFailure{"corrupt session: syncs row " +
                                       std::to_string(row.integer(0)) + " has unknown kind " +
                                       std::to_string(kind)};
                 syncs.kind.push_back(static_cast<uint8_t>(kind));
                 syncs.correlationId.push_back(static_cast<uint32_t>(row.integer(5)));
                 syncs.streamIndex.push_back(
                     row.isNull(6) ? -1 : streamIndex(row.integer(6), "syncs", row.integer(0)));
                 syncs.stackId.push_back(row.isNull(7) ? 0u
                                                       : static_cast<uint32_t>(row.integer(7)));
                 syncs.eventId.push_back(row.isNull(8) ? -1 : row.integer(8));
             });
    }

    void readRanges() {
        scan(format::tables::kRanges,
             format::selectSql<format::tables::kRanges>(
                 {"id", "thread_id", "start_ns", "end_ns", "name_id", "depth"}),
             [this](format::Statement& row) {
                 HostLane& lane = hostLane(row, 1);
                 const int64_t depth = row.integer(5);
                 if (depth < 0 || depth > 255)
                     throw LoadFailure{"corrupt session: ranges row " +
                                       std::to_string(row.integer(0)) + " has depth " +
                                       std::to_string(depth)};
                 if (lane.rangesByDepth.size() <= static_cast<size_t>(depth))
                     lane.rangesByDepth.resize(depth + 1);
                 RangeColumns& ranges = lane.rangesByDepth[depth];
                 pushInterval(ranges, row);
                 ranges.nameId.push_back(stringId(row.integer(4), "ranges"));
             });
    }

    void readKernels() {
        scan(format::tables::kKernels,
             format::selectSql<format::tables::kKernels>(
                 {"id", "stream_id", "start_ns", "end_ns", "name_id", "correlation_id"}),
             [this](format::Statement& row) {
                 pushNamedEvent(streamLane(row, "kernels").kernels, row);
             });
    }

    void readMemcpys() {
        scan(format::tables::kMemcpys,
             format::selectSql<format::tables::kMemcpys>({"id", "stream_id", "start_ns", "end_ns",
                                                          "correlation_id", "bytes", "copy_kind",
                                                          "src_kind", "dst_kind"}),
             [this](format::Statement& row) {
                 pushTransfer(streamLane(row, "memcpys").memcpys, row,
                              {row.integer(6), row.integer(7), row.integer(8)});
             });
    }

    void readMemsets() {
        scan(format::tables::kMemsets,
             format::selectSql<format::tables::kMemsets>(
                 {"id", "stream_id", "start_ns", "end_ns", "correlation_id", "bytes", "dst_kind"}),
             [this](format::Statement& row) {
                 // A memset has no copy direction and no source.
                 pushTransfer(streamLane(row, "memsets").memsets, row, {0, 0, row.integer(6)});
             });
    }

    const TimeBounds& bounds() const { return m_bounds; }

private:
    template <typename OnRow>
    void scan(const format::Table& table, const std::string& sql, OnRow onRow) {
        m_table = table.name;
        format::Statement statement = m_connection.prepare(sql);
        if (!statement.prepared())
            throw LoadFailure{"corrupt session: cannot read table '" + std::string(table.name) +
                              "': " + m_connection.lastMessage()};
        int64_t pending = 0;
        while (statement.step()) {
            onRow(statement);
            if (++pending == 65536) {
                m_context.addRowsRead(pending);
                pending = 0;
                if (m_context.options->cancel && m_context.options->cancel->load())
                    throw Cancelled{};
            }
        }
        m_context.addRowsRead(pending);
        if (statement.failed())
            throw LoadFailure{"corrupt session: reading table '" + std::string(table.name) +
                              "' failed: " + m_connection.lastMessage()};
    }

    void pushInterval(IntervalColumns& columns, format::Statement& row) {
        const int64_t rowId = row.integer(0);
        const int64_t start = row.integer(2);
        const int64_t end = row.integer(3);
        if (rowId < 0 || rowId > std::numeric_limits<uint32_t>::max())
            throw LoadFailure{"unsupported session: " + m_table + " row id " +
                              std::to_string(rowId) + " exceeds 2^32"};
        if (end < start)
            throw LoadFailure{"corrupt session: " + m_table + " row " + std::to_string(rowId) +
                              " ends before it starts"};
        columns.pushInterval(start, end, static_cast<uint32_t>(rowId));
        m_bounds.add(start, end);
    }

    // An API call or kernel row: id, lane, start_ns, end_ns, name_id, correlation_id.
    void pushNamedEvent(NamedEventColumns& columns, format::Statement& row) {
        pushInterval(columns, row);
        columns.nameId.push_back(stringId(row.integer(4), m_table.c_str()));
        columns.correlationId.push_back(static_cast<uint32_t>(row.integer(5)));
    }

    struct TransferKinds {
        int64_t copy; // format::CopyKind
        int64_t src;  // format::MemoryKind
        int64_t dst;  // format::MemoryKind
    };
    // A memcpy or memset row: id, stream_id, start_ns, end_ns, correlation_id, bytes, ...
    void pushTransfer(TransferColumns& columns, format::Statement& row, TransferKinds kinds) {
        pushInterval(columns, row);
        columns.correlationId.push_back(static_cast<uint32_t>(row.integer(4)));
        columns.bytes.push_back(static_cast<uint64_t>(row.integer(5)));
        columns.copyKind.push_back(static_cast<uint8_t>(kinds.copy));
        columns.srcKind.push_back(static_cast<uint8_t>(kinds.src));
        columns.dstKind.push_back(static_cast<uint8_t>(kinds.dst));
    }

    HostLane& hostLane(format::Statement& row, int column) {
        const int32_t index = m_context.threads->find(row.integer(column));
        if (index == kNoIndex)
            throw LoadFailure{"corrupt session: " + m_table + " row " +
                              std::to_string(row.integer(0)) + " names unknown thread " +
                              std::to_string(row.integer(column))};
        return m_session.hostLanes[index];
    }

    StreamLane& streamLane(format::Statement& row, const char* table) {
        return m_session.streamLanes[streamIndex(row.integer(1), table, row.integer(0))];
    }

    int32_t streamIndex(int64_t streamRowId, const char* table, int64_t rowId) {
        const int32_t index = m_context.streams->find(streamRowId);
        if (index == kNoIndex)
            throw LoadFailure{"corrupt session: " + std::string(table) + " row " +
                              std::to_string(rowId) + " names unknown stream " +
                              std::to_string(streamRowId)};
        return index;
    }

    uint32_t stringId(int64_t id, const char* table) {
        if (id < 0 || static_cast<size_t>(id) >= m_context.stringCount)
            throw LoadFailure{"corrupt session: " + std::string(table) + " names unknown string " +
                              std::to_string(id)};
        return static_cast<uint32_t>(id);
    }

    ReadContext& m_context;
    Session& m_session;
    format::Database m_connection;
    TimeBounds m_bounds;
    std::string m_table;
};

class Loader {
public:
    Loader(const std::string& path, const LoadOptions& options)
        : m_path(path), m_options(options), m_session(std::make_unique<Session>()) {
        m_session->path = path;
    }

    std::unique_ptr<Session> run() {
        if (const std::string problem = checkSqliteFile(m_path); !problem.empty())
            throw LoadFailure{problem};
        std::string error;
        if (!m_db.open(m_path, format::Database::Mode::ReadOnly, &error))
            throw LoadFailure{"cannot open: " + error};
        checkTables();
        readMeta();
        readDescriptions();
        readEvents();
        return std::move(m_session);
    }

private:
    void checkTables() {
        format::Statement tables =
            m_db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
        std::set<std::string> present;
        while (tables.step())
            present.insert(tables.text(0));
        if (tables.failed() || !tables.prepared()) {
            const std::string message = m_db.lastMessage();
            if (message.find("not a database") != std::string::npos)
                throw LoadFailure{"not a Stallscope session (not an SQLite database)"};
            throw LoadFailure{"corrupt session: " + message};
        }
        if (!present.count("meta"))
            throw LoadFailure{"not a Stallscope session (an SQLite database without a 'meta' "
                              "table)"};
        // Before its first read: the whole schema is checked once the version is known.
        if (const std::string problem = format::checkTableSchema(m_db, format::tables::kMeta);
            !problem.empty())
            throw LoadFailure{"not a Stallscope session (" + problem + ")"};
    }

    // Accepts 1..kFormatVersion; a newer file is refused (LoadFailure messages are prefixed with
    // the file's path by SessionLoader::load).
    static int readFormatVersion(const std::string& text) {
        int version = 0;
        try {
            version = std::stoi(text);
        } catch (...) {
            throw LoadFailure{"corrupt session: format version '" + text + "' is not a number"};
        }
        if (version > format::kFormatVersion)
            throw LoadFailure{"session format version " + text +
                              " is newer than this Stallscope reads (" +
                              std::to_string(format::kFormatVersion) + "); update Stallscope"};
        if (version < 1)
            throw LoadFailure{"corrupt session: format version " + text};
        return version;
    }

    // Brings an older file's content up to kFormatVersion in memory (the file is never changed):
    // step i turns version i + 1 into version i + 2, so kUpgradeSteps has kFormatVersion - 1
    // entries. Format v1 is the first version: no steps yet.
    void upgradeToCurrentVersion(int version) {
        using UpgradeStep = void (Loader::*)();
        static constexpr std::array<UpgradeStep, format::kFormatVersion - 1> kUpgradeSteps = {};
        for (int from = version; from < format::kFormatVersion; ++from)
            (this->*kUpgradeSteps[from - 1])();
    }

    void readMeta() {
        format::Statement rows = m_db.prepare("SELECT key, value FROM meta");
        while (rows.step())
            m_session->meta[rows.text(0)] = rows.text(1);
        if (rows.failed() || !rows.prepared())
            throw LoadFailure{"corrupt session: cannot read table 'meta': " + m_db.lastMessage()};
        Session& s = *m_session;
        if (s.metaValue(format::meta::kFormatName) != format::kFormatName)
            throw LoadFailure{"not a Stallscope session (meta.format_name is '" +
                              s.metaValue(format::meta::kFormatName) + "')"};
        s.formatVersion = readFormatVersion(s.metaValue(format::meta::kFormatVersion));
        if (const std::string problem = format::checkSessionSchema(m_db); !problem.empty())
            throw LoadFailure{problem};
        upgradeToCurrentVersion(s.formatVersion);

        s.status = s.metaValue(format::meta::kStatus);
        if (s.status == format::kStatusRecording)
            s.warning = "the recording did not finish (the recorder was killed or is still "
                        "running): events after its last commit are missing";
        else if (s.status == format::kStatusIncomplete)
            s.warning = "the recording is incomplete: " +
                        (s.metaValue(format::meta::kIncompleteReason).empty()
                             ? std::string("the target ended abnormally")
                             : s.metaValue(format::meta::kIncompleteReason));
        else if (s.status != format::kStatusComplete)
            throw LoadFailure{"corrupt session: unknown status '" + s.status + "'"};
    }

    template <typename OnRow> void readAll(const char* table, const std::string& sql, OnRow onRow) {
        format::Statement rows = m_db.prepare(sql);
        while (rows.step())
            onRow(rows);
        if (rows.failed() || !rows.prepared())
            throw LoadFailure{"corrupt session: cannot read table '" + std::string(table) +
                              "': " + m_db.lastMessage()};
    }

    void readDescriptions() {
        Session& s = *m_session;
        RowIndex processes, devices;
        readAll("processes", format::selectSql(format::tables::kProcesses) + " ORDER BY id",
                [&](format::Statement& row) {
                    ProcessInfo p{format::readProcessRow(row), row.integer(0)};
                    processes.add(p.rowId, static_cast<int32_t>(s.processes.size()));
                    s.processes.push_back(std::move(p));
                });
        readAll("threads",
                format::selectSql(format::tables::kThreads) + " ORDER BY process_id, tid, id",
                [&](format::Statement& row) {
                    ThreadInfo t{format::readThreadRow(row), row.integer(0)};
                    t.processIndex = processes.find(t.processId);
                    m_threads.add(t.rowId, static_cast<int32_t>(s.threads.size()));
                    s.threads.push_back(std::move(t));
                });
        readAll("devices",
                format::selectSql(format::tables::kDevices) +
                    " ORDER BY process_id, device_index, id",
                [&](format::Statement& row) {
                    DeviceInfo d{format::readDeviceRow(row), row.integer(0)};
                    d.processIndex = processes.find(d.processId);
                    devices.add(d.rowId, static_cast<int32_t>(s.devices.size()));
                    s.devices.push_back(std::move(d));
                });
        readAll("streams",
                "SELECT s.id, s.device_id, s.context_id, s.stream_id, s.is_default, s.priority "
                "FROM streams s LEFT JOIN devices d ON d.id = s.device_id "
                "ORDER BY d.process_id, d.device_index, s.context_id, s.stream_id, s.id",
                [&](format::Statement& row) {
                    StreamInfo st{format::readStreamRow(row), row.integer(0)};
                    st.deviceIndex = devices.find(st.deviceId);
                    m_streams.add(st.rowId, static_cast<int32_t>(s.streams.size()));
                    s.streams.push_back(st);
                });
        // strings.id values index Session::strings directly; they are dense from 1.
        s.strings.assign(1, std::string());
        readAll("strings", format::selectSql(format::tables::kStrings) + " ORDER BY id",
                [&](format::Statement& row) {
                    const int64_t id = row.integer(0);
                    if (id < 1 || id > std::numeric_limits<int32_t>::max())
                        throw LoadFailure{"corrupt session: string id " + std::to_string(id)};
                    if (static_cast<size_t>(id) >= s.strings.size())
                        s.strings.resize(id + 1);
                    s.strings[id] = row.text(1);
                });
        readAll("dropped", "SELECT coalesce(sum(count), 0) FROM dropped",
                [&](format::Statement& row) { s.droppedRecords = row.integer(0); });

        s.hostLanes.resize(s.threads.size());
        for (size_t i = 0; i < s.threads.size(); ++i)
            s.hostLanes[i].threadIndex = static_cast<int32_t>(i);
        s.streamLanes.resize(s.streams.size());
        for (size_t i = 0; i < s.streams.size(); ++i)
            s.streamLanes[i].streamIndex = static_cast<int32_t>(i);
    }

    int64_t estimatedRows() {
        int64_t total = 0;
        for (const char* table :
             {"api_calls", "syncs", "ranges", "kernels", "memcpys", "memsets"}) {
            format::Statement maxId =
                m_db.prepare(std::string("SELECT coalesce(max(id), 0) FROM ") + table);
            if (maxId.step())
                total += maxId.integer(0);
        }
        return std::max<int64_t>(total, 1);
    }

    // The two largest tables (api_calls, kernels) are read in parallel, on two threads.
    void readEvents() {
        ReadContext context;
        context.path = &m_path;
        context.options = &m_options;
        context.threads = &m_threads;
        context.streams = &m_streams;
        context.stringCount = m_session->strings.size();
        context.estimatedRows = estimatedRows();

        TableReader hostReader(context, *m_session);
        TableReader gpuReader(context, *m_session);
        std::mutex failureMutex;
        std::string failure;
        bool cancelled = false;
        auto guarded = [&](auto&& body) {
            try {
                body();
            } catch (const LoadFailure& f) {
                std::lock_guard lock(failureMutex);
                if (failure.empty())
                    failure = f.message;
            } catch (const Cancelled&) {
                std::lock_guard lock(failureMutex);
                cancelled = true;
            } catch (const std::bad_alloc&) {
                std::lock_guard lock(failureMutex);
                if (failure.empty())
                    failure = "out of memory while loading";
            }
        };
        // The readers report progress themselves (ReadContext::addRowsRead): nothing to poll.
        std::thread gpuThread([&] {
            guarded([&] {
                gpuReader.open();
                gpuReader.readKernels();
                gpuReader.readMemcpys();
                gpuReader.readSyncs();
            });
        });
        guarded([&] {
            hostReader.open();
            hostReader.readApiCalls();
            hostReader.readRanges();
            hostReader.readMemsets();
        });
        gpuThread.join();
        if (cancelled)
            throw Cancelled{};
        if (!failure.empty())
            throw LoadFailure{failure};

        finishLanes(hostReader.bounds(), gpuReader.bounds());
        if (m_options.progress)
            m_options.progress(1.0);
    }

    void finishLanes(const TimeBounds& a, const TimeBounds& b) {
        Session& s = *m_session;
        TimeBounds bounds;
        bounds.first = std::min(a.first, b.first);
        bounds.last = std::max(a.last, b.last);
        for (const ProcessInfo& p : s.processes)
            bounds.add(p.startNs, p.spanEndNs());
        s.startNs = bounds.first == std::numeric_limits<int64_t>::max() ? 0 : bounds.first;
        s.endNs = std::max(s.startNs, bounds.last);

        moveSyncsToCallingThreads(s);
        for (HostLane& lane : s.hostLanes) {
            lane.apiCalls.finalize();
            lane.syncs.finalize();
            for (RangeColumns& depth : lane.rangesByDepth) {
                depth.finalize();
                s.counts.ranges += static_cast<int64_t>(depth.size());
            }
            s.counts.apiCalls += static_cast<int64_t>(lane.apiCalls.size());
            s.counts.syncs += static_cast<int64_t>(lane.syncs.size());
        }
        for (StreamLane& lane : s.streamLanes) {
            lane.kernels.finalize();
            lane.memcpys.finalize();
            lane.memsets.finalize();
            s.counts.kernels += static_cast<int64_t>(lane.kernels.size());
            s.counts.memcpys += static_cast<int64_t>(lane.memcpys.size());
            s.counts.memsets += static_cast<int64_t>(lane.memsets.size());
        }
    }

    const std::string& m_path;
    const LoadOptions& m_options;
    std::unique_ptr<Session> m_session;
    format::Database m_db;
    RowIndex m_threads;
    RowIndex m_streams;
};

} // namespace

LoadResult SessionLoader::load(const std::string& path, const LoadOptions& options) {
    LoadResult result;
    try {
        result.session = Loader(path, options).run();
    } catch (const LoadFailure& failure) {
        result.error = path + ": " + failure.message;
    } catch (const Cancelled&) {
        result.cancelled = true;
        result.error = path + ": loading cancelled";
    } catch (const std::bad_alloc&) {
        result.error = path + ": out of memory while loading";
    }
    return result;
}

} // namespace stallscope::model
