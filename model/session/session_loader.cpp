#include "model/session/session_loader.h"

#include "format/checked_sql.h"
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "format/terminal_text.h"
#include "model/session/column_cache.h"
#include "model/session/correlation_health.h"
#include "model/session/description_reader.h"
#include "model/session/event_table_reader.h"
#include "model/session/load_checks.h"
#include "model/session/number_format.h"
#include "model/session/session_file_check.h"
#include "model/session/sync_callers.h"

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <thread>
#include <unordered_map>

namespace stallscope::model {

namespace {

using loading::Cancelled;
using loading::CheckedRow;
using loading::kMaxUint32;
using loading::LoadFailure;
using loading::ReadContext;
using loading::TableReader;
using loading::TimeBounds;

class Loader {
public:
    Loader(const std::string& path, const LoadOptions& options)
        : m_path(path), m_options(options), m_session(std::make_unique<Session>()) {
        m_session->path = path;
    }

    int tablesReadFromPages() const { return m_tablesReadFromPages; }
    bool columnsFromCache() const { return m_columnsFromCache; }

    std::unique_ptr<Session> run() {
        if (const std::string problem = checkSqliteFile(m_path); !problem.empty())
            throw LoadFailure{problem};
        // The file as it is before anything is read from it: what the columns will be cached
        // under.
        const std::string cacheKey =
            m_options.useColumnCache ? columnCacheKey(m_path) : std::string();
        std::string error;
        if (!m_db.open(m_path, format::Database::Mode::ReadOnly, &error))
            throw LoadFailure{"cannot open: " + error};
        checkTables();
        readMeta();
        m_indexes = loading::readDescriptions(m_db, *m_session);
        // A recording still being written changes under its key's feet: never cached.
        if (m_session->status != format::kStatusRecording)
            m_session->columnCacheKey = cacheKey;
        if (!readCachedEvents())
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

    // The columns from the column cache when it holds them (the descriptions were read, and are
    // what the cached lanes are checked against); the rest of what readEvents reads, as it does.
    bool readCachedEvents() {
        Session& s = *m_session;
        if (s.columnCacheKey.empty())
            return false;
        const auto isStack = [this](int64_t id) { return m_indexes.stacks.contains(id); };
        if (!readCachedColumns(columnCacheFolder(), s.columnCacheKey, s, isStack)) {
            clearEvents();
            s.startNs = s.endNs = s.untimedEvents = s.hostSamples = 0;
            s.counts = {};
            return false;
        }
        m_columnsFromCache = true;
        s.columnCacheKey.clear(); // cached already
        s.warning = loadWarning(s);
        readAfterEvents();
        return true;
    }

    // What is read once the lanes hold their events, however they came.
    void readAfterEvents() {
        readCollectiveCalls();
        loading::readCaptureIntervals(m_db, *m_session);
        loading::readOverheadProbe(*m_session);
        if (m_options.progress)
            m_options.progress(1.0);
    }

    // The two largest tables (api_calls, kernels) are read in parallel, on two threads: from
    // their pages where they can be, else (or again, when the pages were declined part-way)
    // through SQLite.
    void readEvents() {
        ReadContext context;
        context.path = &m_path;
        context.options = &m_options;
        context.indexes = &m_indexes;
        context.stringCount = m_session->strings.size();
        context.estimatedRows = estimatedRows();
        context.readPages = m_options.readPages;
        TimeBounds hostBounds, gpuBounds;
        if (!readEventTables(context, &hostBounds, &gpuBounds)) {
            clearEvents();
            context.readPages = false;
            context.tablesReadFromPages = 0;
            readEventTables(context, &hostBounds, &gpuBounds);
        }
        m_tablesReadFromPages = static_cast<int>(context.tablesReadFromPages.load());

        finishLanes(hostBounds, gpuBounds);
        readAfterEvents();
    }

    // False when a table's pages were declined part-way (loading::PagesDeclined).
    bool readEventTables(ReadContext& context, TimeBounds* hostBounds, TimeBounds* gpuBounds) {
        TableReader hostReader(context, *m_session);
        TableReader gpuReader(context, *m_session);
        // Each reader's outcome apart, so that a file with problems in both halves is always
        // refused for the same one (the host tables' first).
        struct Outcome {
            std::string failure;
            bool cancelled = false;
            bool declined = false;
        };
        Outcome host, gpu;
        auto guarded = [](Outcome& outcome, auto&& body) {
            try {
                body();
            } catch (const LoadFailure& f) {
                outcome.failure = f.message;
            } catch (const Cancelled&) {
                outcome.cancelled = true;
            } catch (const loading::PagesDeclined&) {
                outcome.declined = true;
            } catch (const std::bad_alloc&) {
                outcome.failure = "out of memory while loading";
            }
        };
        // The readers report progress themselves (ReadContext::addRowsRead): nothing to poll.
        std::thread gpuThread([&] {
            guarded(gpu, [&] {
                gpuReader.open();
                gpuReader.readKernels();
                gpuReader.readMemcpys();
                gpuReader.readSyncs();
            });
        });
        guarded(host, [&] {
            hostReader.open();
            hostReader.readApiCalls();
            hostReader.readRanges();
            hostReader.readMemsets();
            hostReader.readHostSamples();
        });
        gpuThread.join();
        if (host.cancelled || gpu.cancelled)
            throw Cancelled{};
        if (host.declined || gpu.declined)
            return false;
        if (!host.failure.empty() || !gpu.failure.empty())
            throw LoadFailure{!host.failure.empty() ? host.failure : gpu.failure};
        *hostBounds = hostReader.bounds();
        *gpuBounds = gpuReader.bounds();
        return true;
    }

    // Every lane's events gone, the lanes kept: before the tables are read again.
    void clearEvents() {
        for (HostLane& lane : m_session->hostLanes) {
            lane.apiCalls = {};
            lane.syncs = {};
            lane.rangesByDepth = {};
            lane.samples = {};
        }
        for (StreamLane& lane : m_session->streamLanes) {
            lane.kernels = {};
            lane.memcpys = {};
            lane.memsets = {};
        }
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
    int m_tablesReadFromPages = 0;
    bool m_columnsFromCache = false;
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
        Loader loader(path, options);
        result.session = loader.run();
        result.tablesReadFromPages = loader.tablesReadFromPages();
        result.columnsFromCache = loader.columnsFromCache();
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
