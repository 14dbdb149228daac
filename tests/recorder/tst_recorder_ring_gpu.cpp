// GPU test (ctest label "gpu") of the flight recorder: records tests/recorder/gpu/flight_loop with
// stallscope-record --ring, and checks that the session keeps only the ring's last seconds (the
// first half second's `early` kernels gone, every kernel and sync ending after the cut the interval
// names, none missing after it), that SIGUSR1 sent to stallscope-record writes a snapshot while the
// loop runs on, and that a step stalled on the host (--trigger-slow-step) writes one holding the
// kernel before the stall, where an evaluation that leaves the loop for as long writes none. Skips
// visibly without a GPU (or without nvcc to build the program).
#include "format/session_meta.h"
#include "format/session_rows.h"
#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "tests/support/test_suite.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <csignal>
#include <memory>
#include <utility>
#include <vector>

using stallscope::model::Session;
namespace meta = stallscope::format::meta;
namespace reason = stallscope::format::capture_reason;

namespace {

bool haveGpu() {
    return QFile::exists("/dev/nvidia0") || QFile::exists("/dev/nvidiactl");
}

constexpr int kWaitMs = 120000;

std::unique_ptr<Session> load(const QString& path) {
    auto loaded = stallscope::model::SessionLoader::load(path.toStdString());
    if (!loaded.ok())
        qWarning("%s: %s", qPrintable(path), loaded.error.c_str());
    return std::move(loaded.session);
}

// Kernels named `name`, and the earliest start and latest end of all kernels.
struct Kernels {
    int named = 0;
    int64_t all = 0, firstStart = INT64_MAX, lastEnd = 0;
};
Kernels kernels(const Session& s, const char* name) {
    Kernels k;
    for (const auto& lane : s.streamLanes)
        for (size_t i = 0; i < lane.kernels.size(); ++i) {
            k.named += s.string(lane.kernels.nameId[i]) == name;
            ++k.all;
            k.firstStart = std::min(k.firstStart, lane.kernels.start[i]);
            k.lastEnd = std::max(k.lastEnd, lane.kernels.end[i]);
        }
    return k;
}

// The syncs' [start, end] in start order.
std::vector<std::pair<int64_t, int64_t>> syncs(const Session& s) {
    std::vector<std::pair<int64_t, int64_t>> all;
    for (const auto& lane : s.hostLanes)
        for (size_t i = 0; i < lane.syncs.size(); ++i)
            all.emplace_back(lane.syncs.start[i], lane.syncs.end[i]);
    std::sort(all.begin(), all.end());
    return all;
}

} // namespace

class TestRecorderRingGpu : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Starts flight_loop under stallscope-record with `options`.
    void start(QProcess& process, const QString& session, const QStringList& options,
               const QStringList& arguments) {
        process.setProcessChannelMode(QProcess::ForwardedChannels);
        process.start(STALLSCOPE_RECORD,
                      QStringList{"-q", "--no-symbolize", "--no-calibration", "-o", session} +
                          options + QStringList{"--", STALLSCOPE_FLIGHT_LOOP} + arguments);
        QVERIFY(process.waitForStarted());
    }

private slots:
    void init() {
        if (!haveGpu())
            QSKIP("SKIP: no GPU");
        if (QString(STALLSCOPE_FLIGHT_LOOP).isEmpty())
            QSKIP("SKIP: flight_loop not built (no nvcc)");
    }

    // A 4 s loop with a 1 s ring: only its last second or so is kept, whole from the cut on.
    void theRingKeepsTheLastSeconds() {
        const QString session = m_dir.filePath("ring.stallscope");
        QProcess process;
        start(process, session, {"--ring", "1"}, {"4", m_dir.filePath("ready-ring")});
        QVERIFY(process.waitForFinished(kWaitMs));
        QCOMPARE(process.exitCode(), 0);
        const auto s = load(session);
        QVERIFY(s);
        QCOMPARE(s->metaValue(meta::kRingNs), std::string("1000000000"));
        QVERIFY(s->captureControlled);
        QCOMPARE(s->captureIntervals.size(), size_t(1));
        const auto& kept = s->captureIntervals.front();
        QCOMPARE(kept.openedBy, std::string(reason::kRing));
        QCOMPARE(kept.closedBy, std::string(reason::kEnd));
        const int64_t keptNs = kept.endNs - kept.startNs;
        // One second, and at most a commit period (500 ms) and the final cut's wait more.
        QVERIFY2(keptNs >= 1'000'000'000 && keptNs <= 1'600'000'000,
                 qPrintable(QString::number(keptNs)));
        const Kernels k = kernels(*s, "early");
        QCOMPARE(k.named, 0);
        QVERIFY2(k.all > 1000, qPrintable(QString::number(k.all))); // ~1,700 a second
        // Whole from the cut on: the loop's syncs that end after it follow each other a step
        // (~2 ms) apart from the cut to the end, with no hole. Before the cut there may be a few
        // that ended just before it but were written after its mark, never older than the ring's
        // commit period and the flush before it.
        const auto all = syncs(*s);
        int64_t previous = kept.startNs;
        int after = 0;
        for (const auto& [start, end] : all) {
            if (end <= kept.startNs) {
                QVERIFY2(kept.startNs - end < 1'000'000'000,
                         qPrintable(QString::number(kept.startNs - end)));
                continue;
            }
            QVERIFY2(start - previous < 50'000'000, qPrintable(QString::number(start - previous)));
            previous = start;
            ++after;
        }
        QVERIFY2(kept.endNs - previous < 50'000'000,
                 qPrintable(QString::number(kept.endNs - previous)));
        QVERIFY2(after > 300, qPrintable(QString::number(after)));
    }

    // SIGUSR1 to stallscope-record: a snapshot of the ring while the loop runs on.
    void sigusr1WritesASnapshot() {
        const QString session = m_dir.filePath("usr1.stallscope");
        const QString ready = m_dir.filePath("ready-usr1");
        QProcess process;
        start(process, session, {"--ring", "1"}, {"4", ready});
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(ready), kWaitMs);
        ::kill(pid_t(process.processId()), SIGUSR1);
        const QString snapshot = m_dir.filePath("usr1.snapshot-1.stallscope");
        QVERIFY(process.waitForFinished(kWaitMs));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(QFile::exists(snapshot));
        QVERIFY(!QFile::exists(m_dir.filePath("usr1.snapshot-2.stallscope")));
        const auto copy = load(snapshot);
        QVERIFY(copy);
        QCOMPARE(copy->status, std::string("complete"));
        QCOMPARE(copy->metaValue(meta::kSnapshotReason), std::string("SIGUSR1"));
        const int64_t takenNs = std::stoll(copy->metaValue(meta::kSnapshotNs));
        QCOMPARE(copy->captureIntervals.size(), size_t(1));
        QCOMPARE(copy->captureIntervals[0].endNs, takenNs);
        QCOMPARE(copy->captureIntervals[0].closedBy, std::string(reason::kSnapshot));
        const Kernels inCopy = kernels(*copy, "step_work");
        QVERIFY2(inCopy.named > 500, qPrintable(QString::number(inCopy.named)));
        QVERIFY(inCopy.lastEnd <= takenNs);
        // The recording went on: the session has the loop's later steps, and lists the snapshot.
        const auto s = load(session);
        QVERIFY(s);
        QVERIFY(kernels(*s, "step_work").lastEnd > takenNs + 1'000'000'000);
        QCOMPARE(QString::fromStdString(s->metaValue(meta::kRingSnapshots)), snapshot);
    }

    // A step stalled 400 ms on the host, 5x the ~2 ms median allowed: one snapshot, with the
    // kernel the step ran before the stall.
    void aSlowStepWritesASnapshot() {
        const QString session = m_dir.filePath("slow.stallscope");
        QProcess process;
        start(process, session, {"--ring", "1", "--trigger-slow-step", "5"},
              {"4", m_dir.filePath("ready-slow"), "2.5"});
        QVERIFY(process.waitForFinished(kWaitMs));
        QCOMPARE(process.exitCode(), 0);
        const QString snapshot = m_dir.filePath("slow.snapshot-1.stallscope");
        QVERIFY(QFile::exists(snapshot));
        QVERIFY(!QFile::exists(m_dir.filePath("slow.snapshot-2.stallscope")));
        const auto copy = load(snapshot);
        QVERIFY(copy);
        const QString why = QString::fromStdString(copy->metaValue(meta::kSnapshotReason));
        QVERIFY2(why.startsWith("slow step: "), qPrintable(why));
        QCOMPARE(kernels(*copy, "hiccup").named, 1);
        QVERIFY(kernels(*copy, "step_work").named > 500);
    }

    // The loop left for 400 ms of an evaluation that syncs at its own line: no step of the loop
    // was slow, so no snapshot (before, the step spanning the evaluation triggered one).
    void anEvaluationBetweenStepsWritesNone() {
        const QString session = m_dir.filePath("eval.stallscope");
        QProcess process;
        start(process, session, {"--ring", "1", "--trigger-slow-step", "5"},
              {"4", m_dir.filePath("ready-eval"), "-1", "2.5"});
        QVERIFY(process.waitForFinished(kWaitMs));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(!QFile::exists(m_dir.filePath("eval.snapshot-1.stallscope")));
        const auto s = load(session);
        QVERIFY(s);
        QVERIFY(kernels(*s, "step_work").named > 500); // the loop's last second
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestRecorderRingGpu)
#include "tst_recorder_ring_gpu.moc"
