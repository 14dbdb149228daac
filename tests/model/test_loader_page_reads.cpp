// The loader reads the event tables from their pages (format/btree_scanner.h) and gives the very
// session that reading them through SQLite gives: every lane's every column, the counts, the
// bounds, the warning; a bad value is named as SQLite's reading names it; a table whose pages are
// declined part-way is read again through SQLite.
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/same_session.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/sqlite_edit.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <algorithm>
#include <array>
#include <filesystem>
#include <tuple>

using namespace stallscope;

namespace {

model::LoadResult loadWay(const std::string& path, bool readPages) {
    model::LoadOptions options;
    options.readPages = readPages;
    return model::SessionLoader::load(path, options);
}

// The session's CUDA events as the statement reads them, in time order (SessionDatabase's order).
std::vector<std::array<int64_t, 5>> cudaEventsThroughSqlite(const std::string& path) {
    format::Database db;
    std::vector<std::array<int64_t, 5>> events;
    if (!db.open(path, format::Database::Mode::ReadOnly, nullptr))
        return events;
    format::Statement rows = db.prepare(
        "SELECT record_ns, id, stream_id, event_id, correlation_id FROM cuda_events ORDER BY id");
    // As the loader's statements read them: a value that is not an integer reads as 0.
    auto value = [&rows](int column) { return rows.typedInteger(column).value; };
    while (rows.step())
        events.push_back({value(0), value(1), value(2), value(3), value(4)});
    std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
        return std::tie(a[0], a[1]) < std::tie(b[0], b[1]);
    });
    return events;
}

std::vector<std::array<int64_t, 5>> asRows(const std::vector<model::CudaEventInfo>& events) {
    std::vector<std::array<int64_t, 5>> rows;
    for (const model::CudaEventInfo& e : events)
        rows.push_back({e.recordNs, e.id, e.streamId, e.eventId, e.correlationId});
    return rows;
}

} // namespace

class TestLoaderPageReads : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void pagesAndSqliteLoadTheSameSession();
    void aBadValueIsNamedAsSqliteNamesIt();
    void aTableDeclinedPartWayIsReadAgainThroughSqlite();
    void cudaEventsFromPagesAsSqliteReadsThem();
    void cudaEventsWithAValueSqliteConvertsAreReadThroughIt();

private:
    // A copy of the generated session to edit.
    std::string copyOfSession(const char* name);
    testing::ScratchDir m_dir;
    std::string m_session;
};

void TestLoaderPageReads::initTestCase() {
    model::SyntheticOptions options;
    options.targetEvents = 60'000;
    options.threadsPerProcess = 3;
    options.sampleHz = 10000; // host_samples rows, in the planted host work
    options.hostWorkNs = 500'000;
    m_session = m_dir.file("generated.stallscope");
    std::string error;
    QVERIFY2(model::writeSyntheticSession(m_session, options, nullptr, &error), error.c_str());
}

std::string TestLoaderPageReads::copyOfSession(const char* name) {
    const std::string path = m_dir.file(name);
    std::filesystem::copy_file(m_session, path, std::filesystem::copy_options::overwrite_existing);
    return path;
}

void TestLoaderPageReads::pagesAndSqliteLoadTheSameSession() {
    const model::LoadResult pages = loadWay(m_session, true);
    const model::LoadResult sqlite = loadWay(m_session, false);
    QVERIFY2(pages.ok(), pages.error.c_str());
    QVERIFY2(sqlite.ok(), sqlite.error.c_str());
    // All seven event tables from their pages, none the other way.
    QCOMPARE(pages.tablesReadFromPages, 7);
    QCOMPARE(sqlite.tablesReadFromPages, 0);
    QVERIFY(pages.session->counts.kernels > 1000);
    QVERIFY(pages.session->hostSamples > 0);
    QVERIFY(testing::sameEvents(*pages.session, *sqlite.session));
}

void TestLoaderPageReads::aBadValueIsNamedAsSqliteNamesIt() {
    const std::string path = copyOfSession("bad_time.stallscope");
    testing::execSql(path, "UPDATE kernels SET start_ns = -5 WHERE id = (SELECT max(id) - 1 FROM "
                           "kernels)");
    const model::LoadResult pages = loadWay(path, true);
    const model::LoadResult sqlite = loadWay(path, false);
    QVERIFY(!pages.ok());
    QVERIFY2(pages.error.find("kernels row") != std::string::npos, pages.error.c_str());
    QVERIFY2(pages.error.find("start_ns -5") != std::string::npos, pages.error.c_str());
    QCOMPARE(pages.error, sqlite.error);
}

void TestLoaderPageReads::aTableDeclinedPartWayIsReadAgainThroughSqlite() {
    // A column the loader does not read, made too large for its page near the table's end: the
    // scanner declines it after the pages before, and SQLite reads the table (the value is never
    // looked at).
    const std::string path = copyOfSession("overflow.stallscope");
    testing::execSql(path, "UPDATE kernels SET block_x = zeroblob(70000) WHERE id = (SELECT "
                           "max(id) - 1 FROM kernels)");
    const model::LoadResult pages = loadWay(path, true);
    const model::LoadResult sqlite = loadWay(path, false);
    QVERIFY2(pages.ok(), pages.error.c_str());
    QCOMPARE(pages.tablesReadFromPages, 0);
    QVERIFY(testing::sameEvents(*pages.session, *sqlite.session));
    const model::LoadResult original = loadWay(m_session, false);
    QVERIFY(testing::sameEvents(*pages.session, *original.session));
}

// Every CUDA event, read from the pages of cuda_events, as SQLite reads it, first and last too.
void TestLoaderPageReads::cudaEventsFromPagesAsSqliteReadsThem() {
    model::SessionDatabase database;
    std::string error;
    QVERIFY2(database.open(m_session, &error), error.c_str());
    bool fromPages = false;
    const std::vector<model::CudaEventInfo> events = database.cudaEvents(&fromPages);
    QVERIFY(fromPages);
    const auto expected = cudaEventsThroughSqlite(m_session);
    QVERIFY(expected.size() >= 100);
    QCOMPARE(asRows(events), expected);
}

// A time stored as a real (SQLite keeps what its INTEGER column cannot hold exactly): the pages
// give it as a real, so the table is read through SQLite, which reads it as it always has.
void TestLoaderPageReads::cudaEventsWithAValueSqliteConvertsAreReadThroughIt() {
    const std::string path = copyOfSession("real_time.stallscope");
    testing::execSql(path, "UPDATE cuda_events SET record_ns = record_ns + 0.5 WHERE id = "
                           "(SELECT max(id) - 1 FROM cuda_events)");
    model::SessionDatabase database;
    std::string error;
    QVERIFY2(database.open(path, &error), error.c_str());
    bool fromPages = true;
    const std::vector<model::CudaEventInfo> events = database.cudaEvents(&fromPages);
    QVERIFY(!fromPages);
    const auto expected = cudaEventsThroughSqlite(path);
    QCOMPARE(expected.front()[0], int64_t(0)); // the real, read as 0, first in time
    QCOMPARE(asRows(events), expected);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestLoaderPageReads)
#include "test_loader_page_reads.moc"
