// The what-if replay without the recorder's own cost (WhatIf::withoutRecorderOverhead, the costs
// from the session's meta recorder_*_overhead_ns): hand-computed answers on small timelines, both
// sides of each bound, and meta values a recorder could not have written.
#include "format/session_meta.h"
#include "model/whatif/replay.h"
#include "model/whatif/run_graph.h"
#include "tests/model/insight_fixture.h"
#include "tests/model/whatif_fixture.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using format::SyncKind;
using model::whatif::Replayer;
using model::whatif::WhatIf;
using testing::buildGraph;
using testing::Built;
using testing::lastGpuEnd;
using testing::stepStarts;
using testing::syncsOfStack;

namespace {

void setRecorderCost(testing::InsightFixture& fixture, const char* restartNs,
                     const char* launchNs) {
    fixture.writer().setMeta(format::meta::kRecorderRestartOverheadNs, restartNs);
    fixture.writer().setMeta(format::meta::kRecorderLaunchOverheadNs, launchNs);
}

// Ten launch calls 10 µs apart, each 500 ns long, their 2 µs kernels starting 3 µs after the call,
// written to `file` with the recorder's costs (none when `restartNs` is empty) and loaded.
std::unique_ptr<Built> launchLoop(const std::string& file, const QString& restartNs,
                                  const QString& launchNs) {
    QFile::remove(QString::fromStdString(file));
    testing::InsightFixture fixture(file, 10'000'000);
    for (const int64_t t : stepStarts(10, 10'000))
        fixture.launch(t, t + 3'000, t + 5'000);
    if (!restartNs.isEmpty())
        setRecorderCost(fixture, restartNs.toUtf8().constData(), launchNs.toUtf8().constData());
    fixture.load();
    return buildGraph(file);
}

WhatIf withoutRecorder(WhatIf changes = {}) {
    changes.withoutRecorderOverhead = true;
    return changes;
}

} // namespace

class TestWhatIfRecorderCost : public QObject {
    Q_OBJECT

private slots:
    void recorderCostLeavesTheRestarts();
    void recorderCostShortensLaunchCalls_data();
    void recorderCostShortensLaunchCalls();
    void recorderCostFromHostileMeta_data();
    void recorderCostFromHostileMeta();

private:
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

// A C++ loop: each 212 µs step launches a 200 µs kernel that starts 8 µs after its launch call and
// waits for it (3 µs wake-up, 1 µs to the next launch). The recorder measured 2 µs of its own in
// each restart: without it, every kernel that followed a sync starts 2 µs sooner in the "before"
// replay, while in the "after" replay only the first one is not queued behind another. The saving
// shrinks by 2 µs per removed sync; the unmodified replay still reproduces the recording.
void TestWhatIfRecorderCost::recorderCostLeavesTheRestarts() {
    testing::InsightFixture fixture(path("restart_cost.stallscope"), 100'000'000);
    const int64_t stack = fixture.nativeStack("loop.cu", 90, "runLoop");
    constexpr int kSteps = 12;
    for (const int64_t t0 : stepStarts(kSteps, 212'000)) {
        fixture.launch(t0, t0 + 8'000, t0 + 208'000);
        fixture.sync(SyncKind::Stream, t0 + 1'000, t0 + 211'000, stack, fixture.stream);
    }
    setRecorderCost(fixture, "2000", "300");
    fixture.load();
    const std::string file = path("restart_cost.stallscope");
    testing::checkReplayIdentity(file);
    const std::unique_ptr<Built> built = buildGraph(file);
    QCOMPARE(built->graph.latencies().recorderRestartNs, int64_t(2'000));
    QCOMPARE(built->graph.latencies().recorderLaunchNs, int64_t(300));
    model::whatif::ReplayOptions options;
    options.windowEndNs = lastGpuEnd(*built->session);
    const Replayer replayer(built->graph);
    WhatIf fix;
    fix.removedSyncs = syncsOfStack(*built->session, stack);
    const int64_t before = replayer.replay({}, options).windowEndNs;
    const int64_t after = replayer.replay(fix, options).windowEndNs;
    const int64_t plainBefore = replayer.replay(withoutRecorder(), options).windowEndNs;
    const int64_t plainAfter = replayer.replay(withoutRecorder(fix), options).windowEndNs;
    QCOMPARE(before, options.windowEndNs);
    QCOMPARE(before - plainBefore, int64_t(kSteps) * 2'000);
    QCOMPARE(after - plainAfter, int64_t(2'000));
    QCOMPARE((before - after) - (plainBefore - plainAfter), int64_t(kSteps - 1) * 2'000);
}

// The launch loop (launchLoop) is host-bound. Without the recorder's launch cost each call ends
// sooner (by at most its own length), so each later launch comes sooner; the restart cost moves
// each kernel by at most half its launch-to-start time.
void TestWhatIfRecorderCost::recorderCostShortensLaunchCalls_data() {
    QTest::addColumn<QString>("restartNs");
    QTest::addColumn<QString>("launchNs");
    QTest::addColumn<qint64>("sooner");
    QTest::newRow("launch cost") << "0"
                                 << "300" << qint64(9 * 300);
    QTest::newRow("launch cost past the call") << "0"
                                               << "800" << qint64(9 * 500);
    QTest::newRow("restart past half the lag") << "10000"
                                               << "300" << qint64(9 * 300 + 1'500);
    QTest::newRow("restart under half the lag") << "1000"
                                                << "0" << qint64(1'000);
    QTest::newRow("not measured") << ""
                                  << "" << qint64(0);
}

void TestWhatIfRecorderCost::recorderCostShortensLaunchCalls() {
    QFETCH(QString, restartNs);
    QFETCH(QString, launchNs);
    QFETCH(qint64, sooner);
    const std::unique_ptr<Built> built =
        launchLoop(path("launch_cost.stallscope"), restartNs, launchNs);
    model::whatif::ReplayOptions options;
    options.windowEndNs = lastGpuEnd(*built->session);
    const Replayer replayer(built->graph);
    QCOMPARE(replayer.replay({}, options).windowEndNs, options.windowEndNs);
    QCOMPARE(options.windowEndNs - replayer.replay(withoutRecorder(), options).windowEndNs, sooner);
}

// The costs come from a file: only counts a recorder could have measured are taken out.
void TestWhatIfRecorderCost::recorderCostFromHostileMeta_data() {
    QTest::addColumn<QString>("value");
    QTest::addColumn<qint64>("read");
    QTest::newRow("largest") << "100000" << qint64(100'000);
    QTest::newRow("past the largest") << "100001" << qint64(0);
    QTest::newRow("negative") << "-5" << qint64(0);
    QTest::newRow("text") << "2us" << qint64(0);
    QTest::newRow("huge") << "99999999999999999999999" << qint64(0);
}

void TestWhatIfRecorderCost::recorderCostFromHostileMeta() {
    QFETCH(QString, value);
    QFETCH(qint64, read);
    const std::unique_ptr<Built> built = launchLoop(path("hostile_cost.stallscope"), value, value);
    QCOMPARE(built->graph.latencies().recorderRestartNs, read);
    QCOMPARE(built->graph.latencies().recorderLaunchNs, read);
    QCOMPARE(built->graph.launchesWork(built->graph.threads()[0].firstStep), read > 0);
}

QTEST_GUILESS_MAIN(TestWhatIfRecorderCost)
#include "test_whatif_recorder_cost.moc"
