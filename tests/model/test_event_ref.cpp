// model::EventRef on the tiny session: every kind's start, end, name, correlation id and process;
// references that do not fit the session are invalid and read as empty.
#include "format/session_schema.h"
#include "model/session/event_ref.h"
#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "tests/support/test_suite.h"
#include "tests/views/tiny_session.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <vector>

using namespace stallscope;
using model::EventKind;
using model::EventRef;

class TestEventRef : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<model::Session> m_session;
    int32_t m_mainLane = -1;    // host lane of thread 4242
    int32_t m_computeLane = -1; // stream lane of stream 7
    int32_t m_copyLane = -1;    // stream lane of stream 13

    void checkEvent(const EventRef& event, int64_t start, int64_t end, const std::string& name,
                    uint32_t correlation) {
        QVERIFY(event.isIn(*m_session));
        QCOMPARE(event.start(*m_session), start);
        QCOMPARE(event.end(*m_session), end);
        QCOMPARE(event.name(*m_session), name);
        QCOMPARE(event.correlationId(*m_session), correlation);
        QCOMPARE(event.processIndex(*m_session), 0);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const QString file = m_dir.filePath(QStringLiteral("tiny.stallscope"));
        QString error;
        QVERIFY2(tiny::write(file, &error), qPrintable(error));
        model::LoadResult result = model::SessionLoader::load(file.toStdString());
        QVERIFY2(result.ok(), result.error.c_str());
        m_session = std::move(result.session);
        for (size_t l = 0; l < m_session->hostLanes.size(); ++l)
            if (m_session->threads[m_session->hostLanes[l].threadIndex].tid == 4242)
                m_mainLane = int32_t(l);
        for (size_t l = 0; l < m_session->streamLanes.size(); ++l) {
            const int64_t stream =
                m_session->streams[m_session->streamLanes[l].streamIndex].streamId;
            (stream == 7 ? m_computeLane : m_copyLane) = int32_t(l);
        }
        QVERIFY(m_mainLane >= 0 && m_computeLane >= 0 && m_copyLane >= 0);
    }

    void hostEvents() {
        const int64_t firstLaunch = tiny::kStart + 100'000;
        const EventRef launch{EventKind::ApiCall, m_mainLane, 0, 0};
        QVERIFY(launch.isHost());
        checkEvent(launch, firstLaunch, firstLaunch + 6'000, "cudaLaunchKernel", 1);
        // Correlation ids: 1..40 the launches, 41 the memcpy, 42 the stream sync, 43 the event
        // sync.
        const EventRef streamSync = EventRef::sync(m_mainLane, 0);
        QCOMPARE(streamSync.kind, EventKind::Sync);
        checkEvent(streamSync, tiny::kSyncStart, tiny::kSyncEnd, "stream synchronize", 42);
        checkEvent(streamSync.advancedBy(1), tiny::kShortSyncStart, tiny::kShortSyncEnd,
                   "event synchronize", 43);
        const EventRef step{EventKind::Range, m_mainLane, 0, 0};
        checkEvent(step, tiny::kStart + 50'000, tiny::kStart + 7'500'000, "step 0", 0);
        const EventRef forward{EventKind::Range, m_mainLane, 1, 0};
        QVERIFY(forward.isHost());
        checkEvent(forward, tiny::kStart + 60'000, tiny::kStart + 4'200'000, "forward", 0);
        QCOMPARE(launch.laneLabel(*m_session),
                 m_session->threadLabel(
                     m_session->threads[m_session->hostLanes[m_mainLane].threadIndex]));
    }

    void gpuEvents() {
        const int64_t firstLaunch = tiny::kStart + 100'000;
        const EventRef gemm{EventKind::Kernel, m_computeLane, 0, 0};
        QVERIFY(!gemm.isHost());
        checkEvent(gemm, firstLaunch + 20'000, firstLaunch + 100'000, "ampere_sgemm_128x64_nn", 1);
        const EventRef lastKernel = gemm.advancedBy(tiny::kLaunches - 1);
        checkEvent(lastKernel, firstLaunch + 3'900'000 + 20'000, firstLaunch + 4'000'000,
                   "vectorized_elementwise_kernel<relu>", tiny::kLaunches);
        checkEvent({EventKind::Memcpy, m_computeLane, 0, 0}, tiny::kSyncEnd - 100'000,
                   tiny::kSyncEnd - 10'000, "Memcpy DtoH", 41);
        checkEvent({EventKind::Memcpy, m_copyLane, 0, 0}, tiny::kStart + 70'000,
                   tiny::kStart + 900'000, "Memcpy HtoD", 44);
        const EventRef memset{EventKind::Memset, m_copyLane, 0, 0};
        checkEvent(memset, tiny::kStart + 1'000'000, tiny::kStart + 1'200'000, "Memset", 45);
        QCOMPARE(memset.laneLabel(*m_session),
                 m_session->streamLabel(
                     m_session->streams[m_session->streamLanes[m_copyLane].streamIndex]));
    }

    void refsOutsideTheSessionAreInvalid() {
        const auto hostCount = int32_t(m_session->hostLanes.size());
        const auto streamCount = int32_t(m_session->streamLanes.size());
        const auto syncCount = uint32_t(m_session->hostLanes[m_mainLane].syncs.size());
        const EventRef outside[] = {
            EventRef{},                                       // no lane
            EventRef::sync(hostCount, 0),                     // lane past the host lanes
            EventRef::sync(m_mainLane, syncCount),            // index one past the column
            {EventKind::Range, m_mainLane, 2, 0},             // no third range depth
            {EventKind::Range, m_mainLane, -1, 0},            // negative depth
            {EventKind::Kernel, streamCount, 0, 0},           // lane past the stream lanes
            {EventKind::Memset, m_copyLane, 0, 1},            // one memset only
            {EventKind::Memcpy, m_computeLane, 0, 1'000'000}, // far past the end
        };
        for (const EventRef& event : outside) {
            QVERIFY(!event.isIn(*m_session));
            QVERIFY(!event.columns(*m_session));
            QCOMPARE(event.start(*m_session), 0);
            QCOMPARE(event.end(*m_session), 0);
            QCOMPARE(event.name(*m_session), std::string());
            QCOMPARE(event.laneLabel(*m_session), std::string());
            QCOMPARE(event.correlationId(*m_session), 0u);
            QCOMPARE(event.processIndex(*m_session), -1);
        }
        // The last event of a column still fits.
        QVERIFY(EventRef::sync(m_mainLane, syncCount - 1).isIn(*m_session));
        QVERIFY(!EventRef{}.isValid());
        QVERIFY(EventRef::sync(0, 0).isValid());
    }

    void spans() {
        const model::EventSpans spans = {{{EventKind::Kernel, m_computeLane, 0, 3}, 4},
                                         {EventRef::sync(m_mainLane, 0), 2}};
        QCOMPARE(spans[0].at(0), (EventRef{EventKind::Kernel, m_computeLane, 0, 3}));
        QCOMPARE(spans[0].last(), (EventRef{EventKind::Kernel, m_computeLane, 0, 6}));
        QCOMPARE(spans[1].last(), EventRef::sync(m_mainLane, 1));
        QCOMPARE(model::eventCount(spans), int64_t(6));
        QCOMPARE(model::eventCount({}), int64_t(0));
    }

    // The median by duration, not the first (the details' sync of a site, issue 42).
    void medianEvent() {
        const model::EventSpans kernels = {{{EventKind::Kernel, m_computeLane, 0, 0}, 5}};
        std::vector<int64_t> durations;
        for (uint32_t i = 0; i < 5; ++i)
            durations.push_back(kernels[0].at(i).end(*m_session) -
                                kernels[0].at(i).start(*m_session));
        std::vector<int64_t> sorted = durations;
        std::sort(sorted.begin(), sorted.end());
        const EventRef median = model::medianEvent(*m_session, kernels, EventKind::Kernel);
        QCOMPARE(median.end(*m_session) - median.start(*m_session), sorted[2]);
        // Two syncs: the upper median, the longer stream sync.
        const EventRef sync =
            model::medianEvent(*m_session, {{EventRef::sync(m_mainLane, 0), 2}}, EventKind::Sync);
        QCOMPARE(sync, EventRef::sync(m_mainLane, 0));
        const EventRef shortSync =
            model::medianEvent(*m_session, {{EventRef::sync(m_mainLane, 1), 1}}, EventKind::Sync);
        QCOMPARE(shortSync, EventRef::sync(m_mainLane, 1));
        QVERIFY(!model::medianEvent(*m_session, kernels, EventKind::Sync).isValid());
        QVERIFY(!model::medianEvent(*m_session, {}, EventKind::Kernel).isValid());
    }

    void hostBlocking() {
        for (int kind = 0; kind <= format::kSyncKindMax; ++kind)
            QCOMPARE(model::isHostBlocking(uint8_t(kind)),
                     kind != int(format::SyncKind::StreamWaitEvent));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestEventRef)
#include "test_event_ref.moc"
