// NvtxRanges (recorder/nvtx_ranges.h): NVTX MARKER records into range rows, written through the
// real SessionWriter and read back with SQL. Push/pop ranges nest by thread; a start/end range
// that ends on another thread says so; instantaneous markers are ranges of no length; an end
// without its start writes nothing; closing at a time ends the ranges open by then and keeps
// the later ones open; a marker with no thread goes to the process's main thread.
#include "recorder/nvtx_ranges.h"

#include "format/session_enums.h"
#include "tests/recorder/scratch_session.h"
#include "tests/support/test_suite.h"

#include <QtTest>
#include <cupti.h>
#include <sqlite3.h>

#include <tuple>
#include <vector>

using stallscope::format::RangeKind;
using stallscope::recorder::ActivityRecord;
using stallscope::recorder::NvtxRanges;
using stallscope::testing::ScratchSession;

namespace {

// thread row, kind, start, end, depth: ordered by start, then depth.
using Range = std::tuple<int64_t, int, int64_t, int64_t, int64_t>;

std::vector<Range> rangesIn(const QString& path) {
    std::vector<Range> out;
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db,
                           "SELECT thread_id, kind, start_ns, end_ns, depth FROM ranges "
                           "ORDER BY start_ns, depth",
                           -1, &statement, nullptr) == SQLITE_OK)
        while (sqlite3_step(statement) == SQLITE_ROW)
            out.emplace_back(sqlite3_column_int64(statement, 0), sqlite3_column_int(statement, 1),
                             sqlite3_column_int64(statement, 2), sqlite3_column_int64(statement, 3),
                             sqlite3_column_int64(statement, 4));
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return out;
}

ActivityRecord marker(uint32_t flags, uint32_t id, int32_t tid, int64_t atNs) {
    ActivityRecord r;
    r.kind = ActivityRecord::Kind::Marker;
    r.markerFlags = flags;
    r.markerId = id;
    r.tid = tid;
    r.startNs = r.endNs = atNs;
    return r;
}

constexpr uint32_t kNvtxStart = CUPTI_ACTIVITY_FLAG_MARKER_START;
constexpr uint32_t kEnd = CUPTI_ACTIVITY_FLAG_MARKER_END;
constexpr uint32_t kInstant = CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS;
constexpr int kPushPop = int(RangeKind::NvtxPushPop);
constexpr int kStartEnd = int(RangeKind::NvtxStartEnd);
constexpr int64_t kMainThreadRow = 100; // what the thread-row function gives tid 0

// Thread rows the test can state: tid 7 -> 107, tid 0 -> the main thread's.
int64_t threadRowOf(int32_t tid) {
    return tid ? 100 + tid : kMainThreadRow;
}

} // namespace

class TestNvtxRanges : public QObject {
    Q_OBJECT
private slots:
    void pushPopNestsPerThread() {
        ScratchSession session("nvtx.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        NvtxRanges ranges(session.writer.get(), threadRowOf);
        QCOMPARE(ranges.onMarker(marker(kNvtxStart, 1, 7, 1'000), "step"), 0);
        QCOMPARE(ranges.onMarker(marker(kNvtxStart, 2, 7, 1'100), "forward"), 0);
        QCOMPARE(ranges.onMarker(marker(kNvtxStart, 3, 8, 1'150), "loader"), 0); // another thread
        QCOMPARE(ranges.openRanges(), size_t(3));
        QCOMPARE(ranges.onMarker(marker(kEnd, 2, 7, 1'400), ""), 1);
        QCOMPARE(ranges.onMarker(marker(kNvtxStart, 4, 7, 1'500), "backward"), 0); // depth 1 again
        QCOMPARE(ranges.onMarker(marker(kEnd, 4, 7, 1'800), ""), 1);
        QCOMPARE(ranges.onMarker(marker(kEnd, 1, 7, 2'000), ""), 1);
        QCOMPARE(ranges.onMarker(marker(kEnd, 3, 8, 2'100), ""), 1);
        QCOMPARE(ranges.openRanges(), size_t(0));
        QVERIFY(session.writer->finish(stallscope::format::kStatusComplete));
        QCOMPARE(rangesIn(session.path), (std::vector<Range>{{107, kPushPop, 1'000, 2'000, 0},
                                                             {107, kPushPop, 1'100, 1'400, 1},
                                                             {108, kPushPop, 1'150, 2'100, 0},
                                                             {107, kPushPop, 1'500, 1'800, 1}}));
    }

    // A range started on one thread and ended on another is a start/end range, on the thread
    // that started it; an instantaneous marker has no length; an end never started writes
    // nothing; a marker without a thread id is the main thread's.
    void otherKinds() {
        ScratchSession session("nvtx.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        NvtxRanges ranges(session.writer.get(), threadRowOf);
        QCOMPARE(ranges.onMarker(marker(kNvtxStart, 1, 7, 1'000), "request"), 0);
        QCOMPARE(ranges.onMarker(marker(kEnd, 1, 9, 3'000), ""), 1);
        QCOMPARE(ranges.onMarker(marker(kInstant, 2, 0, 2'000), "checkpoint"), 1);
        QCOMPARE(ranges.onMarker(marker(kEnd, 99, 7, 2'500), ""), 0);
        QCOMPARE(ranges.onMarker(marker(0, 3, 7, 2'600), "no flags"), 0);
        QVERIFY(session.writer->finish(stallscope::format::kStatusComplete));
        QCOMPARE(rangesIn(session.path),
                 (std::vector<Range>{{107, kStartEnd, 1'000, 3'000, 0},
                                     {kMainThreadRow, kPushPop, 2'000, 2'000, 0}}));
    }

    // Recording stops at 2'000: the ranges open then end there (their ends, when they come, are
    // ignored); one begun at 2'000 ends too (both sides of the boundary); one begun after it stays
    // open and keeps its own end; the thread's depth is free again.
    void closeOpenByEndsThoseOpenByThen() {
        ScratchSession session("nvtx.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        NvtxRanges ranges(session.writer.get(), threadRowOf);
        ranges.onMarker(marker(kNvtxStart, 1, 7, 1'000), "outer");
        ranges.onMarker(marker(kNvtxStart, 2, 7, 2'000), "at the stop");
        ranges.onMarker(marker(kNvtxStart, 3, 8, 2'001), "after the stop");
        QCOMPARE(ranges.closeOpenBy(2'000), 2);
        QCOMPARE(ranges.openRanges(), size_t(1));
        QCOMPARE(ranges.onMarker(marker(kEnd, 1, 7, 2'500), ""), 0);
        QCOMPARE(ranges.onMarker(marker(kEnd, 3, 8, 2'600), ""), 1);
        ranges.onMarker(marker(kNvtxStart, 4, 7, 3'000), "next");
        ranges.onMarker(marker(kEnd, 4, 7, 3'100), "");
        QVERIFY(session.writer->finish(stallscope::format::kStatusComplete));
        QCOMPARE(rangesIn(session.path), (std::vector<Range>{{107, kPushPop, 1'000, 2'000, 0},
                                                             {107, kPushPop, 2'000, 2'000, 1},
                                                             {108, kPushPop, 2'001, 2'600, 0},
                                                             {107, kPushPop, 3'000, 3'100, 0}}));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestNvtxRanges)
#include "test_nvtx_ranges.moc"
