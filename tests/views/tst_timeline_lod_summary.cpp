// The column summaries of a zoomed-out draw list (lod_summary.h): runs merged with them are the
// runs merged by scanning every event (first event, count, extent), their covered time is exact,
// a long event hidden deep inside a many-event pixel still sets its run's end, a one-pixel sync
// among ~100 calls a pixel is still painted in the stall colour, and the lanes look the same
// painted into the canvas image (many blocks) or by the painter (few).
#include "tests/support/test_suite.h"
#include "tests/views/timeline_lod_support.h"
#include "views/timeline/draw_list.h"
#include "views/timeline/lod_merge.h"
#include "views/timeline/timeline_layout.h"
#include "views/timeline/timeline_palette.h"
#include "views/timeline/timeline_widget.h"

#include <QImage>
#include <QTest>

#include <random>

using namespace stallscope;
using namespace stallscope::views;
using namespace lodtest;

namespace {

std::vector<MergedRun> runsOf(const model::IntervalColumns& columns,
                              const TimelineViewport& viewport, LodSummaries* summaries) {
    std::vector<MergedRun> runs;
    forEachMergedRun(columns, viewport, summaries,
                     [&](const MergedRun& run) { runs.push_back(run); });
    return runs;
}

// `n` non-overlapping events of 1..40 ns with gaps of 0..60 ns (seeded), a few 3,000 ns long.
model::IntervalColumns randomColumn(size_t n, uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_int_distribution<int64_t> duration(1, 40), gap(0, 60);
    model::IntervalColumns columns;
    int64_t t = 0;
    for (size_t i = 0; i < n; ++i) {
        const int64_t length = i % 997 == 500 ? 3'000 : duration(random);
        columns.pushInterval(t, t + length, uint32_t(i));
        t += length + gap(random);
    }
    return columns;
}

int64_t summedDurations(const model::IntervalColumns& columns, size_t first, size_t count) {
    int64_t sum = 0;
    for (size_t k = first; k < first + count; ++k)
        sum += columns.duration(k);
    return sum;
}

// `threads` host threads (tids 10, 11, …): the first with hostSession's calls and sync, the others
// with `otherCalls` calls and the same sync.
std::shared_ptr<model::Session> threadsSession(int threads, size_t calls, size_t otherCalls,
                                               int64_t syncStart, int64_t syncEnd) {
    auto session = hostSession(calls, syncStart, syncEnd);
    session->threads[0].tid = 10;
    const model::HostLane lane = hostSession(otherCalls, syncStart, syncEnd)->hostLanes[0];
    for (int t = 1; t < threads; ++t) {
        model::ThreadInfo thread = session->threads[0];
        thread.tid = 10 + t;
        session->threads.push_back(thread);
        session->hostLanes.push_back(lane);
        session->hostLanes.back().threadIndex = t;
    }
    session->counts.apiCalls += int64_t(otherCalls) * (threads - 1);
    session->counts.syncs *= threads;
    return session;
}

// The pixels of `lane`'s row in the canvas.
QImage laneImage(TimelineWidget& widget, int lane) {
    QImage image(widget.size(), QImage::Format_RGB32);
    widget.render(&image);
    const QRect canvas = widget.canvasRect();
    const QRect row = widget.laneRect(lane);
    return image.copy(QRect(canvas.left(), row.top(), canvas.width(), row.height()));
}

} // namespace

class TimelineLodSummaryTest : public QObject {
    Q_OBJECT
private slots:
    // 20,000 events, ~50 ns apart, on 500 px over views of about 2,000 and 1,600 ns a pixel (40 to
    // 50 events a pixel: below the exact-scan limit, so the scan is exact too).
    void summarizedRunsAreTheScannedRuns_data() {
        QTest::addColumn<int64_t>("visibleStart");
        QTest::addColumn<int64_t>("visibleEnd");
        QTest::newRow("whole") << int64_t(0) << int64_t(1'000'000);
        QTest::newRow("middle, unaligned") << int64_t(123'457) << int64_t(923'001);
    }
    void summarizedRunsAreTheScannedRuns() {
        QFETCH(int64_t, visibleStart);
        QFETCH(int64_t, visibleEnd);
        const auto columns = randomColumn(20'000, 7);
        TimelineViewport viewport = viewportOver(0, columns.end.back(), 500);
        viewport.setVisibleRange(visibleStart, visibleEnd);
        LodSummaries summaries;
        const auto scanned = runsOf(columns, viewport, nullptr);
        const auto summarized = runsOf(columns, viewport, &summaries);
        QCOMPARE(summarized.size(), scanned.size());
        size_t longRuns = 0;
        for (size_t r = 0; r < scanned.size(); ++r) {
            QCOMPARE(summarized[r].first, scanned[r].first);
            QCOMPARE(summarized[r].count, scanned[r].count);
            QCOMPARE(summarized[r].x0, scanned[r].x0);
            QCOMPARE(summarized[r].x1, scanned[r].x1);
            QVERIFY(std::abs(summarized[r].coveredPx - scanned[r].coveredPx) < 1e-9);
            longRuns += scanned[r].count >= 2 * ColumnSummary::kGroup;
        }
        QVERIFY(longRuns > 100); // the summaries were used
        // No event lost: each run starts where the one before ended, from the first event the
        // view overlaps through the last one starting in it (the last pixel's run may go on).
        const size_t first = columns.firstEndingAfter(viewport.visibleStartNs());
        QCOMPARE(summarized.front().first, first);
        for (size_t r = 1; r < summarized.size(); ++r)
            QCOMPARE(summarized[r].first, summarized[r - 1].first + summarized[r - 1].count);
        QVERIFY(summarized.back().first + summarized.back().count >=
                columns.firstStartingAtOrAfter(viewport.visibleEndNs()));
    }

    // 1 µs a pixel; pixel 7 holds 300 events of 2 ns, 3 ns apart, starting at event 5 of its
    // group; event 250 of them (past the scan's 64) lasts 2,500 ns, and the last one 600 ns.
    void runEndsAtAnEventDeepInsideIt() {
        model::IntervalColumns columns;
        for (int64_t k = 0; k < 5; ++k) // pixels 1..5: one event each
            columns.pushInterval((k + 1) * 1'000, (k + 1) * 1'000 + 2, uint32_t(columns.size()));
        for (int64_t k = 0; k < 300; ++k) {
            const int64_t start = 7'000 + k * 3;
            const int64_t duration = k == 250 ? 2'500 : (k == 299 ? 600 : 2);
            columns.pushInterval(start, start + duration, uint32_t(columns.size()));
        }
        columns.pushInterval(20'000, 20'002, uint32_t(columns.size()));
        LodSummaries summaries;
        const auto runs = runsOf(columns, viewportOver(0, 100'000, 100), &summaries);
        QCOMPARE(runs.size(), size_t(7));
        const MergedRun& run = runs[5];
        QCOMPARE(run.first, size_t(5));   // the pixel's first event
        QCOMPARE(run.count, size_t(300)); // through its last
        QCOMPARE(run.x0, 7.0);
        QCOMPARE(run.x1,
                 (7'000 + 250 * 3 + 2'500) / 1'000.0); // the long event's end, not the last's
        QCOMPARE(run.coveredPx, summedDurations(columns, 5, 300) / 1'000.0);
        QCOMPARE(runs[6].first, size_t(305));
        // The scan alone stops at 64 events: the hidden event's end is lost to it.
        QVERIFY(runsOf(columns, viewportOver(0, 100'000, 100), nullptr)[5].x1 < run.x1);
    }

    // Zoomed out on a thread of 100,000 calls (~100 a pixel) with one 3 µs sync: the widget (which
    // builds with summaries) paints the sync's pixel in the stall colour, at the lane's bottom.
    void onePixelStallStillDrawn() {
        std::shared_ptr<const model::Session> session =
            hostSession(100'000, 120'001'000, 120'004'000);
        TimelineWidget widget;
        widget.resize(1200, 300);
        widget.setSession(session);
        widget.zoomToFit();
        QVERIFY(widget.viewport().nsPerPixel() > 150'000); // the 3 µs sync is < 0.02 px
        const int lane = widget.layout().find(LaneKind::HostThread, 0);
        const DrawList& list = widget.drawList();
        QCOMPARE(list.eventCount(model::EventKind::ApiCall), int64_t(100'000));
        QCOMPARE(list.eventCount(model::EventKind::Sync), int64_t(1));
        QImage image(widget.size(), QImage::Format_RGB32);
        widget.render(&image);
        const int x = int(std::floor(widget.xForTime(120'001'000)));
        const int bottom = widget.laneRect(lane).bottom() - 2;
        QCOMPARE(image.pixel(x, bottom), TimelinePalette::stall());
        QVERIFY(image.pixel(x - 3, bottom) != TimelinePalette::stall());
        QVERIFY(image.pixel(x + 3, bottom) != TimelinePalette::stall());
    }

    // Many blocks are written into the canvas image, few go to the painter: a thread's row looks
    // the same either way (40 threads of ~1,000 blocks each, against the same first thread beside
    // 39 of a single call).
    void imageAndPainterPaintTheSame() {
        auto paintFirstThread = [](size_t otherCalls) {
            TimelineWidget widget;
            widget.resize(1200, 1400);
            widget.setSession(threadsSession(40, 2'000, otherCalls, 2'000'500, 2'003'000));
            widget.zoomToFit();
            const size_t blocks = widget.drawList().blocks().size();
            return std::pair(laneImage(widget, widget.layout().find(LaneKind::HostThread, 0)),
                             blocks);
        };
        const auto [many, manyBlocks] = paintFirstThread(2'000);
        const auto [one, oneBlocks] = paintFirstThread(1);
        QVERIFY(manyBlocks >= 20'000); // TimelinePainter::kBlocksForTheImage
        QVERIFY(oneBlocks < 2'000);
        QVERIFY(many.height() > 10);
        QCOMPARE(many.size(), one.size());
        QCOMPARE(many, one);
        // The 2.5 µs sync (0.6 px) is there, in the stall colour at the row's bottom.
        bool stall = false;
        for (int x = 0; x < many.width(); ++x)
            stall = stall || many.pixel(x, many.height() - 3) == TimelinePalette::stall();
        QVERIFY(stall);
    }
};

STALLSCOPE_TEST_MAIN(TimelineLodSummaryTest)
#include "tst_timeline_lod_summary.moc"
