// The recorder's in-run overhead probe as the model reads it (format/overhead_probe.h,
// model/whatif/recorder_cost.h): a host-bound loop whose recording is slowed by a known cost per
// launch (8 µs on 5 launches a step: 140 µs recorded, 100 µs with the collection off), with two
// stretches of 2 ms in which the probe counted the loop's sync calls only. The stretches are not
// recorded (notRecorded), the loop is the longest run that no stretch cuts, and the replays take
// out the measured cost per launching call, which the card's assumptions say.
#include "format/overhead_probe.h"
#include "format/session_meta.h"
#include "model/analysis/analysis_window.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using testing::InsightFixture;

namespace {

constexpr int64_t kUs = 1'000, kMs = 1'000'000;
constexpr int64_t kRecordedStepNs = 140 * kUs, kPlainStepNs = 100 * kUs;
constexpr int kLaunches = 5;
constexpr int64_t kLaunchCostNs = (kRecordedStepNs - kPlainStepNs) / kLaunches; // 8 µs
// Collection off: [14, 16) ms and [18, 20) ms; the run ends at 40 ms.
constexpr int64_t kOff[2][2] = {{14 * kMs, 16 * kMs}, {18 * kMs, 20 * kMs}};
constexpr int64_t kEndNs = 40 * kMs;

format::OverheadProbeRecord probeOf(int64_t calls) {
    format::OverheadProbeRecord probe;
    probe.api = "cudaStreamSynchronize";
    for (const auto& off : kOff)
        probe.offPhases.push_back({off[0], off[1], calls, off[0] + 50 * kUs,
                                   off[0] + 50 * kUs + (calls - 1) * kPlainStepNs});
    return probe;
}

bool inStretch(int64_t t) {
    for (const auto& off : kOff)
        if (t >= off[0] && t < off[1])
            return true;
    return false;
}

// The loop, recorded outside the stretches; `probe`: the meta the recorder writes (none: a
// recording without the probe that left the same holes).
void writeLoop(InsightFixture& f, const std::optional<std::string>& probe) {
    if (probe)
        f.writer().setMeta(format::meta::kRecorderOverheadProbe, *probe);
    const int64_t stack = f.pythonStack("/home/u/serve.py", 27, "main");
    for (int64_t t0 = 10 * kUs; t0 + kRecordedStepNs < kEndNs;) {
        if (inStretch(t0)) { // the program ran at its plain speed here
            t0 += kPlainStepNs;
            continue;
        }
        for (int k = 0; k < kLaunches; ++k)
            f.launch(t0 + k * 20 * kUs, t0 + k * 20 * kUs + 2 * kUs, t0 + k * 20 * kUs + 12 * kUs);
        f.sync(format::SyncKind::Stream, t0 + 100 * kUs, t0 + 102 * kUs, stack, f.stream);
        t0 += kRecordedStepNs;
    }
}

// Not ok() when the fixture failed (which failed the test).
testing::LoadedFixture record(const std::string& path, const std::optional<std::string>& probe) {
    InsightFixture f(path, 50 * kMs);
    writeLoop(f, probe);
    return f.load();
}

} // namespace

class TestRecorderCost : public QObject {
    Q_OBJECT
private slots:
    void probeTextRoundTrips() {
        const format::OverheadProbeRecord probe = probeOf(20);
        QCOMPARE(format::OverheadProbeRecord::parse(probe.text()), std::optional(probe));
    }

    void malformedProbe_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("no api") << "off=1,2,0,0,0";
        QTest::newRow("empty api") << "api=";
        QTest::newRow("odd name") << "api=cuda'; DROP";
        QTest::newRow("ends before it starts") << "api=x;off=5,1,0,0,0";
        QTest::newRow("call outside") << "api=x;off=1,5,2,0,4";
        QTest::newRow("last before first") << "api=x;off=1,9,2,5,3";
        QTest::newRow("negative") << "api=x;off=-1,5,0,0,0";
        QTest::newRow("four numbers") << "api=x;off=1,5,0,0";
        QTest::newRow("six numbers") << "api=x;off=1,5,0,0,0,0";
        QTest::newRow("text") << "api=x;off=1,soon,0,0,0";
        QTest::newRow("nine stretches") << "api=x" + QString(";off=1,2,0,0,0").repeated(9);
    }
    void malformedProbe() {
        QFETCH(QString, text);
        QVERIFY(!format::OverheadProbeRecord::parse(text.toStdString()));
        QTemporaryDir dir;
        const std::string path = dir.filePath("bad.stallscope").toStdString();
        InsightFixture f(path, 50 * kMs);
        writeLoop(f, text.toStdString());
        QVERIFY(f.writer().finish("complete"));
        const auto loaded = model::SessionLoader::load(path);
        QVERIFY(!loaded.ok());
        QVERIFY2(QString::fromStdString(loaded.error).contains("recorder_overhead_probe"),
                 loaded.error.c_str());
    }
    void eightStretchesAreTheMost() {
        QVERIFY(format::OverheadProbeRecord::parse(
            "api=x" + std::string(";off=1,2,0,0,0")
                          .append(";off=3,4,0,0,0;off=5,6,0,0,0;off=7,8,"
                                  "0,0,0;off=9,10,0,0,0;off=11,12,0,0,0;"
                                  "off=13,14,0,0,0;off=15,16,0,0,0")));
    }

    void stretchesAreNotRecorded() {
        QTemporaryDir dir;
        const auto loaded =
            record(dir.filePath("probe.stallscope").toStdString(), probeOf(20).text());
        QVERIFY(loaded.ok());
        const model::Session& s = *loaded.session;
        const std::vector<model::TimeSpan> expected{{kOff[0][0], kOff[0][1]},
                                                    {kOff[1][0], kOff[1][1]}};
        QCOMPARE(s.notRecorded(), expected);
        QCOMPARE(s.notRecordedNsWithin(15 * kMs, 19 * kMs), 2 * kMs);
    }

    void loopIsTheLongestRunNoStretchCuts() {
        QTemporaryDir dir;
        for (const bool withProbe : {true, false}) {
            const auto loaded = record(
                dir.filePath(withProbe ? "with.stallscope" : "without.stallscope").toStdString(),
                withProbe ? std::optional(probeOf(20).text()) : std::nullopt);
            QVERIFY(loaded.ok());
            const model::InsightReport report = loaded.analyze();
            const auto& summary = report.summary;
            if (withProbe) {
                // After the second stretch: 20 .. 40 ms, steps of the recorded 140 µs.
                QVERIFY2(summary.windowStartNs >= kOff[1][1],
                         qPrintable(QString::number(summary.windowStartNs)));
                // (The last step ends with its last kernel, a little short of a whole step.)
                QVERIFY2(std::abs(summary.stepNs - kRecordedStepNs) < kUs,
                         qPrintable(QString::number(summary.stepNs)));
            } else {
                // Not told of the holes, the loop runs across them: its steps look longer.
                QVERIFY(summary.windowStartNs < kOff[0][0]);
            }
        }
    }

    void measuredCostPerLaunchIsLeftOut() {
        QTemporaryDir dir;
        const auto loaded =
            record(dir.filePath("probe.stallscope").toStdString(), probeOf(20).text());
        QVERIFY(loaded.ok());
        const model::InsightReport report = loaded.analyze();
        QCOMPARE(report.summary.recorderLaunchOverheadNs, kLaunchCostNs);
        QCOMPARE(report.summary.recorderRestartOverheadNs, int64_t(0));
        QVERIFY2(QString::fromStdString(report.assumptions)
                     .contains("measured in this run (its collection off 4 times beside "
                               "recorded stretches): it slowed the loop by 40 %"),
                 report.assumptions.c_str());
    }

    void tooFewCallsMeasureNothing() {
        // Two calls a stretch (kMinProbeCalls is 3): no interval to trust, nothing left out.
        QTemporaryDir dir;
        const auto loaded = record(dir.filePath("few.stallscope").toStdString(), probeOf(2).text());
        QVERIFY(loaded.ok());
        const model::InsightReport report = loaded.analyze();
        QCOMPARE(report.summary.recorderLaunchOverheadNs, int64_t(0));
        QVERIFY(!QString::fromStdString(report.assumptions).contains("measured in this run"));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestRecorderCost)
#include "test_recorder_cost.moc"
