// Kineto import (issue 15, items 3-4): a trace is clipped to the profiler's window (its
// ProfilerStep#N ranges, an unclosed last step ending with the CUDA activity; else the device
// activity), and event syncs / stream waits get the cuda_events rows of their cudaEventRecord,
// so the run graph resolves what they waited for. Fixtures are written by the test, plus the
// real event_loop trace.
#include "tests/interop/interop_support.h"

#include "format/session_meta.h"
#include "model/session/session_summary.h"
#include "model/whatif/run_graph.h"
#include "tests/support/test_suite.h"

#include <QFile>

using namespace interop;
using stallscope::format::SyncKind;

namespace {

std::string writeTrace(const QTemporaryDir& dir, const char* name, const QString& events) {
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile file(path);
    const QByteArray json = ("{\"schemaVersion\": 1, \"traceEvents\": [" + events + "]}").toUtf8();
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size())
        return {};
    return path.toStdString();
}

QString hostEvent(const char* cat, const char* name, double ts, double dur, const QString& args) {
    return QString::fromLatin1(R"({"ph": "X", "cat": "%1", "name": "%2", "pid": 7, "tid": 7, )"
                               R"("ts": %3, "dur": %4, "args": {%5}},)")
        .arg(QLatin1String(cat), QLatin1String(name))
        .arg(ts, 0, 'f', 3)
        .arg(dur, 0, 'f', 3)
        .arg(args);
}

QString gpu(const char* cat, const char* name, double ts, double dur, int stream, int correlation) {
    return QString::fromLatin1(R"({"ph": "X", "cat": "%1", "name": "%2", "pid": 0, "tid": %3, )"
                               R"("ts": %4, "dur": %5, "args": {"device": 0, "stream": %3, )"
                               R"("correlation": %6}},)")
        .arg(QLatin1String(cat), QLatin1String(name))
        .arg(stream)
        .arg(ts, 0, 'f', 3)
        .arg(dur, 0, 'f', 3)
        .arg(correlation);
}

QString call(const char* name, double ts, double dur, int correlation) {
    return hostEvent("cuda_runtime", name, ts, dur,
                     QString("\"correlation\": %1").arg(correlation));
}

// Start-up far before the steps: a 20 s <module> and a CUDA call at 100 µs; step 3 from 1 s,
// step 4 from 1.005 s with one launch, its 50 µs kernel and a stream synchronize ending at
// 1.005076 s. `lastStepDur` is step 4's duration (µs).
QString stepsTrace(double lastStepDur) {
    QString events =
        hostEvent("python_function", "<module>", 0, 20e6, {}) +
        call("cudaGetDeviceCount", 100, 5, 1) +
        hostEvent("user_annotation", "ProfilerStep#3", 1e6, 5000, {}) +
        hostEvent("user_annotation", "ProfilerStep#4", 1005000, lastStepDur, {}) +
        call("cudaLaunchKernel", 1000010, 5, 10) + gpu("kernel", "k_a", 1000020, 94, 7, 10) +
        call("cudaLaunchKernel", 1005010, 5, 11) + gpu("kernel", "k_b", 1005020, 50, 7, 11) +
        call("cudaStreamSynchronize", 1005016, 60, 12);
    events.chop(1);
    return events;
}

int64_t apiCalls(const Session& session) {
    int64_t count = 0;
    for (const HostLane& lane : session.hostLanes)
        count += static_cast<int64_t>(lane.apiCalls.size());
    return count;
}

} // namespace

class TestKinetoWindowEvents : public QObject {
    Q_OBJECT

private slots:
    void unclosedStepEndsWithTheCudaActivity() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, writeTrace(dir, "unclosed.json", stepsTrace(12e6)));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const Session& session = *imported->session;
        QCOMPARE(session.startNs, int64_t(1'000'000'000));  // step 3's start, not the start-up
        QCOMPARE(session.durationNs(), int64_t(5'076'000)); // to the synchronize's end, not 12 s
        QCOMPARE(session.metaValue(stallscope::format::meta::kImportWindow),
                 std::string("profiler steps 3-4 (the last step unclosed: ended with the CUDA "
                             "activity)"));
        QCOMPARE(apiCalls(session), int64_t(3)); // cudaGetDeviceCount dropped
        QCOMPARE(session.metaValue(stallscope::format::meta::kImportWindowDroppedRows),
                 std::string("1"));
        // Clipped: 1 s of start-up before step 3, and 20 s - 1.005076 s after the window.
        QCOMPARE(session.metaValue(stallscope::format::meta::kImportWindowClippedNs),
                 std::to_string(int64_t(1'000'000'000) +
                                (int64_t(20'000'000'000) - int64_t(1'005'076'000))));
        QCOMPARE(session.processes.front().startNs, int64_t(1'000'000'000));
        const std::string info = SessionSummary::of(session).toText(); // stallscope --info
        QVERIFY2(info.find("Profiler window") != std::string::npos &&
                     info.find("profiler steps 3-4") != std::string::npos,
                 info.c_str());
    }

    void closedStepKeepsItsPythonTail() {
        QTemporaryDir dir;
        // Step 4 ends 24 µs after the synchronize: a tail shorter than the steps' activity.
        auto imported = importTrace(dir, writeTrace(dir, "closed.json", stepsTrace(100)));
        QVERIFY2(imported->ok(), imported->error.c_str());
        QCOMPARE(imported->session->durationNs(), int64_t(5'100'000));
        QCOMPARE(imported->session->metaValue(stallscope::format::meta::kImportWindow),
                 std::string("profiler steps 3-4"));
    }

    void withoutStepsTheDeviceActivity() {
        QTemporaryDir dir;
        // The 94 µs kernel of the issue inside 13.3 s of host events; its launch starts the
        // window and the device synchronize that overlaps it ends it.
        QString events = hostEvent("python_function", "<module>", 0, 13.3e6, {}) +
                         call("cudaGetDeviceCount", 100, 5, 1) +
                         call("cudaLaunchKernel", 1000010, 5, 10) +
                         gpu("kernel", "k_a", 1000020, 94, 7, 10) +
                         call("cudaDeviceSynchronize", 1000050, 70, 11) +
                         call("cudaGetDeviceCount", 13e6, 5, 12);
        events.chop(1);
        auto imported = importTrace(dir, writeTrace(dir, "device.json", events));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const Session& session = *imported->session;
        QCOMPARE(session.startNs, int64_t(1'000'010'000));
        QCOMPARE(session.durationNs(), int64_t(110'000));
        QCOMPARE(session.metaValue(stallscope::format::meta::kImportWindow),
                 std::string("device activity"));
        QCOMPARE(apiCalls(session), int64_t(2));
        QCOMPARE(session.metaValue(stallscope::format::meta::kImportWindowDroppedRows),
                 std::string("2"));
    }

    // Kineto traced the CUDA event: the wait names its record's correlation and stream.
    void streamWaitEventLinksToItsRecord() {
        QTemporaryDir dir;
        QString events =
            call("cudaLaunchKernel", 100, 5, 10) + gpu("kernel", "producer", 110, 50, 7, 10) +
            call("cudaEventRecord", 106, 2, 20) + call("cudaStreamWaitEvent", 109, 2, 21) +
            QString::fromLatin1(
                R"({"ph": "X", "cat": "cuda_sync", "name": "Wait Event", "pid": 0, "tid": 8,)"
                R"( "ts": 109, "dur": 0, "args": {"device": 0, "stream": 8, "correlation": 21,)"
                R"( "wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 20,)"
                R"( "wait_on_cuda_event_id": 5}},)") +
            call("cudaLaunchKernel", 112, 5, 22) + gpu("kernel", "consumer", 161, 10, 8, 22);
        events.chop(1);
        auto imported = importTrace(dir, writeTrace(dir, "wait.json", events));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const std::vector<CudaEventInfo> records = imported->database.cudaEvents();
        QCOMPARE(records.size(), size_t(1));
        QCOMPARE(records[0].eventId, int64_t(5));
        QCOMPARE(records[0].correlationId, int64_t(20));
        QCOMPARE(records[0].recordNs, int64_t(106'000));
        const Session& session = *imported->session;
        const auto stream = std::find_if(session.streams.begin(), session.streams.end(),
                                         [](const StreamInfo& s) { return s.streamId == 7; });
        QVERIFY(stream != session.streams.end());
        QCOMPARE(records[0].streamId, stream->rowId);
        int waits = 0;
        for (const HostLane& lane : session.hostLanes)
            for (size_t i = 0; i < lane.syncs.size(); ++i)
                if (lane.syncs.kind[i] == uint8_t(SyncKind::StreamWaitEvent)) {
                    ++waits;
                    QCOMPARE(lane.syncs.eventId[i], int64_t(5));
                }
        QCOMPARE(waits, 1);
    }

    // The real trace: torch.cuda.Event record + synchronize, without CUDA event tracing. Every
    // event sync gets the record call before it on its thread, on the stream of the kernel
    // launched before that, and the run graph resolves what it waited for.
    void realEventSyncsAwaitTheMarkedKernel() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath("event_loop.json.gz"));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const Session& session = *imported->session;
        const std::vector<CudaEventInfo> records = imported->database.cudaEvents();
        QCOMPARE(records.size(), size_t(12));
        std::map<int64_t, const CudaEventInfo*> byEvent;
        for (const CudaEventInfo& record : records)
            byEvent[record.eventId] = &record;
        whatif::RunGraph graph;
        QVERIFY(graph.build(session, records, nullptr));
        int eventSyncs = 0;
        for (size_t l = 0; l < session.hostLanes.size(); ++l) {
            const SyncColumns& syncs = session.hostLanes[l].syncs;
            for (size_t i = 0; i < syncs.size(); ++i) {
                if (syncs.kind[i] != uint8_t(SyncKind::Event))
                    continue;
                ++eventSyncs;
                const auto record = byEvent.find(syncs.eventId[i]);
                QVERIFY2(record != byEvent.end(), qPrintable(QString::number(syncs.eventId[i])));
                QVERIFY(record->second->recordNs <= syncs.start[i]);
                QVERIFY(record->second->correlationId < syncs.correlationId[i]);
                const auto awaited = graph.awaited(static_cast<int32_t>(l), uint32_t(i));
                QCOMPARE(awaited.size(), size_t(1));
            }
        }
        QCOMPARE(eventSyncs, 12);
        QCOMPARE(session.metaValue(stallscope::format::meta::kImportWindow),
                 std::string("device activity"));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestKinetoWindowEvents)
#include "test_kineto_window_events.moc"
