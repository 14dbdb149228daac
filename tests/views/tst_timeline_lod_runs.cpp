// The first and the last event of each merged run: a run's extent reaches its last event's end
// (also past the exact-scan limit), and a merged block's stall flag sees a sync over its first or
// its last call, or one begun before it, and none just past it.
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"
#include "tests/views/timeline_lod_support.h"
#include "views/timeline/draw_list.h"
#include "views/timeline/lod_merge.h"
#include "views/timeline/timeline_layout.h"

#include <QTest>

#include <optional>

using namespace stallscope;
using namespace stallscope::views;
using namespace lodtest;

namespace {

// The merged runs of `columns` over [0, end] on `width` pixels.
std::vector<MergedRun> runsOf(const model::IntervalColumns& columns, int64_t end, int width) {
    std::vector<MergedRun> runs;
    forEachMergedRun(columns, viewportOver(0, end, width),
                     [&](const MergedRun& run) { runs.push_back(run); });
    return runs;
}

// The API-call block whose first call is `first`, in a session of 1,000 calls (1 µs every 2 µs)
// on 200 px (10 µs a pixel: five calls a block) with one sync [syncStart, syncEnd]; nothing when no
// block starts there (which fails the test).
std::optional<DrawBlock> callBlock(uint32_t first, int64_t syncStart, int64_t syncEnd) {
    auto session = hostSession(1000, syncStart, syncEnd);
    TimelineLayout layout;
    layout.build(*session);
    const DrawList list =
        DrawList::build(*session, layout, viewportOver(session->startNs, session->endNs, 200));
    for (const DrawBlock& block : list.laneBlocks(layout.find(LaneKind::HostThread, 0)))
        if (block.kind == model::EventKind::ApiCall && block.first == first)
            return block;
    STALLSCOPE_FAIL("no API-call block starts at call %u", first);
    return std::nullopt;
}

} // namespace

class TimelineLodRunsTest : public QObject {
    Q_OBJECT
private slots:
    // 1 µs a pixel; pixel 3 holds ten 10 ns events 100 ns apart, the last one 80 ns long; pixel 5
    // holds the same with the first one 950 ns long.
    void runReachesItsLastAndFirstEvent() {
        model::IntervalColumns columns;
        for (int64_t pixel : {3, 5})
            for (int64_t k = 0; k < 10; ++k) {
                const int64_t start = pixel * 1'000 + k * 100;
                int64_t duration = 10;
                if (pixel == 3 && k == 9)
                    duration = 80;
                if (pixel == 5 && k == 0)
                    duration = 950;
                columns.pushInterval(start, start + duration, uint32_t(columns.size()));
            }
        const auto runs = runsOf(columns, 100'000, 100);
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[0].first, size_t(0));
        QCOMPARE(runs[0].count, size_t(10));
        QCOMPARE(runs[0].x0, 3.0);
        QCOMPARE(runs[0].x1, 3.98); // the last event's end
        QCOMPARE(runs[0].coveredPx, (9 * 10 + 80) / 1000.0);
        QCOMPARE(runs[1].first, size_t(10));
        QCOMPARE(runs[1].count, size_t(10));
        QCOMPARE(runs[1].x0, 5.0);
        QCOMPARE(runs[1].x1, 5.95); // the first event's end, past the others'
        QCOMPARE(runs[1].coveredPx, (950 + 9 * 10) / 1000.0);
    }

    // 100 events in one pixel, more than the exact scan reads: the last event still sets the end,
    // and the covered share is extrapolated from the scanned ones.
    void runPastTheExactScanReachesItsLastEvent() {
        static_assert(detail::kExactEndScan < 100);
        model::IntervalColumns columns;
        for (int64_t k = 0; k < 100; ++k)
            columns.pushInterval(k * 10, k * 10 + (k == 99 ? 9 : 5), uint32_t(k));
        columns.pushInterval(5'000, 5'500, 100); // a wide event in pixel 5 ends the run
        const auto runs = runsOf(columns, 10'000, 10);
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[0].first, size_t(0));
        QCOMPARE(runs[0].count, size_t(100));
        QCOMPARE(runs[0].x1, 0.999);
        QCOMPARE(runs[0].coveredPx, 0.5); // 5 ns each, 100 events, on a 1,000 ns pixel
        QCOMPARE(runs[1].first, size_t(100));
        QCOMPARE(runs[1].count, size_t(1));
    }

    // Block 50 holds calls 250..254: [500, 501] µs ... [508, 509] µs.
    // The search from a guessed index finds the first start at or after t wherever the guess
    // lies: before, at or after the answer, at either end, with equal starts around it.
    void searchNearAGuessFindsTheBoundary() {
        model::IntervalColumns columns;
        for (int64_t k = 0; k < 40; ++k) {
            const int64_t start = (k / 3) * 10; // three events per start
            columns.pushInterval(start, start + 5, uint32_t(k));
        }
        for (size_t from = 0; from <= columns.size(); ++from)
            for (int64_t t = -5; t <= 140; t += 5)
                for (size_t guess = 0; guess <= columns.size() + 2; ++guess) {
                    const size_t expected = static_cast<size_t>(
                        std::lower_bound(columns.start.begin() + from, columns.start.end(), t) -
                        columns.start.begin());
                    QCOMPARE(detail::gallopNear(columns, from, guess, t), expected);
                }
    }

    void stallOverTheLastCallOfABlock() {
        const std::optional<DrawBlock> block = callBlock(250, 508'500, 508'800);
        QVERIFY(block);
        QCOMPARE(block->count, uint32_t(5));
        QVERIFY(block->stall);
    }
    void stallOverTheFirstCallOfABlock() {
        const std::optional<DrawBlock> block = callBlock(250, 500'100, 500'200);
        QVERIFY(block);
        QVERIFY(block->stall);
    }
    void stallBegunBeforeTheBlock() {
        // From the gap before call 250 into it: the previous block (calls 245–249, to 499 µs) is
        // asked first, and the overlap check must not pass this sync by.
        const std::optional<DrawBlock> previous = callBlock(245, 499'500, 500'300);
        QVERIFY(previous);
        QVERIFY(!previous->stall);
        const std::optional<DrawBlock> block = callBlock(250, 499'500, 500'300);
        QVERIFY(block);
        QVERIFY(block->stall);
    }
    void syncJustAfterABlockIsNotItsStall() {
        // Starts where call 254 ends: the next block's business, not this one's.
        const std::optional<DrawBlock> block = callBlock(250, 509'000, 509'500);
        QVERIFY(block);
        QVERIFY(!block->stall);
        const std::optional<DrawBlock> previous = callBlock(245, 499'000, 499'500);
        QVERIFY(previous);
        QVERIFY(!previous->stall); // before it: block 49 ends at 499 µs
    }
};

STALLSCOPE_TEST_APPLESS_MAIN(TimelineLodRunsTest)
#include "tst_timeline_lod_runs.moc"
