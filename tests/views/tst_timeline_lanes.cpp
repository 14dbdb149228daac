// Lane layout (collapse, reorder), the GPU-busy track's values and the ruler range summary.
#include "tests/support/test_suite.h"
#include "tests/views/tst_timeline_support.h"
#include "views/timeline/draw_list.h"
#include "views/timeline/gpu_busy_track.h"
#include "views/timeline/range_summary.h"
#include "views/timeline/timeline_layout.h"

#include <QTest>

#include <algorithm>
#include <numeric>

using namespace stallscope;
using namespace stallscope::views;

class TimelineLanesTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const model::Session> m_session; // loaded by initTestCase

    static QStringList labels(const TimelineLayout& layout) {
        QStringList result;
        for (const TimelineLane& lane : layout.lanes())
            result << lane.label;
        return result;
    }

private slots:
    void initTestCase() {
        m_session = tinyload::load(m_dir);
        QVERIFY(m_session);
    }

    void collapseChangesTheLayout() {
        TimelineLayout layout;
        layout.build(*m_session);
        QCOMPARE(layout.lanes().size(), size_t(9));
        const int fullHeight = layout.contentHeight();
        // A thread hides its NVTX rows.
        const int thread = layout.find(LaneKind::HostThread, 0);
        QVERIFY(layout.lanes()[thread].collapsible);
        layout.toggleCollapsed(thread);
        QCOMPARE(layout.lanes().size(), size_t(7));
        QVERIFY(layout.lanes()[thread].collapsed);
        QCOMPARE(layout.find(LaneKind::Range, 0, 0), -1);
        QCOMPARE(layout.contentHeight(), fullHeight - 2 * TimelineLayout::kRangeHeight);
        // Lanes below moved up: y stays contiguous.
        for (size_t i = 1; i < layout.lanes().size(); ++i)
            QCOMPARE(layout.lanes()[i].y, layout.lanes()[i - 1].y + layout.lanes()[i - 1].height);
        layout.toggleCollapsed(thread);
        QCOMPARE(layout.lanes().size(), size_t(9));
        QCOMPARE(layout.contentHeight(), fullHeight);
        // A device hides its streams but keeps its busy track.
        const int device = layout.find(LaneKind::DeviceHeader, 0);
        layout.toggleCollapsed(device);
        QCOMPARE(layout.lanes().size(), size_t(7));
        QVERIFY(layout.find(LaneKind::GpuBusy, 0) >= 0);
        QCOMPARE(layout.find(LaneKind::Stream, 0), -1);
        // A process hides everything inside; the state survives a rebuild.
        layout.toggleCollapsed(0);
        QCOMPARE(layout.lanes().size(), size_t(1));
        layout.build(*m_session);
        QCOMPARE(layout.lanes().size(), size_t(1));
        layout.resetState();
        layout.build(*m_session);
        QCOMPARE(layout.lanes().size(), size_t(9));
        // Leaves do not collapse.
        const int stream = layout.find(LaneKind::Stream, 0);
        QVERIFY(!layout.lanes()[stream].collapsible);
        layout.toggleCollapsed(stream);
        QCOMPARE(layout.lanes().size(), size_t(9));
    }

    void reorderSiblings() {
        TimelineLayout layout;
        layout.build(*m_session);
        const int stream7 = layout.find(LaneKind::Stream, 0);
        const int stream13 = layout.find(LaneKind::Stream, 1);
        QVERIFY(stream7 < stream13);
        QVERIFY(layout.canMove(stream13, stream7));
        // Different kinds or parents, ranges and the busy track do not move.
        QVERIFY(!layout.canMove(stream7, layout.find(LaneKind::HostThread, 0)));
        QVERIFY(!layout.canMove(layout.find(LaneKind::Range, 0, 1),
                                layout.find(LaneKind::Range, 0, 0)));
        QVERIFY(!layout.canMove(layout.find(LaneKind::GpuBusy, 0), stream7));
        QVERIFY(layout.moveLane(stream13, stream7));
        QVERIFY(layout.find(LaneKind::Stream, 1) < layout.find(LaneKind::Stream, 0));
        // Threads move with their NVTX rows.
        const int main = layout.find(LaneKind::HostThread, 0);
        const int loader = layout.find(LaneKind::HostThread, 1);
        QVERIFY(layout.moveLane(main, loader));
        QCOMPARE(labels(layout)[1], QStringLiteral("pt_data_worker (4250)"));
        QCOMPARE(labels(layout)[2], QStringLiteral("python (4242)"));
        QCOMPARE(labels(layout)[3], QStringLiteral("NVTX"));
        QCOMPARE(layout.lanes()[3].parent, 2);
        // The order survives a rebuild for the same session.
        layout.build(*m_session);
        QCOMPARE(labels(layout)[1], QStringLiteral("pt_data_worker (4250)"));
    }

    // Lanes grow to fill the pane, all by the same share of their headroom, up to their maximum;
    // with less room than their minimums they keep them (and the pane scrolls).
    void lanesGrowToFillThePane() {
        TimelineLayout layout;
        layout.build(*m_session);
        const int natural = layout.contentHeight();
        QCOMPARE(layout.naturalHeight(), natural);
        const auto check = [&](int available) {
            layout.setAvailableHeight(available);
            for (size_t i = 0; i < layout.lanes().size(); ++i) {
                const TimelineLane& lane = layout.lanes()[i];
                QVERIFY(lane.height >= TimelineLayout::minimumHeight(lane.kind));
                QVERIFY(lane.height <= TimelineLayout::maximumHeight(lane.kind));
                if (i > 0) // contiguous
                    QCOMPARE(lane.y, layout.lanes()[i - 1].y + layout.lanes()[i - 1].height);
            }
        };
        // Room to spare: the pane is filled to the pixel, streams and threads taller.
        check(natural + 120);
        QCOMPARE(layout.contentHeight(), natural + 120);
        const int stream = layout.find(LaneKind::Stream, 0);
        const int thread = layout.find(LaneKind::HostThread, 0);
        QVERIFY(layout.lanes()[stream].height > TimelineLayout::kStreamHeight);
        QVERIFY(layout.lanes()[thread].height > TimelineLayout::kThreadHeight);
        QCOMPARE(layout.lanes()[0].height, TimelineLayout::kHeaderHeight); // headers stay
        // It survives collapsing: the remaining lanes take the room.
        layout.toggleCollapsed(thread);
        QCOMPARE(layout.contentHeight(), natural + 120);
        layout.toggleCollapsed(layout.find(LaneKind::HostThread, 0));
        // Far more room than lanes: each at its maximum, the rest of the pane empty.
        check(10'000);
        for (const TimelineLane& lane : layout.lanes())
            QCOMPARE(lane.height, TimelineLayout::maximumHeight(lane.kind));
        QVERIFY(layout.contentHeight() < 10'000);
        QVERIFY(TimelineLayout::maximumHeight(LaneKind::Stream) >=
                2 * TimelineLayout::kStreamHeight);
        // Less room than the lanes need: minimums, content taller than the pane.
        check(natural / 2);
        for (const TimelineLane& lane : layout.lanes())
            QCOMPARE(lane.height, TimelineLayout::minimumHeight(lane.kind));
        QCOMPARE(layout.contentHeight(), natural);
        // Tall enough for a stall's "blocked 2.000 ms" label in the small label font.
        QVERIFY(TimelineLayout::kStreamHeight >= 26 && TimelineLayout::kThreadHeight >= 26);
    }

    void gpuBusyTrackValues() {
        // 1 ms over 1000 px (1 µs per pixel): the batch copy on stream 13 covers 70..900 µs,
        // kernels on stream 7 run 120..200, 220..300, ... µs.
        const TimelineViewport view =
            tinyload::viewport(tiny::kStart, tiny::kStart, tiny::kStart + 1'000'000, 1000);
        const std::vector<float> busy = GpuBusyTrack::compute(*m_session, 0, view);
        QCOMPARE(busy.size(), size_t(1000));
        QCOMPARE(busy[50], 0.0f);  // before any work
        QCOMPARE(busy[100], 1.0f); // the copy
        QCOMPARE(busy[150], 1.0f); // copy and kernel overlap: capped at 1
        QCOMPARE(busy[910], 0.0f); // between the copy's end and kernel 8 (920 µs)
        QCOMPARE(busy[950], 1.0f); // kernel 8
        QVERIFY(std::abs(busy[69] - 0.0f) < 1e-6f);
        // Zoomed out (10 µs per pixel): the mean is the device's busy share. Union of the work:
        // copy 830 + kernel 8 80 + memset 200 + kernels 11..39 29 × 80 + DtoH copy 90 = 3520 µs.
        const TimelineViewport all =
            tinyload::viewport(tiny::kStart, tiny::kStart, tiny::kEnd, 1000);
        const std::vector<float> coarse = GpuBusyTrack::compute(*m_session, 0, all);
        const double busyUs = std::accumulate(coarse.begin(), coarse.end(), 0.0) * 10.0;
        QVERIFY2(std::abs(busyUs - 3520.0) < 20.0, qPrintable(QString::number(busyUs)));
        // The draw list carries it for the busy lane, with the visible share.
        TimelineLayout layout;
        layout.build(*m_session);
        const DrawList list = DrawList::build(*m_session, layout, all);
        const int row = layout.find(LaneKind::GpuBusy, 0);
        QCOMPARE(list.busyValues(row).size(), size_t(1000));
        QVERIFY(std::abs(list.busyShare(row) - 0.352) < 0.003);
        QVERIFY(list.busyValues(layout.find(LaneKind::Stream, 0)).empty());
        // The same values from the lanes' runs as from a separate pass, and with the device
        // collapsed (its streams are not in the layout, the track still is).
        const std::span<const float> shared = list.busyValues(row);
        QVERIFY(std::equal(shared.begin(), shared.end(), coarse.begin(), coarse.end()));
        layout.toggleCollapsed(layout.find(LaneKind::DeviceHeader, 0));
        QCOMPARE(layout.find(LaneKind::Stream, 0), -1);
        const DrawList collapsed = DrawList::build(*m_session, layout, all);
        const std::span<const float> hidden =
            collapsed.busyValues(layout.find(LaneKind::GpuBusy, 0));
        QVERIFY(std::equal(hidden.begin(), hidden.end(), coarse.begin(), coarse.end()));
    }

    void gpuBusyOfSubPixelWork() {
        // 10 ms over 100 px (100 µs per pixel): kernels of 80 µs every 100 µs are merged runs;
        // a pixel fully inside the kernel stretch without copy/memset reads ~0.8.
        const TimelineViewport view =
            tinyload::viewport(tiny::kStart, tiny::kStart, tiny::kEnd, 100);
        const std::vector<float> busy = GpuBusyTrack::compute(*m_session, 0, view);
        QVERIFY2(std::abs(busy[25] - 0.8f) < 0.05f, qPrintable(QString::number(busy[25])));
        QCOMPARE(busy[80], 0.0f); // 8.0 ms: no GPU work
    }

    void rangeSummary() {
        // The stream sync's span: 2 ms blocked; on the GPU only the 90 µs DtoH copy.
        const RangeSummary summary =
            RangeSummary::compute(*m_session, tiny::kSyncStart, tiny::kSyncEnd);
        QCOMPARE(summary.durationNs(), int64_t(2'000'000));
        QCOMPARE(summary.blockedNs, int64_t(2'000'000));
        QCOMPARE(summary.hostSyncs, int64_t(1));
        QCOMPARE(summary.syncsByKind[int(format::SyncKind::Stream)], int64_t(1));
        QCOMPARE(summary.devices.size(), size_t(1));
        QCOMPARE(summary.devices[0].busyNs, int64_t(90'000));
        QVERIFY(std::abs(summary.gpuBusyShare - 0.045) < 1e-9);
        QCOMPARE(summary.kernels, int64_t(0));
        QCOMPARE(summary.memcpys, int64_t(1));
        QCOMPARE(summary.apiCalls, int64_t(1)); // cudaStreamSynchronize
        QCOMPARE(summary.ranges, int64_t(1));   // "step 0"
        // The whole session: both syncs, the union of all GPU work (3520 µs), every event.
        const RangeSummary all = RangeSummary::compute(*m_session, tiny::kEnd, tiny::kStart);
        QCOMPARE(all.startNs, tiny::kStart);
        QCOMPARE(all.hostSyncs, int64_t(2));
        QCOMPARE(all.blockedNs, int64_t(2'002'000));
        QCOMPARE(all.devices[0].busyNs, int64_t(3'520'000));
        QCOMPARE(all.kernels, int64_t(tiny::kLaunches));
        QCOMPARE(all.memcpys, int64_t(2));
        QCOMPARE(all.memsets, int64_t(1));
        QCOMPARE(all.apiCalls, int64_t(tiny::kLaunches + 4));
        QCOMPARE(all.ranges, int64_t(2));
    }
};

STALLSCOPE_TEST_MAIN(TimelineLanesTest)
#include "tst_timeline_lanes.moc"
