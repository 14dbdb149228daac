// A recording with capture control that opened its range twice (stallscope-record
// --capture-range nvtx:step --capture-range-end repeat): the stretch between the ranges was not
// recorded, so a finding's share is of the time that was (Session::notRecordedNsWithin), not of
// a window that spans the gap. Without capture control the same events share the whole window.
#include "format/session_meta.h"
#include "format/session_rows.h"
#include "model/analysis/analysis_window.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace stallscope;
using testing::insightAt;
using testing::InsightFixture;
using Kind = format::SyncKind;

namespace {

constexpr int64_t kRangeNs = 100'000'000; // two ranges of 100 ms
constexpr int64_t kFirstRange = 1'000'000'000, kSecondRange = 2'000'000'000;
constexpr int64_t kCaptureStepNs = 5'000'000;

// Each range: 20 steps of a 2 ms kernel that the host waits for (line 41), then 3 ms of host
// work with the GPU idle. Nothing when the fixture failed (which failed the test).
std::optional<model::InsightReport> analyze(const std::string& path, bool captureControlled) {
    InsightFixture f(path, 3'000'000'000);
    if (captureControlled)
        f.writer().setMeta(format::meta::kCaptureRange, "nvtx:step");
    const int64_t stack = f.pythonStack("/home/u/train.py", 41, "main");
    for (const int64_t range : {kFirstRange, kSecondRange}) {
        if (captureControlled) {
            const int64_t interval =
                f.writer().addCaptureInterval({f.process, range, std::nullopt, "nvtx:step", ""});
            f.writer().endCaptureInterval(interval, range + kRangeNs, "nvtx:step");
        }
        for (int64_t t = range; t < range + kRangeNs; t += kCaptureStepNs) {
            f.launch(t, t + 10'000, t + 2'000'000);
            f.sync(Kind::Stream, t + 20'000, t + 2'010'000, stack, f.stream);
        }
    }
    const auto loaded = f.load();
    if (!loaded.ok())
        return std::nullopt;
    model::AnalysisOptions options;
    options.window = model::sessionWindow(*loaded.session);
    return loaded.analyze(options);
}

} // namespace

class TestCaptureWindow : public QObject {
    Q_OBJECT
private slots:
    void sharesAreOfTheRecordedTime() {
        QTemporaryDir dir;
        for (const bool captured : {true, false}) {
            const std::optional<model::InsightReport> report = analyze(
                dir.filePath(captured ? "captured.stallscope" : "plain.stallscope").toStdString(),
                captured);
            QVERIFY(report);
            const model::Insight* sync = insightAt(*report, 41);
            QVERIFY(sync);
            QVERIFY(sync->savingsNs > 0);
            // The window is the whole session; with capture control, all but the two ranges
            // (and the few µs of each range's last sync past its end) were not recorded.
            const int64_t windowNs = report->summary.windowEndNs - report->summary.windowStartNs;
            const int64_t unrecorded = captured ? windowNs - 2 * kRangeNs : 0;
            const double expected =
                static_cast<double>(sync->savingsNs) / static_cast<double>(windowNs - unrecorded);
            QVERIFY2(std::abs(sync->share - expected) < 1e-3 * expected,
                     qPrintable(QStringLiteral("%1 against %2").arg(sync->share).arg(expected)));
        }
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestCaptureWindow)
#include "test_capture_window.moc"
