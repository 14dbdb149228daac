// The flight recorder without a GPU (recorder/flight_recorder.h, stallscope-record --ring,
// --trigger-slow-step): the step clock on both sides of its factor, for a finished step and one
// still running, which sites it takes for the loop's clock; the marks the ring cuts at; the
// snapshots' names; and on a real session file, the rows a cut discards, the intervals and process
// it moves, and a snapshot written while the recording goes on, each read back by the loader.
#include "format/session_meta.h"
#include "format/session_rows.h"
#include "format/session_schema.h"
#include "model/session/session_loader.h"
#include "model/session/session_summary.h"
#include "recorder/flight_recorder.h"
#include "recorder/recorder_config.h"
#include "recorder/snapshot_names.h"
#include "tests/recorder/scratch_session.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <algorithm>
#include <optional>
#include <vector>

using namespace stallscope::recorder;
using stallscope::testing::ScratchSession;
namespace format = stallscope::format;
namespace reason = stallscope::format::capture_reason;

namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kRingSecond = 1'000'000'000;

// `steps` steps of stepNs at stack `stack`, from startNs; returns the last sync's start.
int64_t regularSteps(StepClock& clock, int64_t stack, int64_t startNs, int64_t stepNs, int steps) {
    int64_t at = startNs;
    for (int i = 0; i <= steps; ++i, at += stepNs)
        clock.syncBegan(stack, at);
    return at - stepNs;
}

// The kernels' start times of a loaded session, in order.
std::vector<int64_t> kernelStarts(const stallscope::model::Session& s) {
    std::vector<int64_t> starts;
    for (const auto& lane : s.streamLanes)
        starts.insert(starts.end(), lane.kernels.start.begin(), lane.kernels.start.end());
    std::sort(starts.begin(), starts.end());
    return starts;
}

// A session with one process, device and stream, and a kernel every second from 1 s to `seconds`
// (ending 10 ms after it starts), the ring's marks taken after each: marks[i] after the kernel
// of second i + 1.
struct RingSession {
    explicit RingSession(int seconds) : session("ring.stallscope") {
        format::SessionWriter& w = *session.writer;
        w.setMeta(format::meta::kCaptureRange, "none");
        w.setMeta(format::meta::kRingNs, std::to_string(3 * kRingSecond));
        processId =
            w.addProcess({1234, "host", "train", kRingSecond / 2, std::nullopt, std::nullopt});
        interval =
            w.addCaptureInterval({processId, kRingSecond / 2, std::nullopt, reason::kStart, ""});
        const int64_t device = w.addDevice({processId, 0, "GPU", "", 9, 0, 132, 1});
        stream = w.addStream({device, 1, 7, false, 0});
        name = w.internString("step_kernel");
        for (int second = 1; second <= seconds; ++second)
            addKernel(second * kRingSecond);
    }
    void addKernel(int64_t startNs) {
        format::KernelRow kernel;
        kernel.streamId = stream;
        kernel.nameId = name;
        kernel.startNs = startNs;
        kernel.endNs = startNs + 10 * kMs;
        kernel.correlationId = ++correlation;
        session.writer->addKernel(kernel);
        marks.push_back(session.writer->rowMarks());
    }
    ScratchSession session;
    int64_t processId = 0, interval = 0, stream = 0, name = 0, correlation = 0;
    std::vector<format::SessionWriter::RowMarks> marks;
};

} // namespace

class TestFlightRecorder : public QObject {
    Q_OBJECT
private slots:
    // A step is slow above factor x the median of the steps before it, not at it; the same step
    // is reported once.
    void finishedStepOnBothSidesOfTheFactor_data() {
        QTest::addColumn<int64_t>("stepNs");
        QTest::addColumn<bool>("slow");
        QTest::newRow("3.0x the median") << 30 * kMs << false;
        QTest::newRow("just past 3x") << 30 * kMs + 1 << true;
        QTest::newRow("twice") << 20 * kMs << false;
    }
    void finishedStepOnBothSidesOfTheFactor() {
        QFETCH(int64_t, stepNs);
        QFETCH(bool, slow);
        StepClock clock(3);
        const int64_t last = regularSteps(clock, 5, kRingSecond, 10 * kMs, 40);
        clock.syncBegan(5, last + stepNs);
        const auto found = clock.slowStep(last + stepNs + kMs);
        QCOMPARE(found.has_value(), slow);
        if (!found)
            return;
        QCOMPARE(found->stackId, int64_t(5));
        QCOMPARE(found->startNs, last);
        QCOMPARE(found->lengthNs, stepNs);
        QCOMPARE(found->medianNs, 10 * kMs);
        QVERIFY(!found->stillRunning);
        QVERIFY(!clock.slowStep(last + stepNs + 2 * kMs)); // reported already
    }

    // A step still running (no sync of the clock has ended since its start: a hang) is slow once
    // it has run longer than the factor allows, and is not reported again when it ends.
    void runningStepOnBothSidesOfTheFactor() {
        StepClock clock(4);
        const int64_t last = regularSteps(clock, 9, kRingSecond, 10 * kMs, 40);
        QVERIFY(!clock.slowStep(last + 40 * kMs));
        const auto running = clock.slowStep(last + 40 * kMs + 1);
        QVERIFY(running);
        QVERIFY(running->stillRunning);
        QCOMPARE(running->startNs, last);
        QCOMPARE(running->lengthNs, 40 * kMs + 1);
        clock.syncBegan(9, last + 900 * kMs); // the hang ends
        QVERIFY(!clock.slowStep(last + 901 * kMs));
        // The next slow step is reported again.
        const int64_t next = regularSteps(clock, 9, last + 900 * kMs, 10 * kMs, 30);
        clock.syncBegan(9, next + 100 * kMs);
        QVERIFY(clock.slowStep(next + 101 * kMs));
    }

    // A program that leaves its loop (an evaluation, a checkpoint, the end of training) syncs
    // again and again at a site the loop did not use during the clock's window: the step under
    // way is no hang, and the one that spans the excursion, ended when the loop comes back, is
    // not slow. One such sync (a rare branch of the step), or a site that syncs in every step,
    // leaves both reported. Before, both were always reported.
    void leavingTheLoopIsNotASlowStep_data() {
        QTest::addColumn<int64_t>("otherSite");
        QTest::addColumn<int64_t>("otherSiteBeforeNs"); // its sync before the loop, or -1
        QTest::addColumn<int>("otherSyncs");            // its syncs in the step
        QTest::addColumn<bool>("reported");
        QTest::newRow("a site new to the program, twice")
            << int64_t(7) << int64_t(-1) << 2 << false;
        QTest::newRow("a site new to the program, once") << int64_t(7) << int64_t(-1) << 1 << true;
        QTest::newRow("a site last used before the clock's window, twice")
            << int64_t(7) << kRingSecond - kMs << 2 << false;
        QTest::newRow("a site of every step, twice") << int64_t(3) << int64_t(-1) << 2 << true;
    }
    void leavingTheLoopIsNotASlowStep() {
        QFETCH(int64_t, otherSite);
        QFETCH(int64_t, otherSiteBeforeNs);
        QFETCH(int, otherSyncs);
        QFETCH(bool, reported);
        auto excursion = [&](StepClock& clock, int64_t atNs) {
            for (int i = 0; i < otherSyncs; ++i)
                clock.syncBegan(otherSite, atNs + i * kMs);
        };
        constexpr int64_t kStep = 10 * kMs;
        // 40 steps of the clock (site 2) from 1 s; site 3 syncs 2 ms into each step (but the
        // first).
        auto loop = [&](StepClock& clock) {
            if (otherSiteBeforeNs >= 0)
                clock.syncBegan(otherSite, otherSiteBeforeNs);
            int64_t at = kRingSecond;
            for (int i = 0; i <= 40; ++i, at += kStep) {
                clock.syncBegan(2, at);
                if (i >= otherSyncs) // as many as the clock's with the excursion's: a tie
                    clock.syncBegan(3, at + 2 * kMs);
            }
            return at - kStep;
        };
        StepClock running(4);
        const int64_t last = loop(running);
        QVERIFY(!running.slowStep(last + kMs));
        QCOMPARE(running.clockStack(), std::optional<int64_t>(2));
        excursion(running, last + 5 * kMs);
        QCOMPARE(running.slowStep(last + 4 * kStep + 1).has_value(), reported);

        StepClock finished(4);
        QCOMPARE(loop(finished), last);
        QVERIFY(!finished.slowStep(last + kMs));
        excursion(finished, last + 5 * kMs);
        finished.syncBegan(2, last + 20 * kStep); // back in the loop
        QCOMPARE(finished.slowStep(last + 20 * kStep + kMs).has_value(), reported);
        // Back in the loop, its next slow step is reported.
        const int64_t again = regularSteps(finished, 2, last + 20 * kStep, kStep, 10);
        finished.syncBegan(2, again + 5 * kStep);
        const auto slow = finished.slowStep(again + 5 * kStep + kMs);
        QVERIFY(slow);
        QCOMPARE(slow->startNs, again);
    }

    // The clock is the busiest site whose steps are regular: a site that syncs at two points of
    // each step (1 ms, then 19 ms apart) is not, however often it syncs; nor is one with fewer
    // than kMinSteps steps, nor a sync without a stack. No factor: no trigger at all.
    void theClockIsTheBusiestRegularSite() {
        StepClock clock(3);
        int64_t at = kRingSecond;
        for (int i = 0; i < 60; ++i, at += 20 * kMs) {
            clock.syncBegan(1, at);
            clock.syncBegan(1, at + kMs); // twice a step, unevenly
            if (i % 2 == 0)
                clock.syncBegan(2, at); // every other step: 40 ms
        }
        QCOMPARE(clock.clockStack(), std::optional<int64_t>(2));
        QCOMPARE(clock.medianStepNs(2), 40 * kMs);
        for (int i = 0; i < 100; ++i)
            clock.syncBegan(-1, at + i * kMs); // no stack
        QCOMPARE(clock.clockStack(), std::optional<int64_t>(2));

        StepClock young(3);
        regularSteps(young, 4, kRingSecond, 10 * kMs, int(StepClock::kMinSteps) - 1);
        QVERIFY(!young.clockStack());
        young.syncBegan(4, kRingSecond + int64_t(StepClock::kMinSteps) * 10 * kMs);
        QCOMPARE(young.clockStack(), std::optional<int64_t>(4));

        StepClock off;
        const int64_t last = regularSteps(off, 4, kRingSecond, 10 * kMs, 40);
        off.syncBegan(4, last + kRingSecond);
        QVERIFY(!off.slowStep(last + 2 * kRingSecond));
    }

    // The ring cuts at the newest mark at least ringNs old, once.
    void cutsAtTheNewestMarkOlderThanTheRing() {
        FlightRecorder flight(kRingSecond, 0);
        format::SessionWriter::RowMarks marks{};
        for (int i = 1; i <= 4; ++i) {
            marks[0] = i;
            flight.written(i * kRingSecond / 2, marks); // 0.5, 1.0, 1.5, 2.0 s
        }
        QVERIFY(!flight.cutDue(kRingSecond + kRingSecond / 2 - 1)); // nothing a second old yet
        const auto cut = flight.cutDue(2 * kRingSecond + kRingSecond / 5); // 1.0 s and before
        QVERIFY(cut);
        QCOMPARE(cut->atNs, kRingSecond);
        QCOMPARE(cut->marks[0], int64_t(2));
        QVERIFY(!flight.cutDue(2 * kRingSecond + kRingSecond / 5));
        QCOMPARE(flight.cutDue(3 * kRingSecond)->atNs, 2 * kRingSecond);
    }

    // A slow step triggers a snapshot with its reason, at most kMaxSnapshots a process.
    void slowStepsTriggerAtMostSoManySnapshots() {
        FlightRecorder flight(kRingSecond, 3);
        int64_t at = kRingSecond;
        int triggered = 0;
        for (int round = 0; round < FlightRecorder::kMaxSnapshots + 3; ++round) {
            at = regularSteps(flight.clock(), 1, at, 10 * kMs, 30) + 100 * kMs;
            flight.clock().syncBegan(1, at);
            if (const auto reason = flight.slowStepTrigger(at + kMs)) {
                QCOMPARE(QString::fromStdString(*reason),
                         QStringLiteral("slow step: 100.0 ms, 10.0x the median step of 10.0 ms"));
                QVERIFY(flight.takeSnapshot());
                ++triggered;
            }
        }
        QCOMPARE(triggered, FlightRecorder::kMaxSnapshots);
        QVERIFY(!flight.takeSnapshot());
    }

    void snapshotPaths_data() {
        QTest::addColumn<QString>("output");
        QTest::addColumn<QString>("snapshot");
        QTest::newRow("the run") << "/r/train.recording.stallscope"
                                 << "/r/train.snapshot-2.stallscope";
        QTest::newRow("a child") << "/r/train.recording.4711.stallscope"
                                 << "/r/train.snapshot-2.4711.stallscope";
        QTest::newRow("linked in") << "/r.recording/stallscope-9.stallscope"
                                   << "/r.recording/stallscope-9.snapshot-2.stallscope";
        QTest::newRow("no extension") << "/r.d/run"
                                      << "/r.d/run.snapshot-2";
    }
    void snapshotPaths() {
        QFETCH(QString, output);
        QFETCH(QString, snapshot);
        QCOMPARE(QString::fromStdString(snapshotPath(output.toStdString(), 2)), snapshot);
    }

    // The options' ranges, each on both sides.
    void ringOptions_data() {
        QTest::addColumn<QString>("ring");
        QTest::addColumn<QString>("factor");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("shortest ring") << "0.1"
                                       << "2" << true;
        QTest::newRow("ring too short") << "0.099999999"
                                        << "2" << false;
        QTest::newRow("longest ring") << "86400"
                                      << "1000" << true;
        QTest::newRow("ring too long") << "86400.000000001"
                                       << "3" << false;
        QTest::newRow("factor too small") << "30"
                                          << "1.999999999" << false;
        QTest::newRow("factor too large") << "30"
                                          << "1000.000000001" << false;
        QTest::newRow("not a number") << "30s"
                                      << "3" << false;
    }
    void ringOptions() {
        QFETCH(QString, ring);
        QFETCH(QString, factor);
        QFETCH(bool, accepted);
        CaptureSettings settings;
        const bool taken = settings.applyRing(ring.toStdString()).empty() &&
                           settings.applySlowStepTrigger(factor.toStdString()).empty();
        QCOMPARE(taken, accepted);
        if (!accepted)
            return;
        QVERIFY(settings.active());
        // Carried to the program's recorder unchanged.
        for (const std::string& entry : settings.environment())
            qputenv(entry.substr(0, entry.find('=')).c_str(),
                    QByteArray::fromStdString(entry.substr(entry.find('=') + 1)));
        std::string warnings;
        const RecorderConfig config = RecorderConfig::fromEnvironment(&warnings);
        QCOMPARE(config.capture.ringNs, settings.ringNs);
        QCOMPARE(config.capture.slowStepFactor, settings.slowStepFactor);
        QCOMPARE(QString::fromStdString(warnings), QString());
        qunsetenv("STALLSCOPE_RING");
        qunsetenv("STALLSCOPE_TRIGGER_SLOW_STEP");
    }

    // A cut discards the rows written up to its mark and nothing after; the process and the open
    // interval start at the cut, which the loader and the summary show.
    void aCutKeepsWhatEndedAfterIt() {
        RingSession ring(10);
        QVERIFY2(ring.session.writer, ring.session.error.c_str());
        format::SessionWriter& w = *ring.session.writer;
        // The interval of a range that closed before the cut goes; the open one moves.
        const int64_t closed = w.addCaptureInterval(
            {ring.processId, 2 * kRingSecond, std::nullopt, reason::kProfilerStart, ""});
        w.endCaptureInterval(closed, 3 * kRingSecond, reason::kProfilerStop);
        const int64_t cutNs = 6 * kRingSecond + 20 * kMs; // after the kernel of 6 s was written
        w.discardThrough(ring.marks[5], cutNs, reason::kRing);
        w.discardThrough(ring.marks[5], cutNs, reason::kRing); // twice: nothing more goes
        ring.addKernel(11 * kRingSecond);                      // written after the cut
        QVERIFY(w.finish(format::kStatusComplete));

        const auto loaded = stallscope::model::SessionLoader::load(ring.session.path.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const stallscope::model::Session& s = *loaded.session;
        QCOMPARE(kernelStarts(s),
                 (std::vector<int64_t>{7 * kRingSecond, 8 * kRingSecond, 9 * kRingSecond,
                                       10 * kRingSecond, 11 * kRingSecond}));
        QCOMPARE(s.captureIntervals.size(), size_t(1));
        QCOMPARE(s.captureIntervals[0].startNs, cutNs);
        QCOMPARE(s.captureIntervals[0].openedBy, std::string(reason::kRing));
        QCOMPARE(s.startNs, cutNs);
        QVERIFY(s.notRecorded().empty());
        const std::string summary = stallscope::model::SessionSummary::of(s).toText();
        QVERIFY2(summary.find("kept the last 3.000 s (--ring)") != std::string::npos,
                 summary.c_str());
        QVERIFY2(summary.find("from --ring's cut to the end: "
                              "all 4.990 s of the session") != std::string::npos,
                 summary.c_str());
    }

    // A snapshot is a finished session of its own with what was committed: its interval closed
    // by the snapshot, its reason in the meta; the recording goes on into the original file. An
    // existing file is never replaced.
    void aSnapshotIsASessionOfItsOwn() {
        RingSession ring(4);
        QVERIFY2(ring.session.writer, ring.session.error.c_str());
        format::SessionWriter& w = *ring.session.writer;
        const QString snapshot = ring.session.dir.filePath("ring.snapshot-1.stallscope");
        std::string error;
        QVERIFY2(w.writeSnapshot(snapshot.toStdString(), 5 * kRingSecond, reason::kSnapshot,
                                 format::kStatusComplete,
                                 {{std::string(format::meta::kSnapshotReason), "SIGUSR1"}}, &error),
                 error.c_str());
        QVERIFY(!w.writeSnapshot(snapshot.toStdString(), 5 * kRingSecond, reason::kSnapshot,
                                 format::kStatusComplete, {}, &error));
        QVERIFY2(error.find(snapshot.toStdString()) == 0, error.c_str());
        QVERIFY(w.ok());
        ring.addKernel(6 * kRingSecond);
        w.endCaptureInterval(ring.interval, 7 * kRingSecond, reason::kEnd);
        QVERIFY(w.finish(format::kStatusComplete));

        const auto copy = stallscope::model::SessionLoader::load(snapshot.toStdString());
        QVERIFY2(copy.ok(), copy.error.c_str());
        QCOMPARE(copy.session->metaValue(format::meta::kStatus),
                 std::string(format::kStatusComplete));
        QCOMPARE(copy.session->metaValue(format::meta::kSnapshotReason), std::string("SIGUSR1"));
        QCOMPARE(
            kernelStarts(*copy.session),
            (std::vector<int64_t>{kRingSecond, 2 * kRingSecond, 3 * kRingSecond, 4 * kRingSecond}));
        QCOMPARE(copy.session->captureIntervals.size(), size_t(1));
        QCOMPARE(copy.session->captureIntervals[0].endNs, 5 * kRingSecond);
        QCOMPARE(copy.session->captureIntervals[0].closedBy, std::string(reason::kSnapshot));
        QVERIFY(!QFile::exists(snapshot + "-wal"));
        const std::string summary = stallscope::model::SessionSummary::of(*copy.session).toText();
        QVERIFY2(summary.find("(--ring); snapshot on SIGUSR1") != std::string::npos,
                 summary.c_str());
        QVERIFY2(summary.find("to the snapshot (the recording went on)") != std::string::npos,
                 summary.c_str());

        const auto original =
            stallscope::model::SessionLoader::load(ring.session.path.toStdString());
        QVERIFY2(original.ok(), original.error.c_str());
        QCOMPARE(kernelStarts(*original.session).size(), size_t(5));
        QCOMPARE(original.session->captureIntervals[0].closedBy, std::string(reason::kEnd));
        QCOMPARE(original.session->metaValue(format::meta::kSnapshotReason), std::string());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestFlightRecorder)
#include "test_flight_recorder.moc"
