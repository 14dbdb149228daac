// Level-of-detail merge: at most about one block per pixel, no event lost from the counts, and a
// stall inside a merged block still marked.
#include "model/session/session.h"
#include "tests/support/test_suite.h"
#include "tests/views/timeline_lod_support.h"
#include "views/timeline/draw_list.h"
#include "views/timeline/lod_merge.h"
#include "views/timeline/timeline_layout.h"
#include "views/timeline/timeline_palette.h"
#include "views/timeline/timeline_viewport.h"

#include <QTest>

using namespace stallscope;
using namespace stallscope::views;

using namespace lodtest;

class TimelineLodTest : public QObject {
    Q_OBJECT
private slots:
    void wideEventsComeOutOneByOne() {
        const auto columns = evenly(100, 10'000, 5'000);
        const auto viewport = viewportOver(0, 1'000'000, 1000); // 1 µs per pixel: events are 5 px
        size_t runs = 0;
        forEachMergedRun(columns, viewport, [&](const MergedRun& run) {
            QCOMPARE(run.count, size_t(1));
            QCOMPARE(run.first, runs);
            QCOMPARE(run.x0, double(runs) * 10.0);
            QCOMPARE(run.x1, double(runs) * 10.0 + 5.0);
            ++runs;
        });
        QCOMPARE(runs, size_t(100));
    }

    void subPixelEventsMergePerPixel_data() {
        QTest::addColumn<int>("events");
        QTest::addColumn<int>("width");
        QTest::newRow("10 per pixel") << 10'000 << 1000;
        QTest::newRow("1000 per pixel") << 1'000'000 << 1000;
        QTest::newRow("uneven") << 123'457 << 777;
    }
    void subPixelEventsMergePerPixel() {
        QFETCH(int, events);
        QFETCH(int, width);
        const auto columns = evenly(size_t(events), 100, 40);
        const auto viewport = viewportOver(0, int64_t(events) * 100, width);
        size_t runs = 0;
        size_t total = 0;
        size_t expectedFirst = 0;
        double lastX0 = -1.0;
        forEachMergedRun(columns, viewport, [&](const MergedRun& run) {
            QCOMPARE(run.first, expectedFirst); // contiguous: nothing skipped
            QVERIFY(run.x0 > lastX0);
            QVERIFY(run.x1 - run.x0 <= 1.05); // a run stays within (about) its pixel
            lastX0 = run.x0;
            expectedFirst += run.count;
            total += run.count;
            ++runs;
        });
        QCOMPARE(total, size_t(events));
        QVERIFY2(runs <= size_t(width) + 1,
                 qPrintable(QStringLiteral("%1 runs for %2 px").arg(runs).arg(width)));
        QVERIFY(runs >= size_t(width) - 1);
    }

    void onlyVisibleEvents() {
        const auto columns = evenly(10'000, 100, 40);
        // Events 2000..2999 start in [200 µs, 300 µs).
        TimelineViewport viewport = viewportOver(0, 1'000'000, 100);
        viewport.setVisibleRange(200'000, 300'000);
        size_t total = 0;
        size_t first = columns.size();
        forEachMergedRun(columns, viewport, [&](const MergedRun& run) {
            first = std::min(first, run.first);
            total += run.count;
        });
        QCOMPARE(first, size_t(2000));
        QCOMPARE(total, size_t(1000));
    }

    void mergedBlockKeepsStall() {
        // 100,000 calls over 200 ms on 500 px: ~1000 calls a pixel; one 3 µs sync in the middle.
        const int64_t syncStart = 100'000'501;
        auto session = hostSession(100'000, syncStart, syncStart + 3'000);
        TimelineLayout layout;
        layout.build(*session);
        const int lane = layout.find(LaneKind::HostThread, 0);
        QVERIFY(lane >= 0);
        const auto viewport = viewportOver(session->startNs, session->endNs, 500);
        const DrawList list = DrawList::build(*session, layout, viewport);

        QCOMPARE(list.eventCount(model::EventKind::ApiCall), int64_t(100'000));
        QCOMPARE(list.eventCount(model::EventKind::Sync), int64_t(1));
        QVERIFY(list.laneBlocks(lane).size() <= 502 + 1);

        const double syncX = viewport.xForTime(syncStart);
        bool stallBlockSeen = false;
        bool syncBlockSeen = false;
        for (const DrawBlock& block : list.laneBlocks(lane)) {
            QVERIFY(block.x1 - block.x0 >= 1.0f); // everything at least a pixel wide
            const bool coversSync = block.x0 <= syncX && syncX < block.x1;
            if (block.kind == model::EventKind::ApiCall) {
                QVERIFY(block.count > 1);
                QCOMPARE(block.color, TimelinePalette::apiCall());
                // Calls cover half of the time: density fill in the middle of its range.
                QVERIFY(block.fill > DrawList::kMinFill && block.fill < 1.0f);
                if (coversSync) {
                    QVERIFY(block.stall);
                    stallBlockSeen = true;
                } else if (block.x1 < syncX - 2 || block.x0 > syncX + 2) {
                    QVERIFY(!block.stall); // far from the sync
                }
            } else {
                QCOMPARE(block.kind, model::EventKind::Sync);
                QVERIFY(block.stall);
                QCOMPARE(block.color, TimelinePalette::stall());
                QVERIFY(coversSync);
                // 3 µs on a 400 µs pixel: (about) the minimum fill, still drawn.
                QVERIFY(block.fill >= DrawList::kMinFill &&
                        block.fill < DrawList::kMinFill + 0.01f);
                syncBlockSeen = true;
            }
        }
        QVERIFY(stallBlockSeen);
        QVERIFY(syncBlockSeen);
        // Syncs come after the API calls of their lane, so they paint on top.
        QCOMPARE(list.laneBlocks(lane).back().kind, model::EventKind::Sync);
    }

    void zoomedInBlocksAreEvents() {
        auto session = hostSession(1000, 500'500, 501'000);
        TimelineLayout layout;
        layout.build(*session);
        TimelineViewport viewport = viewportOver(session->startNs, session->endNs, 1000);
        viewport.setVisibleRange(400'000, 600'000); // 200 ns per pixel: calls are 5 px
        const DrawList list = DrawList::build(*session, layout, viewport);
        const int lane = layout.find(LaneKind::HostThread, 0);
        int64_t calls = 0;
        for (const DrawBlock& block : list.laneBlocks(lane)) {
            QCOMPARE(block.count, uint32_t(1));
            QVERIFY(!block.stall || block.kind == model::EventKind::Sync);
            calls += block.kind == model::EventKind::ApiCall;
        }
        QCOMPARE(calls, int64_t(100)); // calls 200..299
    }

    void panningByWholePixelsMergesTheSame() {
        const auto columns = evenly(100'000, 97, 30);
        TimelineViewport viewport = viewportOver(0, 9'700'000, 1000);
        viewport.setVisibleRange(1'000'000, 2'000'000); // 1 µs per pixel, ~10 events a pixel
        auto runsIn = [&](int64_t from, int64_t to) {
            std::vector<std::pair<size_t, size_t>> runs;
            forEachMergedRun(columns, viewport, [&](const MergedRun& run) {
                if (columns.start[run.first] >= from && columns.start[run.first] < to)
                    runs.emplace_back(run.first, run.count);
            });
            return runs;
        };
        const auto before = runsIn(1'100'000, 1'900'000);
        viewport.panByPixels(-37); // the shared time span must merge exactly as before
        const auto after = runsIn(1'100'000, 1'900'000);
        QVERIFY(before.size() > 700);
        QCOMPARE(after, before);
    }
};

STALLSCOPE_TEST_APPLESS_MAIN(TimelineLodTest)
#include "tst_timeline_lod.moc"
