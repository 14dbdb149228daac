// The synthetic-session generator: reproducible content, honest stats, plausible timing, sync
// sites with distinct stacks, in-loop versus pipelined patterns, and a file the loader opens.
#include "model/session/session_loader.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/event_counts_text.h"
#include "tests/support/optional_text.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <sqlite3.h>

#include <map>
#include <optional>
#include <string>

using namespace stallscope;

namespace {

using Count = std::optional<int64_t>; // nothing when the query failed (which failed the test)

// Opens a session read-only; closes on scope exit. Not ok() when it cannot be opened (which fails
// the test).
class Database {
public:
    explicit Database(const std::string& path) {
        if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
            STALLSCOPE_FAIL("cannot open %s: %s", path.c_str(), sqlite3_errmsg(m_db));
            sqlite3_close(m_db);
            m_db = nullptr;
        }
    }
    ~Database() { sqlite3_close(m_db); }
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;
    bool ok() const { return m_db != nullptr; }

    // Every row of the query as "a|b|c\n" lines; nothing when it fails (which fails the test).
    std::optional<std::string> rows(const std::string& sql) const {
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
            STALLSCOPE_FAIL("bad SQL %s: %s", sql.c_str(), sqlite3_errmsg(m_db));
            return std::nullopt;
        }
        std::string out;
        while (sqlite3_step(statement) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(statement); ++c) {
                const unsigned char* text = sqlite3_column_text(statement, c);
                out += (c ? "|" : "") +
                       std::string(text ? reinterpret_cast<const char*>(text) : "NULL");
            }
            out += '\n';
        }
        sqlite3_finalize(statement);
        return out;
    }
    Count count(const std::string& sql) const {
        const std::optional<std::string> text = rows(sql);
        return text ? Count(std::stoll(*text)) : std::nullopt;
    }

    // All tables, every row in key order: the session's content, independent of page layout;
    // nothing when a query failed.
    std::optional<std::string> dump() const {
        std::string out;
        const std::optional<std::string> tables =
            rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
        if (!tables)
            return std::nullopt;
        size_t from = 0;
        for (size_t to; (to = tables->find('\n', from)) != std::string::npos; from = to + 1) {
            const std::string table = tables->substr(from, to - from);
            const std::optional<std::string> content =
                rows("SELECT * FROM " + table + " ORDER BY 1, 2");
            if (!content)
                return std::nullopt;
            out += "## " + table + "\n" + *content;
        }
        return out;
    }

private:
    sqlite3* m_db = nullptr;
};

model::SyntheticOptions smallOptions(uint64_t seed) {
    model::SyntheticOptions options;
    options.seed = seed;
    options.targetEvents = 6'000;
    return options;
}

// Sync counts per innermost Python frame (file:line), read from the file's stacks; nothing when the
// query failed (which failed the test).
std::optional<std::map<std::string, int64_t>> syncsPerLine(const Database& db) {
    const std::optional<std::string> rows = db.rows(R"SQL(
        SELECT f.file || ':' || f.line, COUNT(*) FROM syncs s
        JOIN stack_frames sf ON sf.stack_id = s.stack_id
        JOIN frames f ON f.id = sf.frame_id
        WHERE f.kind = 2 AND sf.position = (
            SELECT MIN(sf2.position) FROM stack_frames sf2 JOIN frames f2 ON f2.id = sf2.frame_id
            WHERE sf2.stack_id = s.stack_id AND f2.kind = 2)
        GROUP BY 1)SQL");
    if (!rows)
        return std::nullopt;
    std::map<std::string, int64_t> out;
    size_t from = 0;
    for (size_t to; (to = rows->find('\n', from)) != std::string::npos; from = to + 1) {
        const std::string row = rows->substr(from, to - from);
        const size_t bar = row.find('|');
        out[row.substr(0, bar)] = std::stoll(row.substr(bar + 1));
    }
    return out;
}

} // namespace

class TestSyntheticSession : public QObject {
    Q_OBJECT
private slots:
    void sameSeedSameContent();
    void differentSeedDifferentContent();
    void statsMatchTables();
    void timingIsConsistent();
    void everySyncHasItsSiteStack();
    void inLoopPattern();
    void pipelinedPattern();
    void sizesFollowTarget_data();
    void sizesFollowTarget();
    void loadsWithExpectedCounts();
    void rejectsBadOptions();

private:
    // Nothing when the session cannot be written (which fails the test).
    std::optional<model::SyntheticStats> write(const std::string& file,
                                               const model::SyntheticOptions& options) {
        model::SyntheticStats stats;
        std::string error;
        if (!model::writeSyntheticSession(file, options, &stats, &error)) {
            STALLSCOPE_FAIL("cannot write %s: %s", file.c_str(), error.c_str());
            return std::nullopt;
        }
        return stats;
    }

    testing::ScratchDir m_dir;
};

void TestSyntheticSession::sameSeedSameContent() {
    QVERIFY(write(m_dir.file("a.stallscope"), smallOptions(7)));
    QVERIFY(write(m_dir.file("b.stallscope"), smallOptions(7)));
    const Database first(m_dir.file("a.stallscope")), second(m_dir.file("b.stallscope"));
    QVERIFY(first.ok() && second.ok());
    const std::optional<std::string> a = first.dump();
    QVERIFY(a);
    QVERIFY(a->size() > 100'000);
    QCOMPARE(a, second.dump());
}

void TestSyntheticSession::differentSeedDifferentContent() {
    QVERIFY(write(m_dir.file("a.stallscope"), smallOptions(7)));
    QVERIFY(write(m_dir.file("c.stallscope"), smallOptions(8)));
    const Database a(m_dir.file("a.stallscope")), c(m_dir.file("c.stallscope"));
    QVERIFY(a.ok() && c.ok());
    const std::optional<std::string> aDump = a.dump(), cDump = c.dump();
    QVERIFY(aDump && cDump);
    QVERIFY(*aDump != *cDump);
    const auto aKernels = a.rows("SELECT start_ns, end_ns FROM kernels ORDER BY id");
    const auto cKernels = c.rows("SELECT start_ns, end_ns FROM kernels ORDER BY id");
    QVERIFY(aKernels && cKernels);
    QVERIFY(*aKernels != *cKernels);
}

void TestSyntheticSession::statsMatchTables() {
    model::SyntheticOptions options = smallOptions(3);
    options.processes = 2;
    options.threadsPerProcess = 3;
    options.devicesPerProcess = 2;
    options.streamsPerDevice = 4;
    const std::optional<model::SyntheticStats> written =
        write(m_dir.file("multi.stallscope"), options);
    QVERIFY(written);
    const model::SyntheticStats& stats = *written;
    const Database db(m_dir.file("multi.stallscope"));
    QVERIFY(db.ok());
    QCOMPARE(db.count("SELECT COUNT(*) FROM processes"),
             Count(stats.rowsIn(format::tables::kProcesses)));
    QCOMPARE(stats.rowsIn(format::tables::kProcesses), 2);
    QCOMPARE(db.count("SELECT COUNT(*) FROM threads"), Count(6));
    QCOMPARE(db.count("SELECT COUNT(*) FROM devices"), Count(4));
    QCOMPARE(db.count("SELECT COUNT(*) FROM streams"), Count(16));
    QCOMPARE(db.count("SELECT COUNT(*) FROM api_calls"), Count(stats.events.apiCalls));
    QCOMPARE(db.count("SELECT COUNT(*) FROM kernels"), Count(stats.events.kernels));
    QCOMPARE(db.count("SELECT COUNT(*) FROM memcpys"), Count(stats.events.memcpys));
    QCOMPARE(db.count("SELECT COUNT(*) FROM memsets"), Count(stats.events.memsets));
    QCOMPARE(db.count("SELECT COUNT(*) FROM syncs"), Count(stats.events.syncs));
    QCOMPARE(db.count("SELECT COUNT(*) FROM cuda_events"), Count(stats.cudaEvents));
    QCOMPARE(db.count("SELECT COUNT(*) FROM ranges"), Count(stats.events.ranges));
    QCOMPARE(db.count("SELECT COUNT(*) FROM stacks"), Count(stats.rowsIn(format::tables::kStacks)));
    QCOMPARE(db.count("SELECT COUNT(*) FROM frames"), Count(stats.rowsIn(format::tables::kFrames)));
    QCOMPARE(db.count("SELECT COUNT(*) FROM strings"),
             Count(stats.rowsIn(format::tables::kStrings)));
    QCOMPARE(db.count("SELECT COUNT(*) FROM modules"),
             Count(stats.rowsIn(format::tables::kModules)));
    for (int kind = 1; kind <= format::kSyncKindMax; ++kind)
        QCOMPARE(db.count("SELECT COUNT(*) FROM syncs WHERE kind = " + std::to_string(kind)),
                 Count(stats.syncsByKind[kind]));
    QCOMPARE(db.rows("SELECT value FROM meta WHERE key = 'status'"),
             std::optional<std::string>("complete\n"));
    // Kernels run on each GPU's compute and two all-reduce streams; batches use the copy streams.
    QCOMPARE(db.count("SELECT COUNT(DISTINCT stream_id) FROM kernels"), Count(12));
    QCOMPARE(db.count("SELECT COUNT(DISTINCT stream_id) FROM memcpys WHERE copy_kind = 1"),
             Count(4));
}

void TestSyntheticSession::timingIsConsistent() {
    model::SyntheticOptions options = smallOptions(11);
    options.processes = 2;
    QVERIFY(write(m_dir.file("timing.stallscope"), options));
    const Database db(m_dir.file("timing.stallscope"));
    QVERIFY(db.ok());
    // Every GPU operation has exactly one API call of its own process, and starts after it.
    for (const char* table : {"kernels", "memcpys", "memsets"}) {
        const std::string join = std::string("FROM ") + table + R"SQL( g
            JOIN streams st ON st.id = g.stream_id JOIN devices d ON d.id = st.device_id
            JOIN api_calls a ON a.correlation_id = g.correlation_id
            JOIN threads t ON t.id = a.thread_id AND t.process_id = d.process_id)SQL";
        QCOMPARE(db.count("SELECT COUNT(*) " + join),
                 db.count(std::string("SELECT COUNT(*) FROM ") + table));
        QCOMPARE(db.count("SELECT COUNT(*) " + join + " WHERE g.start_ns <= a.start_ns"), Count(0));
    }
    // A stream runs one operation at a time.
    QCOMPARE(db.count(R"SQL(SELECT COUNT(*) FROM (
        SELECT start_ns, LAG(end_ns) OVER (PARTITION BY stream_id ORDER BY start_ns) AS previous
        FROM (SELECT stream_id, start_ns, end_ns FROM kernels UNION ALL
              SELECT stream_id, start_ns, end_ns FROM memcpys UNION ALL
              SELECT stream_id, start_ns, end_ns FROM memsets))
        WHERE start_ns < previous)SQL"),
             Count(0));
    // A stream sync returns only after everything queued on its stream before it has finished.
    QCOMPARE(db.count(R"SQL(SELECT COUNT(*) FROM syncs s WHERE s.kind = 1 AND s.end_ns < (
        SELECT MAX(k.end_ns) FROM kernels k JOIN api_calls a ON a.correlation_id = k.correlation_id
        AND a.thread_id = s.thread_id WHERE k.stream_id = s.stream_id AND a.start_ns < s.start_ns))SQL"),
             Count(0));
    // Each host thread's API calls follow one another without overlapping.
    QCOMPARE(db.count(R"SQL(SELECT COUNT(*) FROM (
        SELECT start_ns, LAG(end_ns) OVER (PARTITION BY thread_id ORDER BY start_ns) AS previous
        FROM api_calls) WHERE start_ns < previous)SQL"),
             Count(0));
    // Syncs coincide with their API call.
    QCOMPARE(db.count(R"SQL(SELECT COUNT(*) FROM syncs s JOIN api_calls a
        ON a.correlation_id = s.correlation_id AND a.thread_id = s.thread_id
        WHERE a.start_ns = s.start_ns AND a.end_ns = s.end_ns)SQL"),
             db.count("SELECT COUNT(*) FROM syncs"));
    // Step ranges contain their phases.
    QCOMPARE(db.count(R"SQL(SELECT COUNT(*) FROM ranges r WHERE r.depth = 1 AND NOT EXISTS (
        SELECT 1 FROM ranges p WHERE p.depth = 0 AND p.thread_id = r.thread_id
        AND p.start_ns <= r.start_ns AND r.end_ns <= p.end_ns))SQL"),
             Count(0));
}

void TestSyntheticSession::everySyncHasItsSiteStack() {
    const std::optional<model::SyntheticStats> written =
        write(m_dir.file("sites.stallscope"), smallOptions(5));
    QVERIFY(written);
    const model::SyntheticStats& stats = *written;
    const Database db(m_dir.file("sites.stallscope"));
    QVERIFY(db.ok());
    QCOMPARE(db.count("SELECT COUNT(*) FROM syncs WHERE stack_id IS NULL"), Count(0));
    const std::optional<std::map<std::string, int64_t>> perLine = syncsPerLine(db);
    QVERIFY(perLine);
    QCOMPARE(static_cast<size_t>(perLine->size()), stats.sites.size());
    for (const model::SyntheticSyncSite& site : stats.sites)
        QCOMPARE(perLine->at(site.file + ":" + std::to_string(site.line)), site.count);
    // One process: one stack per site.
    QCOMPARE(db.count("SELECT COUNT(DISTINCT stack_id) FROM syncs"),
             Count(static_cast<int64_t>(stats.sites.size())));
}

void TestSyntheticSession::inLoopPattern() {
    model::SyntheticOptions options = smallOptions(9);
    options.processes = 2;
    const std::optional<model::SyntheticStats> written =
        write(m_dir.file("inloop.stallscope"), options);
    QVERIFY(written);
    const model::SyntheticStats& stats = *written;
    QVERIFY(stats.stepsPerProcess >= 10);
    const model::SyntheticSyncSite* item = stats.site("train.py", 48);
    QVERIFY(item);
    QCOMPARE(item->count, stats.stepsPerProcess * 2);
    QCOMPARE(item->kind, format::SyncKind::Stream);
    QVERIFY(item->inLoop);
    QVERIFY(item->medianLaunchesBetween >= options.kernelsPerStep);
    QVERIFY(item->blockedNs > 0);
    const model::SyntheticSyncSite* cpu = stats.site("train.py", 53);
    QVERIFY(cpu);
    QCOMPARE(cpu->count, stats.stepsPerProcess / options.pageableEvery * 2);
    QCOMPARE(cpu->kind, format::SyncKind::PageableCopy);
    const model::SyntheticSyncSite* final = stats.site("train.py", 79);
    QVERIFY(final);
    QCOMPARE(final->count, 2);
    QVERIFY(!final->inLoop);
    // The loader's buffer-reuse wait repeats but has no launches between: not an in-loop sync.
    const model::SyntheticSyncSite* loader = stats.site("data.py", 88);
    QVERIFY(loader && loader->count >= 3 && !loader->inLoop);
    // The wait is the sync: the .item() syncs dominate the blocked time.
    QVERIFY(item->blockedNs > 10 * cpu->blockedNs);

    const Database db(m_dir.file("inloop.stallscope"));
    QVERIFY(db.ok());
    const std::optional<std::map<std::string, int64_t>> perLine = syncsPerLine(db);
    QVERIFY(perLine);
    QCOMPARE(perLine->at("train.py:48"), item->count);
    // Each .item() sync follows a 4-byte DtoH copy into pageable memory.
    QCOMPARE(db.count("SELECT COUNT(*) FROM memcpys WHERE copy_kind = 2 AND dst_kind = 1 "
                      "AND bytes = 4"),
             Count(item->count));
}

void TestSyntheticSession::pipelinedPattern() {
    model::SyntheticOptions options = smallOptions(9);
    options.processes = 2;
    options.inLoopSync = false;
    options.deviceSyncs = false;
    options.pageableCopies = false;
    const std::optional<model::SyntheticStats> written =
        write(m_dir.file("pipelined.stallscope"), options);
    QVERIFY(written);
    const model::SyntheticStats& stats = *written;
    QVERIFY(stats.stepsPerProcess >= 10);
    QVERIFY(!stats.site("train.py", 48));
    QVERIFY(!stats.site("train.py", 53));
    QVERIFY(!stats.site("train.py", 71));
    const model::SyntheticSyncSite* final = stats.site("train.py", 79);
    QVERIFY(final);
    QCOMPARE(final->count, 2); // a single sync per process, after the loop
    QCOMPARE(stats.inLoopSyncSites, 0);
    // With nothing draining the GPU inside the loop, the one sync waits for a long queue.
    QVERIFY(final->blockedNs > 1'000'000);

    const Database db(m_dir.file("pipelined.stallscope"));
    QVERIFY(db.ok());
    QCOMPARE(db.count("SELECT COUNT(*) FROM syncs s JOIN threads t ON t.id = s.thread_id "
                      "WHERE t.name = 'python3' AND s.kind != 4"),
             Count(2));
}

void TestSyntheticSession::sizesFollowTarget_data() {
    QTest::addColumn<qint64>("target");
    QTest::newRow("100") << qint64(100);
    QTest::newRow("1000") << qint64(1'000);
    QTest::newRow("50k") << qint64(50'000);
}

void TestSyntheticSession::sizesFollowTarget() {
    QFETCH(qint64, target);
    model::SyntheticOptions options = smallOptions(2);
    options.targetEvents = target;
    const std::optional<model::SyntheticStats> written =
        write(m_dir.file("size.stallscope"), options);
    QVERIFY(written);
    const model::SyntheticStats& stats = *written;
    QVERIFY(stats.totalEvents() >= target);
    // Generation stops after the step that reaches the target (a step is < 200 events here).
    QVERIFY(stats.totalEvents() < target + 200);
}

void TestSyntheticSession::loadsWithExpectedCounts() {
    model::SyntheticOptions options = smallOptions(4);
    options.processes = 2;
    options.threadsPerProcess = 3;
    options.streamsPerDevice = 4;
    const std::optional<model::SyntheticStats> written =
        write(m_dir.file("load.stallscope"), options);
    QVERIFY(written);
    const model::SyntheticStats& stats = *written;
    const model::LoadResult result = model::SessionLoader::load(m_dir.file("load.stallscope"));
    QVERIFY2(result.ok(), result.error.c_str());
    const model::Session& session = *result.session;
    QCOMPARE(session.status, std::string("complete"));
    QVERIFY(session.warning.empty());
    QCOMPARE(static_cast<int64_t>(session.processes.size()),
             stats.rowsIn(format::tables::kProcesses));
    QCOMPARE(static_cast<int64_t>(session.threads.size()), stats.rowsIn(format::tables::kThreads));
    QCOMPARE(static_cast<int64_t>(session.streams.size()), stats.rowsIn(format::tables::kStreams));
    QCOMPARE(session.counts, stats.events);
    QCOMPARE(session.hostLanes.size(), session.threads.size());
    QCOMPARE(session.streamLanes.size(), session.streams.size());
    QVERIFY(session.startNs <= stats.startNs + 1'000'000'000);
    QVERIFY(session.endNs <= stats.endNs);
}

void TestSyntheticSession::rejectsBadOptions() {
    model::SyntheticOptions options = smallOptions(1);
    options.streamsPerDevice = 0;
    std::string error;
    QVERIFY(!model::writeSyntheticSession(m_dir.file("bad.stallscope"), options, nullptr, &error));
    QVERIFY(error.find("bad.stallscope") != std::string::npos);
    options = smallOptions(1);
    QVERIFY(
        !model::writeSyntheticSession("/nonexistent-dir/x.stallscope", options, nullptr, &error));
    QVERIFY(error.find("/nonexistent-dir/x.stallscope") != std::string::npos);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSyntheticSession)
#include "test_synthetic_session.moc"
