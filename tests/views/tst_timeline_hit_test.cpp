// Hit-testing (binary search, sub-pixel events within ±3 px, syncs over the calls they block in)
// and the sync → GPU work → launching call link.
#include "model/session/waited_work.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"
#include "tests/views/tst_timeline_support.h"
#include "views/timeline/correlation_index.h"
#include "views/timeline/sync_link.h"
#include "views/timeline/timeline_hit_test.h"
#include "views/timeline/timeline_layout.h"

#include <QTest>

using namespace stallscope;
using namespace stallscope::views;

namespace {

model::IntervalColumns columnsOf(std::initializer_list<std::pair<int64_t, int64_t>> events) {
    model::IntervalColumns columns;
    uint32_t row = 0;
    for (const auto& [start, end] : events)
        columns.pushInterval(start, end, row++);
    return columns;
}

// One thread, a device with two streams (lanes 0 and 1), GPU work on both, and one sync of `kind`
// on `stream` (-1: none) from 1000 to 2000 ns.
std::shared_ptr<model::Session> linkSession(format::SyncKind kind, int32_t stream) {
    auto session = std::make_shared<model::Session>();
    session->strings = {"", "k", "cudaLaunchKernel"};
    session->processes.push_back({});
    model::ThreadInfo thread;
    thread.processIndex = 0;
    session->threads.push_back(thread);
    model::DeviceInfo device;
    device.processIndex = 0;
    session->devices.push_back(device);
    for (int s = 0; s < 2; ++s) {
        model::StreamInfo info;
        info.deviceIndex = 0;
        info.streamId = 7 + s;
        session->streams.push_back(info);
        model::StreamLane lane;
        lane.streamIndex = s;
        session->streamLanes.push_back(std::move(lane));
    }
    auto kernel = [&](int lane, int64_t start, int64_t end, uint32_t correlation) {
        auto& kernels = session->streamLanes[lane].kernels;
        kernels.pushInterval(start, end, uint32_t(kernels.size()));
        kernels.nameId.push_back(1);
        kernels.correlationId.push_back(correlation);
    };
    kernel(0, 100, 900, 11);   // stream 7: ends before the sync starts
    kernel(0, 1000, 1500, 12); // stream 7: ends inside the sync
    kernel(0, 2100, 2500, 13); // stream 7: after the sync returned
    kernel(1, 1200, 1900, 21); // stream 8: ends latest before the return
    kernel(1, 1950, 2050, 22); // stream 8: still running when the sync returned
    model::HostLane host;
    host.threadIndex = 0;
    for (uint32_t correlation : {11u, 12u, 13u, 21u, 22u}) {
        const int64_t t = int64_t(correlation) * 10;
        host.apiCalls.pushInterval(t, t + 5, correlation);
        host.apiCalls.nameId.push_back(2);
        host.apiCalls.correlationId.push_back(correlation);
    }
    host.syncs.pushInterval(1000, 2000, 0);
    host.syncs.kind.push_back(uint8_t(kind));
    host.syncs.correlationId.push_back(99);
    host.syncs.streamIndex.push_back(stream);
    host.syncs.stackId.push_back(0);
    host.syncs.eventId.push_back(-1);
    session->hostLanes.push_back(std::move(host));
    session->startNs = 0;
    session->endNs = 3000;
    return session;
}

} // namespace

class TimelineHitTestTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const model::Session> m_session;
    TimelineLayout m_layout;

    // Null when the layout has no such lane (which fails the test).
    const TimelineLane* lane(LaneKind kind, int32_t source, int32_t depth = 0) {
        const int row = m_layout.find(kind, source, depth);
        if (row < 0) {
            STALLSCOPE_FAIL("no lane of kind %d, source %d, depth %d", int(kind), source, depth);
            return nullptr;
        }
        return &m_layout.lanes()[row];
    }

private slots:
    void initTestCase() {
        m_session = tinyload::load(m_dir);
        QVERIFY(m_session);
        m_layout.build(*m_session);
    }

    void nearestInColumn_data() {
        QTest::addColumn<int64_t>("t");
        QTest::addColumn<int64_t>("tolerance");
        QTest::addColumn<int>("expected");
        QTest::newRow("inside first") << int64_t(105) << int64_t(0) << 0;
        QTest::newRow("inside second") << int64_t(205) << int64_t(0) << 1;
        QTest::newRow("gap, too far") << int64_t(150) << int64_t(30) << -1;
        QTest::newRow("gap, nearer the first end") << int64_t(150) << int64_t(45) << 0;
        QTest::newRow("gap, nearer the second start") << int64_t(190) << int64_t(45) << 1;
        QTest::newRow("before all") << int64_t(95) << int64_t(5) << 0;
        QTest::newRow("after all") << int64_t(215) << int64_t(5) << 1;
        QTest::newRow("after all, too far") << int64_t(400) << int64_t(5) << -1;
    }
    void nearestInColumn() {
        QFETCH(int64_t, t);
        QFETCH(int64_t, tolerance);
        QFETCH(int, expected);
        const auto columns = columnsOf({{100, 110}, {200, 210}});
        const size_t found = TimelineHitTest::nearest(columns, t, tolerance);
        QCOMPARE(found == TimelineHitTest::kNone ? -1 : int(found), expected);
    }

    void nearestPrefersInnermost() {
        // A long call with a short one nested inside: inside the short one, the short one wins.
        const auto columns = columnsOf({{0, 1000}, {100, 110}, {500, 510}});
        QCOMPARE(TimelineHitTest::nearest(columns, 105, 0), size_t(1));
        QCOMPARE(TimelineHitTest::nearest(columns, 300, 0), size_t(0));
        QCOMPARE(TimelineHitTest::nearest(columns, 999, 0), size_t(0));
    }

    void hitsEventsOnLanes() {
        // 1 ms over 1000 px: 1 µs per pixel.
        const TimelineViewport view =
            tinyload::viewport(tiny::kStart, tiny::kStart, tiny::kStart + 1'000'000, 1000);
        const TimelineLane* stream7 = lane(LaneKind::Stream, 0);
        const TimelineLane* stream13 = lane(LaneKind::Stream, 1);
        const TimelineLane* host = lane(LaneKind::HostThread, 0);
        const TimelineLane* ranges = lane(LaneKind::Range, 0, 1);
        const TimelineLane* busy = lane(LaneKind::GpuBusy, 0);
        QVERIFY(stream7 && stream13 && host && ranges && busy);
        // Kernel 0 runs 120..200 µs on stream 7 (stream lane 0).
        model::EventRef hit = TimelineHitTest::at(*m_session, *stream7, view, 150.5);
        QCOMPARE(hit.kind, model::EventKind::Kernel);
        QCOMPARE(hit.lane, 0);
        QCOMPARE(hit.index, 0u);
        // The batch copy (70..900 µs) on stream 13.
        hit = TimelineHitTest::at(*m_session, *stream13, view, 500.5);
        QCOMPARE(hit.kind, model::EventKind::Memcpy);
        // The launch call of kernel 1 (200..206 µs) on the main thread.
        hit = TimelineHitTest::at(*m_session, *host, view, 203.5);
        QCOMPARE(hit.kind, model::EventKind::ApiCall);
        QCOMPARE(hit.index, 1u);
        // 50 µs away from any call: nothing.
        QVERIFY(!TimelineHitTest::at(*m_session, *host, view, 250.5).isValid());
        // NVTX "step 0" and "forward".
        hit = TimelineHitTest::at(*m_session, *ranges, view, 500.5);
        QCOMPARE(hit.kind, model::EventKind::Range);
        QCOMPARE(eventName(*m_session, hit), QStringLiteral("forward"));
        // Headers and busy tracks hold no events.
        QVERIFY(!TimelineHitTest::at(*m_session, *busy, view, 150.5).isValid());
    }

    void syncWinsOverItsCall() {
        const TimelineViewport view =
            tinyload::viewport(tiny::kStart, tiny::kStart, tiny::kEnd, 1000); // 10 µs/px
        const double x = view.xForTime(tiny::kSyncStart + 1'000'000);
        const TimelineLane* host = lane(LaneKind::HostThread, 0);
        QVERIFY(host);
        const model::EventRef hit = TimelineHitTest::at(*m_session, *host, view, x);
        QCOMPARE(hit.kind, model::EventKind::Sync);
        QCOMPARE(hit.index, 0u);
    }

    void subPixelSyncWithinThreePixels() {
        const TimelineViewport view =
            tinyload::viewport(tiny::kStart, tiny::kStart, tiny::kEnd, 1000); // 10 µs/px
        const double x = view.xForTime(tiny::kShortSyncStart); // the 2 µs sync: 0.2 px
        const TimelineLane* host = lane(LaneKind::HostThread, 0);
        QVERIFY(host);
        for (double dx : {-2.5, -1.0, 0.0, 0.1, 1.0, 2.5}) {
            const model::EventRef hit = TimelineHitTest::at(*m_session, *host, view, x + dx);
            QVERIFY2(hit.kind == model::EventKind::Sync && hit.index == 1,
                     qPrintable(QStringLiteral("dx %1").arg(dx)));
        }
        for (double dx : {-4.0, 4.0})
            QVERIFY(!TimelineHitTest::at(*m_session, *host, view, x + dx).isValid());
    }

    void streamSyncLinksToTheCopyItWaitedFor() {
        // loss.item(): the 2 ms stream sync on stream 7 waited for the DtoH copy (the last work
        // on stream 7 ending before 7 ms), launched by cudaMemcpyAsync (main thread call 40).
        const model::EventRef work = model::waitedWork(*m_session, 0, 0);
        QCOMPARE(work.kind, model::EventKind::Memcpy);
        QCOMPARE(work.lane, 0);
        QCOMPARE(work.index, 0u);
        QCOMPARE(work.end(*m_session), tiny::kSyncEnd - 10'000);
        CorrelationIndex index;
        index.build(*m_session);
        model::EventRef sync;
        sync.kind = model::EventKind::Sync;
        sync.lane = 0;
        sync.index = 0;
        const SyncLinkTargets link = SyncLink::targets(*m_session, sync, index);
        QCOMPARE(link.work, work);
        QCOMPARE(link.launch.kind, model::EventKind::ApiCall);
        QCOMPARE(link.launch.lane, 0);
        QCOMPARE(link.launch.index, 40u);
        QCOMPARE(eventName(*m_session, link.launch), QStringLiteral("cudaMemcpyAsync"));
        // The event sync names no stream: any stream of the process's GPU; the copy still ended
        // last (the memset on stream 13 ended at 1.2 ms).
        const model::EventRef eventWork = model::waitedWork(*m_session, 0, 1);
        QCOMPARE(eventWork, work);
    }

    void linkTargets_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("stream");
        QTest::addColumn<int>("lane");
        QTest::addColumn<int>("index");
        QTest::addColumn<uint>("launch");
        // Stream 7: kernel 12 ended at 1500 (kernel 13 starts after the return).
        QTest::newRow("stream 7") << int(format::SyncKind::Stream) << 0 << 0 << 1 << 12u;
        // Stream 8: kernel 21 (kernel 22 was still running at the return).
        QTest::newRow("stream 8") << int(format::SyncKind::Stream) << 1 << 1 << 0 << 21u;
        // Device sync: any stream; kernel 21 ended last (1900).
        QTest::newRow("device") << int(format::SyncKind::Device) << -1 << 1 << 0 << 21u;
        QTest::newRow("device naming a stream")
            << int(format::SyncKind::Device) << 0 << 1 << 0 << 21u;
    }
    void linkTargets() {
        QFETCH(int, kind);
        QFETCH(int, stream);
        QFETCH(int, lane);
        QFETCH(int, index);
        QFETCH(uint, launch);
        const auto session = linkSession(format::SyncKind(kind), stream);
        CorrelationIndex correlations;
        correlations.build(*session);
        QCOMPARE(correlations.size(), size_t(5));
        model::EventRef sync;
        sync.kind = model::EventKind::Sync;
        sync.lane = 0;
        const SyncLinkTargets link = SyncLink::targets(*session, sync, correlations);
        QCOMPARE(link.work.kind, model::EventKind::Kernel);
        QCOMPARE(link.work.lane, lane);
        QCOMPARE(link.work.index, uint32_t(index));
        QVERIFY(link.work.end(*session) <= 2000);
        QCOMPARE(link.launch.correlationId(*session), launch);
    }

    void noWorkBeforeTheSync() {
        const auto session = linkSession(format::SyncKind::Stream, 0);
        session->streamLanes[0].kernels = {};
        session->streamLanes[0].kernels.nameId.clear();
        QVERIFY(!model::waitedWork(*session, 0, 0).isValid());
        QCOMPARE(CorrelationIndex().apiCall(0, 12), model::EventRef()); // unbuilt index: nothing
    }
};

STALLSCOPE_TEST_MAIN(TimelineHitTestTest)
#include "tst_timeline_hit_test.moc"
