#include "model/session/session_loader.h"

#include "format/checked_sql.h"
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "format/terminal_text.h"
#include "model/session/correlation_health.h"
#include "model/session/description_reader.h"
#include "model/session/load_checks.h"
#include "model/session/number_format.h"
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

using loading::Cancelled;
using loading::CheckedRow;
using loading::kMaxUint32;
using loading::LoadFailure;

// Shared state of the table readers running in parallel.
struct ReadContext {
    const std::string* path = nullptr;
    const LoadOptions* options = nullptr;
    const loading::DescriptionIndexes* indexes = nullptr;
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
    // Event rows left out because both their times are 0 (recorders before issue 14 wrote the
    // activity records CUPTI cut short at teardown that way).
    int64_t untimedRows = 0;
    void add(int64_t start, int64_t end) {
        first = std::min(first, start);
        last = std::max(last, end);
    }
};

// Reads one event table after another into the session's lanes, every value checked in the
// reading loop (CheckedRow): the loader is performance-critical, so no extra pass or query.
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
             [this](const CheckedRow& row) { pushNamedEvent(hostLane(row).apiCalls, row); });
    }

    void readSyncs() {
        scan(format::tables::kSyncs,
             format::selectSql<format::tables::kSyncs>({"id", "thread_id", "start_ns", "end_ns",
                                                        "kind", "correlation_id", "stream_id",
                                                        "stack_id", "event_id"}),
             [this](const CheckedRow& row) {
                 SyncColumns& syncs = hostLane(row).syncs;
                 const uint8_t kind =
                     static_cast<uint8_t>(row.enumValue(4, 1, format::kSyncKindMax));
                 const uint32_t correlation = correlationId(row, 5);
                 const int32_t stream =
                     row.isNull(6) ? -1 : row.reference(6, m_context.indexes->streams, "stream");
                 const uint32_t stack = row.isNull(7) ? 0u : stackId(row, 7);
                 const int64_t event = row.isNull(8) ? -1 : row.inRange(8, 0, kMaxUint32);
                 if (!pushInterval(syncs, row))
                     return;
                 syncs.kind.push_back(kind);
                 syncs.correlationId.push_back(correlation);
                 syncs.streamIndex.push_back(stream);
                 syncs.stackId.push_back(stack);
                 syncs.eventId.push_back(event);
             });
    }

    void readRanges() {
        scan(format::tables::kRanges,
             format::selectSql<format::tables::kRanges>(
                 {"id", "thread_id", "start_ns", "end_ns", "name_id", "depth"}),
             [this](const CheckedRow& row) {
                 HostLane& lane = hostLane(row);
                 const auto depth = static_cast<size_t>(row.inRange(5, 0, 255));
                 const uint32_t name = stringId(row, 4);
                 if (lane.rangesByDepth.size() <= depth)
                     lane.rangesByDepth.resize(depth + 1);
                 RangeColumns& ranges = lane.rangesByDepth[depth];
                 if (!pushInterval(ranges, row))
                     return;
                 ranges.nameId.push_back(name);
             });
    }

    // Format v3's host_samples: absent from older files, required from v3 on.
    void readHostSamples() {
        if (!format::hasTable(m_connection, format::tables::kHostSamples.name)) {
            if (m_session.formatVersion >= format::tables::kHostSamples.sinceVersion)
                throw LoadFailure{"corrupt session: missing table 'host_samples'"};
            return;
        }
        scan(format::tables::kHostSamples,
             format::selectSql<format::tables::kHostSamples>(
                 {"id", "thread_id", "start_ns", "end_ns", "samples", "stack_id"}),
             [this](const CheckedRow& row) {
                 SampleColumns& samples = hostLane(row).samples;
                 const auto count =
                     static_cast<uint32_t>(row.inRange(4, 1, std::numeric_limits<int32_t>::max()));
                 const uint32_t stack = stackId(row, 5);
                 if (count == 1 && row.integer(3) != row.integer(2))
                     row.fail("has one sample but ends after it starts");
                 if (!pushInterval(samples, row))
                     return;
                 samples.samples.push_back(count);
                 samples.stackId.push_back(stack);
             });
    }

    void readKernels() {
        scan(format::tables::kKernels,
             format::selectSql<format::tables::kKernels>({"id", "stream_id", "start_ns", "end_ns",
                                                          "name_id", "correlation_id", "grid_x",
                                                          "grid_y", "grid_z"}),
             [this](const CheckedRow& row) {
                 KernelColumns& kernels = streamLane(row).kernels;
                 const uint16_t blocks = row.gridBlocks(6);
                 pushNamedEvent(kernels, row);
                 kernels.blocks.resize(kernels.size(), blocks); // unchanged: the row left out
             });
    }

    void readMemcpys() {
        scan(format::tables::kMemcpys,
             format::selectSql<format::tables::kMemcpys>({"id", "stream_id", "start_ns", "end_ns",
                                                          "correlation_id", "bytes", "copy_kind",
                                                          "src_kind", "dst_kind"}),
             [this](const CheckedRow& row) {
                 pushTransfer(streamLane(row).memcpys, row,
                              {row.enumValue(6, 0, format::kCopyKindMax),
                               row.enumValue(7, 0, format::kMemoryKindMax),
                               row.enumValue(8, 0, format::kMemoryKindMax)});
             });
    }

    void readMemsets() {
        scan(format::tables::kMemsets,
             format::selectSql<format::tables::kMemsets>(
                 {"id", "stream_id", "start_ns", "end_ns", "correlation_id", "bytes", "dst_kind"}),
             [this](const CheckedRow& row) {
                 // A memset has no copy direction and no source.
                 pushTransfer(streamLane(row).memsets, row,
                              {0, 0, row.enumValue(6, 0, format::kMemoryKindMax)});
             });
    }

    const TimeBounds& bounds() const { return m_bounds; }

private:
    template <typename OnRow>
    void scan(const format::Table& table, const std::string& sql, OnRow onRow) {
        format::Statement statement = m_connection.prepare(sql);
        if (!statement.prepared())
            throw LoadFailure{"corrupt session: cannot read table '" + std::string(table.name) +
                              "': " + m_connection.lastMessage()};
        int64_t pending = 0;
        while (statement.step()) {
            const CheckedRow row(statement, table.name);
            onRow(row);
            row.requireTypes();
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

    // The row's id, start_ns (column 2) and end_ns (column 3), each checked. False, and the row
    // is left out (counted), when both times are 0: an activity cut short by a recorder's
    // teardown, which would otherwise stretch the session back to time 0.
    bool pushInterval(IntervalColumns& columns, const CheckedRow& row) {
        if (row.id() < 0 || row.id() > kMaxUint32)
            row.fail("has an id past 2^32 (unsupported)");
        const int64_t start = row.time(2);
        const int64_t end = row.time(3);
        if (start == 0 && end == 0) {
            ++m_bounds.untimedRows;
            return false;
        }
        if (end < start)
            row.fail("ends before it starts");
        columns.pushInterval(start, end, static_cast<uint32_t>(row.id()));
        m_bounds.add(start, end);
        return true;
    }

    // An API call or kernel row: id, lane, start_ns, end_ns, name_id, correlation_id.
    template <typename Columns> void pushNamedEvent(Columns& columns, const CheckedRow& row) {
        const uint32_t name = stringId(row, 4);
        const uint32_t correlation = correlationId(row, 5);
        if (!pushInterval(columns, row))
            return;
        columns.nameId.push_back(name);
        columns.correlationId.push_back(correlation);
    }

    struct TransferKinds {
        int64_t copy; // format::CopyKind
        int64_t src;  // format::MemoryKind
        int64_t dst;  // format::MemoryKind
    };
    // A memcpy or memset row: id, stream_id, start_ns, end_ns, correlation_id, bytes, ...
    void pushTransfer(TransferColumns& columns, const CheckedRow& row, TransferKinds kinds) {
        const uint32_t correlation = correlationId(row, 4);
        const int64_t bytes = row.inRange(5, 0, std::numeric_limits<int64_t>::max());
        if (!pushInterval(columns, row))
            return;
        columns.correlationId.push_back(correlation);
        columns.bytes.push_back(static_cast<uint64_t>(bytes));
        columns.copyKind.push_back(static_cast<uint8_t>(kinds.copy));
        columns.srcKind.push_back(static_cast<uint8_t>(kinds.src));
        columns.dstKind.push_back(static_cast<uint8_t>(kinds.dst));
    }

    // The lane of the thread in column 1.
    HostLane& hostLane(const CheckedRow& row) {
        return m_session.hostLanes[row.reference(1, m_context.indexes->threads, "thread")];
    }
    // The lane of the stream in column 1.
    StreamLane& streamLane(const CheckedRow& row) {
        return m_session.streamLanes[row.reference(1, m_context.indexes->streams, "stream")];
    }

    uint32_t stringId(const CheckedRow& row, int column) const {
        const int64_t id = row.integer(column);
        if (id < 0 || static_cast<uint64_t>(id) >= m_context.stringCount)
            row.failReference("string", id);
        return static_cast<uint32_t>(id);
    }

    uint32_t stackId(const CheckedRow& row, int column) const {
        const int64_t id = row.integer(column);
        if (!m_context.indexes->stacks.contains(id))
            row.failReference("stack", id);
        return static_cast<uint32_t>(id); // stacks.id is in [1, 2^32)
    }

    // CUPTI's correlation ids are 32-bit.
    static uint32_t correlationId(const CheckedRow& row, int column) {
        return static_cast<uint32_t>(row.inRange(column, 0, kMaxUint32));
    }

    ReadContext& m_context;
    Session& m_session;
    format::Database m_connection;
    TimeBounds m_bounds;
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
        m_indexes = loading::readDescriptions(m_db, *m_session);
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

    // Brings an older file's content up to kFormatVersion in memory (the file is never changed):
    // step i turns version i + 1 into version i + 2, so kUpgradeSteps has kFormatVersion - 1
    // entries.
    void upgradeToCurrentVersion(int version) {
        using UpgradeStep = void (Loader::*)();
        static constexpr std::array<UpgradeStep, format::kFormatVersion - 1> kUpgradeSteps = {
            &Loader::upgradeFromV1, &Loader::upgradeFromV2, &Loader::upgradeFromV3,
            &Loader::upgradeFromV4};
        for (int from = version; from < format::kFormatVersion; ++from)
            (this->*kUpgradeSteps[from - 1])();
    }

    // v2 added process_ranks; a v1 file has no ranks, which is what the reader assumes when the
    // table is absent: nothing to change.
    void upgradeFromV1() {}
    // v3 added host_samples; a v2 file has no samples, which the reader assumes when the table
    // is absent.
    void upgradeFromV2() {}
    // v4 added collective_calls; an older file has none, which readCollectiveCalls assumes when
    // the table is absent.
    void upgradeFromV3() {}
    // v5 added capture_intervals; an older file recorded everything (no capture control).
    void upgradeFromV4() {}

    void readMeta() {
        // Cut as read: a crafted 300 MB value is held once (SQLite's copy), only its start kept.
        format::Statement rows =
            m_db.prepare(format::CheckedSql("SELECT {meta.key}, {meta.value} FROM {meta}").text());
        while (rows.step())
            m_session->meta[format::clippedText(rows.textView(0), 256)] =
                format::clippedText(rows.textView(1), format::kMaxMetaValueBytes);
        if (rows.failed() || !rows.prepared())
            throw LoadFailure{"corrupt session: cannot read table 'meta': " + m_db.lastMessage()};
        Session& s = *m_session;
        if (s.metaValue(format::meta::kFormatName) != format::kFormatName)
            throw LoadFailure{"not a Stallscope session (meta.format_name is '" +
                              s.metaValue(format::meta::kFormatName) + "')"};
        s.formatVersion = loading::parseFormatVersion(s.metaValue(format::meta::kFormatVersion));
        if (const std::string problem = format::checkSessionSchema(m_db); !problem.empty())
            throw LoadFailure{problem};
        upgradeToCurrentVersion(s.formatVersion);

        s.status = s.metaValue(format::meta::kStatus);
        if (s.status != format::kStatusRecording && s.status != format::kStatusIncomplete &&
            s.status != format::kStatusComplete)
            throw LoadFailure{"corrupt session: unknown status '" + s.status + "'"};
    }

    int64_t estimatedRows() {
        int64_t total = 0;
        for (const char* table :
             {"api_calls", "syncs", "ranges", "kernels", "memcpys", "memsets"}) {
            format::Statement maxId =
                m_db.prepare(std::string("SELECT coalesce(max(id), 0) FROM ") + table);
            // Row ids past 2^32 are refused when read; the estimate only must not overflow.
            if (maxId.step())
                total += std::clamp<int64_t>(maxId.integer(0), 0, kMaxUint32);
        }
        return std::max<int64_t>(total, 1);
    }

    // The two largest tables (api_calls, kernels) are read in parallel, on two threads.
    void readEvents() {
        ReadContext context;
        context.path = &m_path;
        context.options = &m_options;
        context.indexes = &m_indexes;
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
            hostReader.readHostSamples();
        });
        gpuThread.join();
        if (cancelled)
            throw Cancelled{};
        if (!failure.empty())
            throw LoadFailure{failure};

        finishLanes(hostReader.bounds(), gpuReader.bounds());
        readCollectiveCalls();
        loading::readCaptureIntervals(m_db, *m_session);
        loading::readOverheadProbe(*m_session);
        if (m_options.progress)
            m_options.progress(1.0);
    }

    void finishLanes(const TimeBounds& a, const TimeBounds& b) {
        Session& s = *m_session;
        TimeBounds bounds;
        bounds.first = std::min(a.first, b.first);
        bounds.last = std::max(a.last, b.last);
        s.untimedEvents = a.untimedRows + b.untimedRows;
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
            lane.samples.finalize();
            for (const uint32_t count : lane.samples.samples)
                s.hostSamples += count;
        }
        for (StreamLane& lane : s.streamLanes) {
            lane.kernels.finalize();
            lane.memcpys.finalize();
            lane.memsets.finalize();
            s.counts.kernels += static_cast<int64_t>(lane.kernels.size());
            s.counts.memcpys += static_cast<int64_t>(lane.memcpys.size());
            s.counts.memsets += static_cast<int64_t>(lane.memsets.size());
        }
        s.warning = loadWarning(s); // over the sorted lanes (apiCallsSharingIds)
    }

    // Format v4's collective_calls (few rows: one per NCCL launch), each joined to its kernel by
    // process and correlation id; required from v4 on.
    void readCollectiveCalls() {
        using format::tables::kCollectiveCalls;
        Session& s = *m_session;
        if (!format::hasTable(m_db, kCollectiveCalls.name)) {
            if (s.formatVersion >= kCollectiveCalls.sinceVersion)
                throw LoadFailure{"corrupt session: missing table 'collective_calls'"};
            return;
        }
        loading::RowIndex processes;
        for (size_t i = 0; i < s.processes.size(); ++i)
            processes.add(s.processes[i].rowId, static_cast<int32_t>(i));
        // By (process index, correlation id): correlation ids are per process.
        auto launchKey = [](int32_t process, uint32_t correlation) {
            return (uint64_t(uint32_t(process)) << 32) | correlation;
        };
        std::unordered_map<uint64_t, format::CollectiveCallRow> byLaunch;
        format::Statement rows = m_db.prepare(
            format::selectSql<kCollectiveCalls>({"id", "process_id", "correlation_id", "function",
                                                 "datatype", "count", "bytes", "calls"}));
        if (!rows.prepared())
            throw LoadFailure{"corrupt session: cannot read table 'collective_calls': " +
                              m_db.lastMessage()};
        while (rows.step()) {
            const loading::CheckedRow row(rows, kCollectiveCalls.name);
            format::CollectiveCallRow call;
            const int32_t process = row.reference(1, processes, "process");
            call.processId = s.processes[process].rowId;
            call.correlationId = row.inRange(2, 0, std::numeric_limits<uint32_t>::max());
            call.function = rows.text(3);
            call.datatype = rows.text(4);
            call.count = row.inRange(5, 0, std::numeric_limits<int64_t>::max());
            if (!row.isNull(6))
                call.bytes = row.inRange(6, 0, std::numeric_limits<int64_t>::max());
            call.calls = row.inRange(7, 1, std::numeric_limits<int64_t>::max());
            row.requireTypes();
            byLaunch.emplace(launchKey(process, static_cast<uint32_t>(call.correlationId)),
                             std::move(call));
        }
        if (rows.failed())
            throw LoadFailure{"corrupt session: cannot read table 'collective_calls': " +
                              m_db.lastMessage()};
        if (byLaunch.empty())
            return;
        for (const StreamLane& lane : s.streamLanes) {
            const int32_t process = s.devices[s.streams[lane.streamIndex].deviceIndex].processIndex;
            for (size_t i = 0; i < lane.kernels.size(); ++i) {
                const auto found = byLaunch.find(launchKey(process, lane.kernels.correlationId[i]));
                if (found != byLaunch.end())
                    s.collectiveCalls.emplace(lane.kernels.rowId[i], found->second);
            }
        }
    }

    const std::string& m_path;
    const LoadOptions& m_options;
    std::unique_ptr<Session> m_session;
    format::Database m_db;
    loading::DescriptionIndexes m_indexes;
};

} // namespace

std::string loadWarning(const Session& s) {
    std::string warning;
    auto add = [&](const std::string& note) { warning += (warning.empty() ? "" : "; ") + note; };
    if (s.status == format::kStatusRecording)
        add("the recording did not finish (the recorder was killed or is still running): events "
            "after its last commit are missing");
    else if (s.status == format::kStatusIncomplete)
        add("the recording is incomplete: " + (s.metaValue(format::meta::kIncompleteReason).empty()
                                                   ? std::string("the target ended abnormally")
                                                   : s.metaValue(format::meta::kIncompleteReason)));
    if (const std::string imported = s.metaValue(format::meta::kImportWarnings); !imported.empty())
        add(imported);
    if (s.untimedEvents > 0)
        add(std::to_string(s.untimedEvents) +
            " event(s) without times (cut short when the recording ended) were left out");
    if (const SharedCorrelationIds shared = apiCallsSharingIds(s); shared.collapsed())
        add(std::to_string(shared.calls) +
            " API calls share their correlation id with the call "
            "before them, from " +
            formatDuration(shared.firstNs - s.startNs) +
            " into the session: CUPTI's ids collapsed, so launches from there on are not tied to "
            "their GPU work");
    return warning;
}

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
