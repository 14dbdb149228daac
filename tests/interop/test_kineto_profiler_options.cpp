// Kineto import of real traces recorded with different torch.profiler options (issue 15), made
// on an H200 by tests/interop/data/make_traces.py: the same training loop with and without
// with_stack and with record_shapes gives the same events and the same sites, named by their
// Python function or, without stacks, by their op chain; a profiler schedule clips the session
// to its active steps; a side stream's event, waited on by the default stream, links the wait to
// the side stream's record in both shapes of trace (with cuda_sync events and without).
#include "tests/interop/interop_support.h"

#include "format/session_meta.h"
#include "model/whatif/run_graph.h"
#include "tests/support/test_suite.h"

using namespace interop;
using stallscope::format::SyncKind;

namespace {

std::map<std::string, int> sitesByFunction(const Imported& imported) {
    std::map<std::string, int> sites;
    for (const HostLane& lane : imported.session->hostLanes)
        for (size_t i = 0; i < lane.syncs.size(); ++i) {
            if (lane.syncs.kind[i] == uint8_t(SyncKind::StreamWaitEvent))
                continue; // no host wait
            const auto stack = imported.database.stack(lane.syncs.stackId[i]);
            std::string site = "<none>";
            for (const FrameInfo& frame : stack) // the innermost user frame, else the innermost
                if (frame.isUser.value_or(false) && !frame.file.empty()) {
                    site = frame.function;
                    break;
                }
            if (site == "<none>" && !stack.empty())
                site = stack.front().function;
            ++sites[site];
        }
    return sites;
}

} // namespace

class TestKinetoProfilerOptions : public QObject {
    Q_OBJECT
private slots:
    // with_stack=True (item_loop), with_stack=False, record_shapes=True: one loop of 12 steps,
    // each reading the loss with .item(), then two torch.cuda.synchronize().
    void sameLoopWhateverTheOptions_data() {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QString>("itemSite");
        QTest::addColumn<QString>("deviceSyncSite");
        QTest::newRow("with_stack") << "item_loop.json.gz"
                                    << "train_item"
                                    << "main";
        QTest::newRow("record_shapes") << "item_shapes.json.gz"
                                       << "train_item"
                                       << "main";
        QTest::newRow("no stack") << "item_nostack.json.gz"
                                  << "aten::item ← aten::_local_scalar_dense"
                                  << "device synchronize outside any op";
    }
    void sameLoopWhateverTheOptions() {
        QFETCH(QString, trace);
        QFETCH(QString, itemSite);
        QFETCH(QString, deviceSyncSite);
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath(trace.toStdString()));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const Session& s = *imported->session;
        QCOMPARE(s.counts.kernels, int64_t(216)); // 18 per step
        QCOMPARE(s.counts.memcpys, int64_t(12));  // the loss, once per step
        const std::map<std::string, int> expected{{itemSite.toStdString(), 12},
                                                  {deviceSyncSite.toStdString(), 2}};
        const std::map<std::string, int> sites = sitesByFunction(*imported);
        QVERIFY2(sites == expected, qPrintable(describe(sites)));
    }

    // schedule(wait=2, warmup=2, active=5): the trace holds steps 4-8 and is clipped to them.
    void scheduledTraceHoldsItsActiveSteps() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath("item_scheduled.json.gz"));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const Session& s = *imported->session;
        QCOMPARE(s.metaValue(stallscope::format::meta::kImportWindow),
                 std::string("profiler steps 4-8"));
        QCOMPARE(s.counts.kernels, int64_t(5 * 18));
        const std::map<std::string, int> sites = sitesByFunction(*imported);
        QCOMPARE(sites, (std::map<std::string, int>{{"train_item", 5}}));
        // Nothing outside the window: the first and last event lie inside the session's span.
        QVERIFY(s.durationNs() > 0);
        QVERIFY(s.durationNs() < 20'000'000); // 5 steps of ~1.4 ms, not the unprofiled run
    }

    // Each step: forward on a side stream, an event recorded there, the default stream waits on
    // it. Every wait links to a record on the side stream, and the run graph makes the default
    // stream's next operation depend on the side stream's operation the event marks. Without
    // cuda_sync events Kineto names neither the event nor the waiting stream: both are found.
    void sideStreamWaitsLinkToTheSideStream_data() {
        QTest::addColumn<QString>("trace");
        QTest::newRow("cuda_sync events") << "side_stream.json.gz";
        QTest::newRow("no stack, no cuda_sync events") << "side_stream_nostack.json.gz";
    }
    void sideStreamWaitsLinkToTheSideStream() {
        QFETCH(QString, trace);
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath(trace.toStdString()));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const Session& session = *imported->session;
        QCOMPARE(session.streamLanes.size(), size_t(2));
        auto streamIdOfRow = [&](int64_t row) {
            for (const StreamInfo& stream : session.streams)
                if (stream.rowId == row)
                    return stream.streamId;
            return int64_t(-1);
        };
        const std::vector<CudaEventInfo> records = imported->database.cudaEvents();
        std::map<int64_t, const CudaEventInfo*> byEvent;
        for (const CudaEventInfo& record : records)
            byEvent[record.eventId] = &record;
        int waits = 0;
        for (const HostLane& lane : session.hostLanes)
            for (size_t i = 0; i < lane.syncs.size(); ++i) {
                if (lane.syncs.kind[i] != uint8_t(SyncKind::StreamWaitEvent))
                    continue;
                ++waits;
                const auto record = byEvent.find(lane.syncs.eventId[i]);
                QVERIFY2(record != byEvent.end(),
                         qPrintable(QString::number(lane.syncs.eventId[i])));
                // Recorded on the side stream, waited on by the default stream (7).
                QVERIFY(streamIdOfRow(record->second->streamId) != 7);
                QVERIFY(lane.syncs.streamIndex[i] >= 0);
                QCOMPARE(session.streams[lane.syncs.streamIndex[i]].streamId, int64_t(7));
            }
        QCOMPARE(waits, 12);
        whatif::RunGraph graph;
        QVERIFY(graph.build(session, records, nullptr));
        const auto& dependencies = graph.eventDependencies();
        QCOMPARE(dependencies.size(), size_t(12));
        for (const auto& [op, waitsFor] : dependencies) // across the two streams, in order
            QVERIFY(graph.locateOp(op).first != graph.locateOp(waitsFor).first);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestKinetoProfilerOptions)
#include "test_kineto_profiler_options.moc"
