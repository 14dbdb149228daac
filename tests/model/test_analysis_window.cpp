// The analysis window (model/analysis/analysis_window.h): the active window skips start-up before
// the first GPU work and ends at the last end (also of an early long kernel); every parseWindow
// form on the small session (times relative to its start at 1 µs) and every error; the summary's
// busy and blocked times clipped at both window edges, with shares over the window; the text and
// JSON lines that show it.
#include "model/analysis/analysis_window.h"
#include "model/analysis/insight_json.h"
#include "model/analysis/insight_text.h"
#include "model/session/session_loader.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/small_session.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using testing::InsightFixture;

class TestAnalysisWindow : public QObject {
    Q_OBJECT
private slots:
    void activeWindowSkipsStartup();
    void activeWindowWithoutGpuWork();
    void overlapAtTheEdges();
    void parseForms_data();
    void parseForms();
    void profilerStepsBeforeNvtxSteps();
    void nvtxStepsOfTheBusiestThreadAtTheOutermostDepth();
    void parseErrors_data();
    void parseErrors();
    void statisticsClippedToTheWindow();
    void summaryTextAndJson();

private:
    std::string path(const std::string& name) { return m_dir.filePath(name.c_str()).toStdString(); }
    // The small session: starts at 1 µs (its process), ends at 100 µs; GPU work 1.5–23 µs;
    // ranges "step 0" [1.5, 24] µs and "forward" [1.6, 4.8] µs on the main thread. Null when it
    // cannot be written or loaded (which fails the test).
    const model::Session* smallSession() {
        if (!m_small) {
            const std::string file = path("small.stallscope");
            if (!testing::writeSmallSession(file))
                return nullptr;
            auto result = model::SessionLoader::load(file);
            if (!result.ok()) {
                STALLSCOPE_FAIL("cannot load %s: %s", file.c_str(), result.error.c_str());
                return nullptr;
            }
            m_small = std::move(result.session);
        }
        return m_small.get();
    }
    void range(InsightFixture& f, int64_t thread, const std::string& name, int64_t start,
               int64_t end, int64_t depth = 0) {
        f.writer().addRange({thread, format::RangeKind::NvtxPushPop, f.writer().internString(name),
                             start, end, depth});
    }
    QTemporaryDir m_dir;
    std::shared_ptr<model::Session> m_small;
};

void TestAnalysisWindow::activeWindowSkipsStartup() {
    InsightFixture f(path("active.stallscope"));
    const int64_t second = f.addStream(9);
    // Uploading the model before the first kernel is start-up, not the run's work.
    f.memcpy(100'000, 150'000, format::CopyKind::HtoD, format::MemoryKind::Pageable,
             format::MemoryKind::Device, 1 << 20, false);
    f.kernel(300'000, 400'000);
    f.kernel(350'000, 900'000, 0, second); // starts early, ends last
    f.memcpy(600'000, 700'000, format::CopyKind::DtoH, format::MemoryKind::Device,
             format::MemoryKind::Pinned, 64, true);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::AnalysisWindow window = model::activeWindow(*loaded.session);
    QCOMPARE(window.kind, model::AnalysisWindow::Kind::Active);
    QCOMPARE(window.startNs, int64_t(300'000));
    QCOMPARE(window.endNs, int64_t(900'000));
    QCOMPARE(window.durationNs(), int64_t(600'000));
    QCOMPARE(window.label, std::string("active (first kernel to last GPU work)"));

    const model::SessionStatistics s = loaded.analyze().summary; // the default window
    QCOMPARE(s.wallNs, int64_t(1'000'000));
    QCOMPARE(s.windowStartNs, int64_t(300'000));
    QCOMPARE(s.windowEndNs, int64_t(900'000));
    QCOMPARE(s.windowNs, int64_t(600'000));
    QCOMPARE(s.startupNs, int64_t(300'000));
    QCOMPARE(s.gpuBusyNs, int64_t(600'000));
    QCOMPARE(s.gpuBusyShare, 1.0);
}

void TestAnalysisWindow::activeWindowWithoutGpuWork() {
    InsightFixture f(path("idle.stallscope"));
    f.sync(format::SyncKind::Device, 100'000, 200'000, std::nullopt);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::AnalysisWindow window = model::activeWindow(*loaded.session);
    QCOMPARE(window.startNs, int64_t(0));
    QCOMPARE(window.endNs, int64_t(1'000'000));
    QCOMPARE(window.label, std::string("whole session (no GPU work)"));
    const model::SessionStatistics s = loaded.analyze().summary;
    QCOMPARE(s.startupNs, int64_t(0));
    QCOMPARE(s.hostBlockedShare, 0.1);
}

void TestAnalysisWindow::overlapAtTheEdges() {
    const model::AnalysisWindow window{model::AnalysisWindow::Kind::Time, 100, 200, "w"};
    QVERIFY(window.contains(100));
    QVERIFY(!window.contains(200));
    QCOMPARE(window.overlapNs(50, 150), int64_t(50));
    QCOMPARE(window.overlapNs(150, 250), int64_t(50));
    QCOMPARE(window.overlapNs(0, 300), int64_t(100));
    QCOMPARE(window.overlapNs(0, 100), int64_t(0)); // touching is not overlapping
    QCOMPARE(window.overlapNs(200, 300), int64_t(0));
    QVERIFY(!window.overlaps(0, 100));
    QVERIFY(window.overlaps(199, 300));
    model::BusyIntervals busy;
    for (auto [s, e] : {std::pair(0, 20), std::pair(90, 110), std::pair(120, 130),
                        std::pair(190, 260), std::pair(300, 400)})
        busy.add(s, e);
    QCOMPARE(window.overlapNs(busy), int64_t(10 + 10 + 10));
}

void TestAnalysisWindow::parseForms_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<qint64>("start"); // ns, absolute (the session starts at 1,000)
    QTest::addColumn<qint64>("end");
    QTest::addColumn<QString>("label");
    QTest::addColumn<int>("kind");
    using K = model::AnalysisWindow::Kind;
    // From the first kernel (3 µs), not the copy before it (1.5 µs).
    QTest::newRow("active") << "active" << 3000LL << 23000LL
                            << "active (first kernel to last GPU work)" << int(K::Active);
    QTest::newRow("all") << "all" << 1000LL << 100000LL << "whole session" << int(K::All);
    QTest::newRow("one step") << "steps:1" << 1500LL << 24000LL << "step 1 (NVTX ranges step…)"
                              << int(K::Steps);
    QTest::newRow("steps A-A") << "steps:1-1" << 1500LL << 24000LL << "step 1 (NVTX ranges step…)"
                               << int(K::Steps);
    QTest::newRow("range") << "range:forward" << 1600LL << 4800LL << "range \"forward\""
                           << int(K::Range);
    QTest::newRow("range with a space")
        << "range:step 0" << 1500LL << 24000LL << "range \"step 0\"" << int(K::Range);
    QTest::newRow("µs") << "2us:10µs" << 3000LL << 11000LL << "time range" << int(K::Time);
    QTest::newRow("ns and ms") << "500ns:0.01ms" << 1500LL << 11000LL << "time range"
                               << int(K::Time);
    QTest::newRow("seconds without a unit")
        << "0.000002:0.00001" << 3000LL << 11000LL << "time range" << int(K::Time);
    QTest::newRow("s") << "0.000002s:0.00001s" << 3000LL << 11000LL << "time range" << int(K::Time);
    QTest::newRow("open end") << "50us:" << 51000LL << 100000LL << "time range" << int(K::Time);
    QTest::newRow("open start") << ":10us" << 1000LL << 11000LL << "time range" << int(K::Time);
    QTest::newRow("end past the session")
        << "50us:1s" << 51000LL << 100000LL << "time range" << int(K::Time);
}

void TestAnalysisWindow::parseForms() {
    QFETCH(QString, spec);
    QFETCH(qint64, start);
    QFETCH(qint64, end);
    QFETCH(QString, label);
    QFETCH(int, kind);
    const model::Session* small = smallSession();
    QVERIFY(small);
    std::string error;
    const auto window = model::parseWindow(spec.toStdString(), *small, &error);
    QVERIFY2(window, error.c_str());
    QVERIFY(error.empty());
    QCOMPARE(window->startNs, start);
    QCOMPARE(window->endNs, end);
    QCOMPARE(QString::fromStdString(window->label), label);
    QCOMPARE(int(window->kind), kind);
}

// ProfilerStep#N ranges win over NVTX "step" ranges, even where those are more; the Ath step is
// the Ath in time, whatever its number.
void TestAnalysisWindow::profilerStepsBeforeNvtxSteps() {
    InsightFixture f(path("profiler_steps.stallscope"));
    const int64_t worker = f.addThread(4243);
    for (int i = 0; i < 5; ++i)
        range(f, worker, "step", 10'000 * i, 10'000 * i + 5'000);
    for (int i = 0; i < 3; ++i)
        range(f, f.thread, "ProfilerStep#" + std::to_string(7 + i), 100'000 * (i + 1),
              100'000 * (i + 1) + 50'000);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    std::string error;
    const auto window = model::parseWindow("steps:2-3", *loaded.session, &error);
    QVERIFY2(window, error.c_str());
    QCOMPARE(window->startNs, int64_t(200'000));
    QCOMPARE(window->endNs, int64_t(350'000));
    QCOMPARE(window->label, std::string("steps 2–3 (ProfilerStep#N)"));
    QVERIFY(!model::parseWindow("steps:1-4", *loaded.session, &error));
    QCOMPARE(error, std::string("steps:1-4 asks for step 4, but the session has 3 steps "
                                "(ProfilerStep#N)"));
    // The first step of a window is the first whose middle lies in it (as stepsInWindow counts);
    // the NVTX steps, outranked, never count.
    QCOMPARE(model::firstStepInWindow(*loaded.session, 0, 400'000),
             std::optional<int64_t>(100'000));
    QCOMPARE(model::firstStepInWindow(*loaded.session, 130'000, 400'000),
             std::optional<int64_t>(200'000));
    QCOMPARE(model::firstStepInWindow(*loaded.session, 0, 60'000), std::nullopt);
    QCOMPARE(model::stepsInWindow(*loaded.session, 130'000, 400'000), int64_t(2));
}

// "step_forward" inside "step" is not a step of its own; the thread with the most steps counts.
void TestAnalysisWindow::nvtxStepsOfTheBusiestThreadAtTheOutermostDepth() {
    InsightFixture f(path("nvtx_steps.stallscope"));
    const int64_t worker = f.addThread(4243);
    for (int i = 0; i < 2; ++i) {
        range(f, f.thread, "Step", 100'000 * i, 100'000 * i + 90'000);
        for (int j = 0; j < 3; ++j)
            range(f, f.thread, "step_forward", 100'000 * i + 20'000 * j,
                  100'000 * i + 20'000 * j + 10'000, 1);
    }
    for (int i = 0; i < 3; ++i)
        range(f, worker, "step", 500'000 + 100'000 * i, 500'000 + 100'000 * i + 10'000);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    std::string error;
    const auto window = model::parseWindow("steps:3", *loaded.session, &error);
    QVERIFY2(window, error.c_str());
    QCOMPARE(window->startNs, int64_t(700'000));
    QCOMPARE(window->endNs, int64_t(710'000));
    QVERIFY(!model::parseWindow("steps:4", *loaded.session, &error));
    QVERIFY2(error.find("the session has 3 steps (NVTX ranges step…)") != std::string::npos,
             error.c_str());
}

void TestAnalysisWindow::parseErrors_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("error");
    const QString forms = QStringLiteral("; use loop (the default");
    QTest::newRow("garbage") << "soon"
                             << "\"soon\" is not a window" + forms;
    QTest::newRow("empty") << ""
                           << "an empty window" + forms;
    QTest::newRow("steps not numbers")
        << "steps:a-b"
        << "\"steps:a-b\" is not a step range; use steps:A-B with 1 <= A <= B";
    QTest::newRow("steps from 0") << "steps:0-1"
                                  << "\"steps:0-1\" is not a step range";
    QTest::newRow("steps backwards") << "steps:3-2"
                                     << "\"steps:3-2\" is not a step range";
    QTest::newRow("steps trailing") << "steps:1-2x"
                                    << "\"steps:1-2x\" is not a step range";
    QTest::newRow("steps beyond")
        << "steps:1-2"
        << "steps:1-2 asks for step 2, but the session has 1 step (NVTX ranges step…)";
    QTest::newRow("range without a name") << "range:"
                                          << "range: wants the name of a range";
    QTest::newRow("unknown range")
        << "range:Forward"
        << "no range named \"Forward\"; the session's ranges include \"step 0\", \"forward\"";
    QTest::newRow("end before start")
        << "10us:2us"
        << "the end (2 µs) must come after the start (10 µs) in \"10us:2us\"";
    QTest::newRow("end at start") << "2us:2000ns"
                                  << "the end (2 µs) must come after the start";
    QTest::newRow("start after the session")
        << "200us:"
        << "the window starts at 200 µs, after the session ends (99 µs after its start)";
    QTest::newRow("bad unit") << "2h:3h"
                              << "\"2h\" in \"2h:3h\" is not a time; use a number with "
                                 "s, ms, us or ns (seconds without a unit)";
    QTest::newRow("negative") << "-1s:2s"
                              << "\"-1s\" in \"-1s:2s\" is not a time";
    QTest::newRow("bad end") << "1us:x"
                             << "\"x\" in \"1us:x\" is not a time";
}

void TestAnalysisWindow::parseErrors() {
    QFETCH(QString, spec);
    QFETCH(QString, error);
    const model::Session* small = smallSession();
    QVERIFY(small);
    std::string message;
    QVERIFY(!model::parseWindow(spec.toStdString(), *small, &message));
    QVERIFY2(QString::fromStdString(message).startsWith(error), message.c_str());
}

// Window [200, 600] µs: a kernel and a sync straddle each edge, one of each lies inside, others
// lie outside (and a stream-wait-event inside does not block the host).
void TestAnalysisWindow::statisticsClippedToTheWindow() {
    InsightFixture f(path("clipped.stallscope"));
    f.kernel(0, 50'000);        // before
    f.kernel(100'000, 300'000); // straddles the start: 100 µs inside
    f.kernel(400'000, 450'000); // inside: 50 µs
    f.kernel(550'000, 800'000); // straddles the end: 50 µs inside
    f.kernel(900'000, 950'000); // after
    f.sync(format::SyncKind::Stream, 150'000, 250'000, std::nullopt, f.stream); // 50 µs inside
    f.sync(format::SyncKind::Device, 300'000, 320'000, std::nullopt);           // 20 µs
    f.sync(format::SyncKind::Stream, 500'000, 700'000, std::nullopt, f.stream); // 100 µs
    f.sync(format::SyncKind::StreamWaitEvent, 400'000, 410'000, std::nullopt, f.stream);
    f.sync(format::SyncKind::Device, 800'000, 900'000, std::nullopt); // after
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    std::string error;
    model::AnalysisOptions options;
    options.window = model::parseWindow("200us:600us", *loaded.session, &error);
    QVERIFY2(options.window, error.c_str());
    const model::SessionStatistics s = loaded.analyze(options).summary;
    QCOMPARE(s.wallNs, int64_t(1'000'000));
    QCOMPARE(s.windowNs, int64_t(400'000));
    QCOMPARE(s.startupNs, int64_t(200'000));
    QCOMPARE(s.devices.size(), size_t(1));
    QCOMPARE(s.devices[0].busyNs, int64_t(100'000 + 50'000 + 50'000));
    QCOMPARE(s.devices[0].busyShare, 0.5);
    QCOMPARE(s.gpuBusyNs, s.devices[0].busyNs);
    QCOMPARE(s.gpuBusyShare, 0.5);
    QCOMPARE(s.hostSyncCount, int64_t(3));
    QCOMPARE(s.hostBlockedNs, int64_t(50'000 + 20'000 + 100'000));
    QCOMPARE(s.hostBlockedShare, 0.425);

    // Over the whole session nothing is clipped.
    options.window = model::parseWindow("all", *loaded.session, &error);
    const model::SessionStatistics all = loaded.analyze(options).summary;
    QCOMPARE(all.startupNs, int64_t(0));
    QCOMPARE(all.gpuBusyNs, int64_t(50'000 + 200'000 + 50'000 + 250'000 + 50'000));
    QCOMPARE(all.hostSyncCount, int64_t(4));
    QCOMPARE(all.hostBlockedNs, int64_t(100'000 + 20'000 + 200'000 + 100'000));
}

void TestAnalysisWindow::summaryTextAndJson() {
    InsightFixture f(path("output.stallscope"));
    f.kernel(250'000, 750'000);
    const auto loaded = f.load();
    QVERIFY(loaded.ok());
    const model::InsightReport report = loaded.analyze();
    const std::string text = model::insightReportToText(report);
    QVERIFY2(text.find("\nWindow: active (first kernel to last GPU work) 250 µs – 750 µs (500 µs)\n"
                       "Start-up: 250 µs before the window (not counted in shares)\n") !=
                 std::string::npos,
             text.c_str());
    QVERIFY2(text.find("GPU busy 100.0 %") != std::string::npos, text.c_str());
    const QJsonObject summary =
        model::insightReportToJsonObject(report).value("summary").toObject();
    const QJsonObject window = summary.value("window").toObject();
    QCOMPARE(window.value("start_ns").toInteger(), qint64(250'000));
    QCOMPARE(window.value("end_ns").toInteger(), qint64(750'000));
    QCOMPARE(window.value("ns").toInteger(), qint64(500'000));
    QCOMPARE(window.value("label").toString(),
             QStringLiteral("active (first kernel to last GPU work)"));
    QCOMPARE(summary.value("startup_ns").toInteger(), qint64(250'000));
    QCOMPARE(summary.value("wall_ns").toInteger(), qint64(1'000'000));

    // No start-up line when the window starts with the session.
    model::AnalysisOptions options;
    options.window = model::sessionWindow(*loaded.session);
    const std::string whole = model::insightReportToText(loaded.analyze(options));
    QVERIFY2(whole.find("Window: whole session 0 ns – 1 ms (1 ms)\n") != std::string::npos,
             whole.c_str());
    QVERIFY(whole.find("Start-up") == std::string::npos);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestAnalysisWindow)
#include "test_analysis_window.moc"
