// Format v5's capture_intervals (capture control: stallscope-record --delay, --duration,
// --capture-range): the intervals a recording captured read back with their process and reasons,
// what was not recorded between them, an interval still open at the last commit, sessions without
// capture control, bad rows refused, and a run folder's ranks merged with their own intervals.
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "model/interop/run_merge.h"
#include "model/session/session_loader.h"
#include "model/session/session_summary.h"
#include "tests/support/sqlite_edit.h"
#include "tests/support/test_suite.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <optional>
#include <string>
#include <vector>

using namespace stallscope;
using model::TimeSpan;

namespace {

namespace reason = format::capture_reason;

struct IntervalSpec {
    int64_t startNs;
    std::optional<int64_t> endNs;
    std::string openedBy;
    std::string closedBy;
};

// One process recorded from 1,000 to 100,000 ns with a kernel inside, the capture range
// `captureRange` in the meta (none: no capture control) and `intervals`; rank `rank` when >= 0.
void writeSession(const std::string& path, std::optional<std::string> captureRange,
                  const std::vector<IntervalSpec>& intervals, int64_t rank = -1,
                  const std::string& captureSteps = {}) {
    std::string error;
    auto w = format::SessionWriter::create(path, &error);
    QVERIFY2(w, error.c_str());
    if (captureRange)
        w->setMeta(format::meta::kCaptureRange, *captureRange);
    if (!captureSteps.empty())
        w->setMeta(format::meta::kCaptureSteps, captureSteps);
    const int64_t pid = rank >= 0 ? 4000 + rank : 4000;
    const int64_t process = w->addProcess({pid, "node-a", "python train.py", 1'000, 100'000, 0});
    if (rank >= 0)
        w->addProcessRank({process, rank, rank, 2, "torchrun", 0});
    const int64_t device = w->addDevice({process, 0, "GPU", "", 9, 0, 132, 0});
    const int64_t stream = w->addStream({device, 1, 7, 0, 0});
    w->addKernel({stream, w->internString("gemm"), 12'000, 13'000, 1});
    for (const IntervalSpec& spec : intervals) {
        const int64_t id = w->addCaptureInterval({process, spec.startNs, {}, spec.openedBy, {}});
        if (spec.endNs)
            w->endCaptureInterval(id, *spec.endNs, spec.closedBy);
    }
    QVERIFY2(w->finish(format::kStatusComplete), w->lastError().c_str());
}

std::unique_ptr<model::Session> load(const std::string& path) {
    auto loaded = model::SessionLoader::load(path);
    if (!loaded.ok())
        qWarning("%s", loaded.error.c_str());
    return std::move(loaded.session);
}

} // namespace

class TestCaptureIntervals : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        qputenv("STALLSCOPE_IMPORT_CACHE", m_dir.filePath("cache").toUtf8());
    }

    void intervalsReadBackWithWhatWasNotRecorded() {
        const std::string file = path("two.stallscope");
        writeSession(file, "cuda-profiler-api",
                     {{50'000, 60'000, reason::kProfilerStart, reason::kProfilerStop},
                      {10'000, 20'000, "nvtx:step", "nvtx:step"}});
        const auto s = load(file);
        QVERIFY(s);
        QCOMPARE(s->formatVersion, format::kFormatVersion);
        QVERIFY(s->captureControlled);
        QCOMPARE(s->captureIntervals.size(), size_t(2));
        const model::CaptureInterval& first = s->captureIntervals[0]; // by start
        QCOMPARE(first.processIndex, 0);
        QCOMPARE(first.startNs, int64_t(10'000));
        QCOMPARE(first.endNs, int64_t(20'000));
        QCOMPARE(first.openedBy, std::string("nvtx:step"));
        QCOMPARE(first.closedBy, std::string("nvtx:step"));
        QCOMPARE(s->captureIntervals[1].openedBy, std::string(reason::kProfilerStart));
        QCOMPARE(s->captureIntervals[1].closedBy, std::string(reason::kProfilerStop));
        QCOMPARE(s->notRecorded(),
                 (std::vector<TimeSpan>{{1'000, 10'000}, {20'000, 50'000}, {60'000, 100'000}}));
        // --info and the insights say it: 20 µs of the 99 µs recorded.
        QCOMPARE(model::capturedText(*s),
                 std::string("from NVTX range \"step\" to NVTX range \"step\" (the first of 2 "
                             "ranges): 20 µs of 99 µs (the rest not recorded)"));
        QCOMPARE(model::SessionSummary::of(*s).rows[5].first, std::string("Recorded"));
    }

    // A recording killed while capturing: its last interval has no end yet and ends with the
    // session.
    void openIntervalEndsWithTheSession() {
        const std::string file = path("open.stallscope");
        writeSession(file, "none", {{30'000, std::nullopt, reason::kDelay, {}}});
        const auto s = load(file);
        QVERIFY(s);
        QCOMPARE(s->captureIntervals.size(), size_t(1));
        QCOMPARE(s->captureIntervals[0].endNs, s->endNs);
        QCOMPARE(s->captureIntervals[0].closedBy, std::string());
        QCOMPARE(s->notRecorded(), (std::vector<TimeSpan>{{1'000, 30'000}}));
        QCOMPARE(model::capturedText(*s),
                 std::string("from --delay to the end: 70 µs of 99 µs (the rest not recorded)"));
    }

    // A capture range that never opened recorded nothing: all of the session is not recorded.
    void rangeThatNeverOpenedRecordedNothing() {
        const std::string file = path("never.stallscope");
        writeSession(file, "nvtx:never", {});
        const auto s = load(file);
        QVERIFY(s);
        QVERIFY(s->captureControlled);
        QVERIFY(s->captureIntervals.empty());
        QCOMPARE(s->notRecorded(), (std::vector<TimeSpan>{{1'000, 100'000}}));
        QCOMPARE(model::capturedText(*s), std::string("nothing: nvtx:never never opened a range"));
    }

    // --capture-steps: the text names the steps, with one range or several, and when none ran.
    void stepsAreNamed() {
        const std::string two = path("steps.stallscope");
        writeSession(two, "nvtx:step",
                     {{10'000, 20'000, "nvtx:step", "nvtx:step"},
                      {30'000, 40'000, "nvtx:step", "nvtx:step"}},
                     -1, "3-4");
        auto s = load(two);
        QVERIFY(s);
        QCOMPARE(model::capturedText(*s),
                 std::string("from NVTX range \"step\" to NVTX range \"step\" (steps 3-4: 2 "
                             "ranges): 20 µs of 99 µs (the rest not recorded)"));
        const std::string one = path("step.stallscope");
        writeSession(one, "cuda-profiler-api",
                     {{10'000, 20'000, reason::kProfilerStart, reason::kProfilerStop}}, -1, "5-5");
        s = load(one);
        QVERIFY(s);
        QCOMPARE(model::capturedText(*s),
                 std::string("from cudaProfilerStart to cudaProfilerStop (steps 5-5: 1 range): "
                             "10 µs of 99 µs (the rest not recorded)"));
        const std::string none = path("no steps.stallscope");
        writeSession(none, "nvtx:step", {}, -1, "8-9");
        s = load(none);
        QVERIFY(s);
        QCOMPARE(model::capturedText(*s),
                 std::string("nothing: nvtx:step never reached steps 8-9"));
    }

    // Overlapping intervals (two processes) leave one gap between them, none inside.
    void overlappingIntervalsLeaveNoGapInside() {
        model::Session s;
        s.startNs = 0;
        s.endNs = 100;
        s.captureControlled = true;
        s.captureIntervals = {{0, 10, 40, "delay", "end"},
                              {1, 20, 30, "delay", "end"},
                              {0, 35, 60, "delay", "end"},
                              {1, 80, 100, "delay", "end"}};
        QCOMPARE(s.notRecorded(), (std::vector<TimeSpan>{{0, 10}, {60, 80}}));
        s.captureControlled = false;
        QVERIFY(s.notRecorded().empty());
    }

    void withoutCaptureControlEverythingWasRecorded() {
        const std::string file = path("plain.stallscope");
        writeSession(file, std::nullopt, {});
        const auto s = load(file);
        QVERIFY(s);
        QVERIFY(!s->captureControlled);
        QVERIFY(s->notRecorded().empty());
        QCOMPARE(model::capturedText(*s), std::string());
        // A v4 file has no capture_intervals table and recorded everything.
        testing::execSql(file, "DROP TABLE capture_intervals; UPDATE meta SET value = '4' WHERE "
                               "key = 'format_version'");
        const auto v4 = load(file);
        QVERIFY(v4);
        QCOMPARE(v4->formatVersion, 4);
        QVERIFY(!v4->captureControlled && v4->captureIntervals.empty());
    }

    void badRowsAreRefused_data() {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("error");
        QTest::newRow("end before start") << "UPDATE capture_intervals SET end_ns = 5000"
                                          << "capture_intervals row 1 ends before it starts";
        QTest::newRow("unknown process") << "UPDATE capture_intervals SET process_id = 7"
                                         << "capture_intervals row 1 names unknown process 7";
        QTest::newRow("negative time") << "UPDATE capture_intervals SET start_ns = -1"
                                       << "capture_intervals row 1";
        QTest::newRow("text time") << "UPDATE capture_intervals SET end_ns = 'soon'"
                                   << "column end_ns holds text";
        QTest::newRow("missing table") << "DROP TABLE capture_intervals"
                                       << "missing table 'capture_intervals'";
    }
    void badRowsAreRefused() {
        QFETCH(QString, sql);
        QFETCH(QString, error);
        const std::string file = path("bad.stallscope");
        writeSession(file, "none", {{10'000, 20'000, reason::kDelay, reason::kDuration}});
        testing::execSql(file, sql.toUtf8().constData());
        const auto loaded = model::SessionLoader::load(file);
        QVERIFY(!loaded.ok());
        QVERIFY2(QString::fromStdString(loaded.error).contains(error), loaded.error.c_str());
    }

    // A run folder: each rank's intervals stay with its process; a rank recorded without capture
    // control (in a run whose other rank used it) recorded its whole time.
    void runKeepsEachRanksIntervals() {
        const QString run = m_dir.filePath("run");
        QVERIFY(QDir().mkpath(run));
        writeSession((run + "/rank0.stallscope").toStdString(), "nvtx:step",
                     {{10'000, 20'000, "nvtx:step", "nvtx:step"}}, 0);
        writeSession((run + "/rank1.stallscope").toStdString(), std::nullopt, {}, 1);
        const model::LoadResult loaded = model::RunMerger::load({run.toStdString()});
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const model::Session& s = *loaded.session;
        QVERIFY(s.captureControlled);
        QCOMPARE(s.captureIntervals.size(), size_t(2));
        QCOMPARE(s.processes[s.captureIntervals[0].processIndex].pid, int64_t(4001));
        QCOMPARE(s.captureIntervals[0].openedBy, std::string(reason::kStart));
        QCOMPARE(s.processes[s.captureIntervals[1].processIndex].pid, int64_t(4000));
        QCOMPARE(s.captureIntervals[1].startNs - s.processes[0].startNs, int64_t(9'000));
        QCOMPARE(s.notRecorded(), std::vector<TimeSpan>());
    }

private:
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

STALLSCOPE_TEST_GUILESS_MAIN(TestCaptureIntervals)
#include "test_capture_intervals.moc"
