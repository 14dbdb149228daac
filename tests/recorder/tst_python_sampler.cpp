// CI test of the Python sampler (no GPU): an embedded CPython (this machine's python3) runs
// tests/recorder/python/sampler_script.py. Two threads parked at known lines are sampled from the
// main thread and must be reported with their exact file, function and line and their own thread
// ids; threads that start and end (and code objects made and freed) under a 5 kHz sampling thread
// must not crash it, and the thread stops cleanly; the line-table decoder agrees with CPython's;
// the offsets agree with this machine's Python.h. The writer's side: samples of one thread with
// the same stack at consecutive ticks become one host_samples row, a missed tick or another stack
// starts the next, and no samples write no rows. Expected lines come from the MARK comments.
#include "recorder/event_ring.h"
#include "recorder/python_frames.h"
#include "recorder/python_sampler.h"
#include "recorder/recorder_config.h"
#include "recorder/session_sink.h"
#include "tests/recorder/python_host.h"
#include "tests/recorder/scratch_session.h"
#include "tests/support/script_markers.h"

#include "format/session_writer.h"
#include "tests/support/test_suite.h"
#include <sqlite3.h>

#include <QMap>
#include <QtTest>

#include <unistd.h>

#include <cstdlib>

using namespace stallscope::recorder;
using stallscope::testing::ScratchSession;

namespace {

const char* kSamplerScript = STALLSCOPE_SOURCE_DIR "/tests/recorder/python/sampler_script.py";
constexpr uint32_t kParkedTick = 777;

struct Sampled {
    int32_t tid = 0;
    std::vector<pyhost::Frame> frames; // innermost first
};
std::vector<Sampled> g_parked;
int g_parkedPushed = -1;

void sampleParked() {
    if (!PythonSampler::prepare())
        return;
    PythonSampler sampler;
    g_parkedPushed = sampler.sampleOnce(1'000, kParkedTick);
    EventRing::forThisThread()->drain([](const HostEvent& event) {
        if (event.type != HostEvent::Type::Sample || event.correlationId != kParkedTick)
            return;
        Sampled sampled;
        sampled.tid = event.tid;
        for (int i = 0; i < event.pythonDepth; ++i) {
            const uint64_t word = event.python[i];
            const PythonFrames::CodeInfo info =
                PythonFrames::codeInfo(PythonFrames::codeIdOf(word));
            sampled.frames.push_back({info.file, info.function, PythonFrames::lineOf(word)});
        }
        g_parked.push_back(std::move(sampled));
    });
}

// A sample event of `tid` at `tick` whose one Python frame is `word`.
HostEvent sampleEvent(int32_t tid, uint32_t tick, int64_t atNs, uint64_t word) {
    HostEvent event;
    event.type = HostEvent::Type::Sample;
    event.tid = tid;
    event.correlationId = tick;
    event.startNs = event.endNs = atNs;
    event.pythonDepth = 1;
    event.python[0] = word;
    event.stackHash = word * 31 + 7;
    return event;
}

// host_samples rows as "start-end×samples@stack", in id order.
QStringList sampleRows(const QString& path) {
    QStringList rows;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
        return {"cannot open"};
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db,
                       "select start_ns, end_ns, samples, stack_id from host_samples order by id",
                       -1, &s, nullptr);
    while (s && sqlite3_step(s) == SQLITE_ROW)
        rows << QString("%1-%2x%3@%4")
                    .arg(sqlite3_column_int64(s, 0))
                    .arg(sqlite3_column_int64(s, 1))
                    .arg(sqlite3_column_int64(s, 2))
                    .arg(sqlite3_column_int64(s, 3));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return rows;
}

} // namespace

class TestPythonSampler : public QObject {
    Q_OBJECT

private:
    QMap<QString, int> m_lines;

    const Sampled* sampledWithInnermost(const char* function) const {
        for (const Sampled& s : g_parked)
            if (!s.frames.empty() && s.frames.front().function == function)
                return &s;
        return nullptr;
    }
    void expectFrame(const pyhost::Frame& frame, const char* function, const char* mark) {
        QCOMPARE(QString::fromStdString(frame.function), QString(function));
        QCOMPARE(frame.line, m_lines.value(mark, -1));
        QCOMPARE(QString::fromStdString(frame.file), QString(kSamplerScript));
    }

private slots:
    void initTestCase() {
        m_lines = stallscope::testing::scriptMarkers(kSamplerScript);
        QVERIFY(m_lines.size() >= 4);
        pyhost::setSampleHook(sampleParked);
        std::string error;
        QVERIFY2(pyhost::runScript(kSamplerScript, nullptr, &error), error.c_str());
        QVERIFY2(PythonSampler::prepare(), PythonSampler::status());
    }

    void offsetsMatchPythonHeaders() {
        const std::string mismatches = pyhost::layoutMismatches();
        QVERIFY2(mismatches.empty(), mismatches.c_str());
    }

    void parkedThreadsHaveTheirExactLines() {
        QCOMPARE(g_parkedPushed, int(g_parked.size()));
        const Sampled* a = sampledWithInnermost("parked_a");
        const Sampled* b = sampledWithInnermost("helper");
        QVERIFY(a && b);
        expectFrame(a->frames[0], "parked_a", "park_a");
        QVERIFY(b->frames.size() >= 2);
        expectFrame(b->frames[0], "helper", "park_b");
        expectFrame(b->frames[1], "parked_b", "call_helper");
        // Below them, threading.py's bootstrap frames of the worker threads.
        QVERIFY(b->frames.back().file.find("threading.py") != std::string::npos);
        // Each worker under its own thread id (the threads have ended by now).
        QVERIFY(a->tid > 0 && b->tid > 0 && a->tid != b->tid);
        QVERIFY(a->tid != int32_t(getpid()) && b->tid != int32_t(getpid()));
    }

    void samplingThreadSeesTheMainThread() {
        // The main thread sampled itself while it waited in sample_parked (GIL released).
        const Sampled* main = sampledWithInnermost("<module>");
        QVERIFY(main);
        QCOMPARE(main->tid, int32_t(getpid()));
        expectFrame(main->frames[0], "<module>", "sample_parked");
    }

    void threadsComingAndGoingUnderTheSamplerDoNotCrashIt() {
        const pyhost::SamplerRun& run = pyhost::samplerRun();
        QVERIFY(run.started);
        QVERIFY(run.stoppedCleanly);
        QVERIFY2(run.ticks >= 300, qPrintable(QString::number(run.ticks)));
        QVERIFY(run.samples > 0);
    }

    void lineTableDecoderAgreesWithCPython() {
        const pyhost::LineTableCheck& check = pyhost::lineTableCheck();
        QVERIFY2(check.offsets > 200, qPrintable(QString::number(check.offsets)));
        QVERIFY2(check.mismatches == 0, check.firstMismatch.c_str());
    }

    void zeroRateStartsNoThread() {
        PythonSampler sampler;
        QVERIFY(!sampler.start(0));
        QVERIFY(!sampler.running());
        setenv("STALLSCOPE_SAMPLE_HZ", "0", 1);
        QCOMPARE(RecorderConfig::fromEnvironment(nullptr).sampleHz, 0);
        setenv("STALLSCOPE_SAMPLE_HZ", "off", 1);
        QCOMPARE(RecorderConfig::fromEnvironment(nullptr).sampleHz, 0);
        setenv("STALLSCOPE_SAMPLE_HZ", "1000", 1);
        QCOMPARE(RecorderConfig::fromEnvironment(nullptr).sampleHz, 1000);
        setenv("STALLSCOPE_SAMPLE_HZ", "99999", 1);
        QCOMPARE(RecorderConfig::fromEnvironment(nullptr).sampleHz, PythonSampler::kMaxHz);
        unsetenv("STALLSCOPE_SAMPLE_HZ");
        QCOMPARE(RecorderConfig::fromEnvironment(nullptr).sampleHz, 200);
    }

    // The GPU power sampler's rate reads the same way (recorder_config.cpp, readRate).
    void gpuPowerRateFromEnvironment() {
        std::string warnings;
        setenv("STALLSCOPE_GPU_POWER_HZ", "off", 1);
        QCOMPARE(RecorderConfig::fromEnvironment(&warnings).gpuPowerHz, 0);
        setenv("STALLSCOPE_GPU_POWER_HZ", "50", 1);
        QCOMPARE(RecorderConfig::fromEnvironment(&warnings).gpuPowerHz, 50);
        setenv("STALLSCOPE_GPU_POWER_HZ", "5000", 1);
        QCOMPARE(RecorderConfig::fromEnvironment(&warnings).gpuPowerHz, 1000);
        QVERIFY(warnings.empty());
        setenv("STALLSCOPE_GPU_POWER_HZ", "fast", 1);
        QCOMPARE(RecorderConfig::fromEnvironment(&warnings).gpuPowerHz, 20);
        QVERIFY(warnings.find("STALLSCOPE_GPU_POWER_HZ='fast' is not a rate") != std::string::npos);
        unsetenv("STALLSCOPE_GPU_POWER_HZ");
        QCOMPARE(RecorderConfig::fromEnvironment(nullptr).gpuPowerHz, 20);
    }

    // Capture control's pause: a sampler paused before it starts does not tick while another one
    // ticks 50 times at the same rate, and ticks once resumed. Both only tick (no frames read).
    void pausedSamplerDoesNotTick() {
        PythonSampler paused, running;
        paused.setPaused(true);
        QVERIFY(paused.start(PythonSampler::kMaxHz, RecorderExperiments::Sampler::TickOnly));
        QVERIFY(running.start(PythonSampler::kMaxHz, RecorderExperiments::Sampler::TickOnly));
        QTRY_VERIFY(running.stats().ticks >= 50);
        QCOMPARE(paused.stats().ticks, uint64_t(0));
        paused.setPaused(false);
        QTRY_VERIFY(paused.stats().ticks > 0);
        paused.stop();
        running.stop();
    }

    // Consecutive ticks with one stack: one row; a missed tick or another stack: a new row; the
    // run still open at the end is written by finishProcess; no samples: no rows.
    void runsOfEqualSamplesBecomeOneRow() {
        const uint64_t line10 = PythonFrames::pack(1, 10, true);
        const uint64_t line11 = PythonFrames::pack(1, 11, true);
        ScratchSession session("runs.stallscope");
        QVERIFY2(session.writer, session.error.c_str());
        {
            SessionSink sink(session.writer.get());
            sink.beginProcess(getpid(), "host", "test", 0);
            const int32_t tid = int32_t(getpid());
            for (uint32_t tick : {1u, 2u, 3u})
                sink.consumeHostEvent(sampleEvent(tid, tick, tick * 5'000'000, line10));
            sink.consumeHostEvent(sampleEvent(tid, 5, 25'000'000, line10)); // tick 4 missed
            sink.consumeHostEvent(sampleEvent(tid, 6, 30'000'000, line11)); // another stack
            sink.finishProcess(40'000'000);
            QCOMPARE(sink.stats().hostSamples, int64_t(5));
            QCOMPARE(sink.stats().hostSampleRows, int64_t(3));
        }
        QVERIFY(session.writer->finish("complete"));
        session.writer.reset();
        const QStringList rows = sampleRows(session.path);
        QCOMPARE(rows.size(), 3);
        QVERIFY2(rows[0].startsWith("5000000-15000000x3@"), qPrintable(rows[0]));
        QVERIFY2(rows[1].startsWith("25000000-25000000x1@"), qPrintable(rows[1]));
        QVERIFY2(rows[2].startsWith("30000000-30000000x1@"), qPrintable(rows[2]));
        QCOMPARE(rows[0].section('@', 1), rows[1].section('@', 1)); // one stack row
        QVERIFY(rows[2].section('@', 1) != rows[0].section('@', 1));

        ScratchSession none("none.stallscope");
        {
            SessionSink sink(none.writer.get());
            sink.beginProcess(getpid(), "host", "test", 0);
            sink.finishProcess(1000);
        }
        QVERIFY(none.writer->finish("complete"));
        none.writer.reset();
        QCOMPARE(sampleRows(none.path), QStringList());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestPythonSampler)
#include "tst_python_sampler.moc"
