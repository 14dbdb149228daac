// TimelineViewport (time <-> pixel mapping, zoom, pan) and TimeRuler (steps, labels).
#include "tests/support/test_suite.h"
#include "views/timeline/time_ruler.h"
#include "views/timeline/timeline_viewport.h"

#include <QTest>

using stallscope::views::TimelineViewport;
using stallscope::views::TimeRuler;

class TimelineViewportTest : public QObject {
    Q_OBJECT
private:
    static TimelineViewport make(int64_t origin, int64_t start, int64_t end, int width) {
        TimelineViewport viewport;
        viewport.setOrigin(origin);
        viewport.setWidth(width);
        viewport.setDataRange(origin, origin + 100'000'000'000LL);
        viewport.setVisibleRange(start, end);
        return viewport;
    }

private slots:
    void mapping_data() {
        QTest::addColumn<qint64>("origin");
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<int>("width");
        QTest::addColumn<qint64>("time");
        QTest::addColumn<double>("x");
        QTest::newRow("left edge") << 0LL << 0LL << 1000LL << 1000 << 0LL << 0.0;
        QTest::newRow("right edge") << 0LL << 0LL << 1000LL << 1000 << 1000LL << 1000.0;
        QTest::newRow("1 ns per px") << 0LL << 0LL << 1000LL << 1000 << 250LL << 250.0;
        QTest::newRow("1 µs per px") << 0LL << 0LL << 800'000LL << 800 << 123'000LL << 123.0;
        QTest::newRow("offset start") << 0LL << 5'000LL << 6'000LL << 500 << 5'500LL << 250.0;
        QTest::newRow("before start") << 0LL << 5'000LL << 6'000LL << 500 << 4'000LL << -500.0;
        // CLOCK_MONOTONIC-sized times (days of uptime) keep nanosecond precision.
        QTest::newRow("large origin")
            << 864'000'000'000'000LL << 864'000'000'000'000LL << 864'000'000'001'000LL << 1000
            << 864'000'000'000'001LL << 1.0;
        QTest::newRow("sub-ns per px") << 0LL << 100LL << 200LL << 1000 << 150LL << 500.0;
        QTest::newRow("seconds") << 0LL << 0LL << 10'000'000'000LL << 2000 << 5'000'000'000LL
                                 << 1000.0;
    }
    void mapping() {
        QFETCH(qint64, origin);
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(int, width);
        QFETCH(qint64, time);
        QFETCH(double, x);
        const TimelineViewport viewport = make(origin, start, end, width);
        QCOMPARE(viewport.xForTime(time), x);
        QCOMPARE(viewport.timeForX(x), time);
        QCOMPARE(viewport.visibleStartNs(), start);
        QCOMPARE(viewport.visibleEndNs(), end);
    }

    void zoomKeepsAnchor_data() {
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("factor");
        QTest::newRow("in at left") << 0.0 << 2.0;
        QTest::newRow("in at middle") << 400.0 << 1.25;
        QTest::newRow("out at right") << 799.0 << 0.5;
        QTest::newRow("far in") << 123.0 << 1000.0;
    }
    void zoomKeepsAnchor() {
        QFETCH(double, x);
        QFETCH(double, factor);
        TimelineViewport viewport = make(1'000'000, 20'000'000, 28'000'000, 800);
        const int64_t before = viewport.timeForX(x);
        const double nsPerPixel = viewport.nsPerPixel();
        viewport.zoomAround(x, factor);
        QCOMPARE(viewport.timeForX(x), before);
        QCOMPARE(viewport.nsPerPixel(), nsPerPixel / factor);
    }

    // Zooming out next to the data's start keeps the view on the data: the start, not the
    // anchor, stays put (the limit "unless a limit clamps it" of zoomAround).
    void zoomOutAtTheDataStart() {
        TimelineViewport viewport = make(1'000'000, 1'000'000, 9'000'000, 800);
        viewport.zoomAround(799, 0.5);
        QCOMPARE(viewport.visibleStartNs(), 1'000'000LL);
        QCOMPARE(viewport.visibleDurationNs(), 16'000'000.0);
    }

    void zoomLimits() {
        TimelineViewport viewport = make(0, 0, 1000, 1000);
        viewport.zoomAround(500, 1e6);
        QCOMPARE(viewport.nsPerPixel(), TimelineViewport::kMinNsPerPixel);
        viewport.setDataRange(0, 1'000'000);
        viewport.zoomAround(500, 1e-9); // far out: at most four data ranges, data centred
        QCOMPARE(viewport.visibleDurationNs(), 4'000'000.0);
        QCOMPARE(viewport.xForTime(500'000), 500.0);
    }

    void pan() {
        TimelineViewport viewport = make(0, 10'000, 20'000, 1000);
        viewport.panByPixels(100); // drag right: earlier time comes into view
        QCOMPARE(viewport.visibleStartNs(), 9'000LL);
        viewport.panByPixels(-300);
        QCOMPARE(viewport.visibleStartNs(), 12'000LL);
        viewport.setDataRange(0, 30'000);
        viewport.panByPixels(1e9); // clamped at the data's start: no empty time before it
        QCOMPARE(viewport.visibleStartNs(), 0LL);
        viewport.panByPixels(-1e9); // and at its end
        QCOMPARE(viewport.visibleEndNs(), 30'000LL);
    }

    void fitAndResize() {
        TimelineViewport viewport;
        viewport.setOrigin(5'000);
        viewport.setWidth(500);
        viewport.setDataRange(5'000, 15'000);
        viewport.zoomToFit();
        QCOMPARE(viewport.xForTime(5'000), 0.0);
        QCOMPARE(viewport.xForTime(15'000), 500.0);
        viewport.setWidth(1000); // wider: same scale, more time visible, the data centred
        QCOMPARE(viewport.nsPerPixel(), 20.0);
        QCOMPARE(viewport.xForTime(5'000), 250.0);
        QCOMPARE(viewport.xForTime(15'000), 750.0);
    }

    void rulerStep_data() {
        QTest::addColumn<double>("nsPerPixel");
        QTest::addColumn<double>("step");
        QTest::newRow("1 ns/px") << 1.0 << 100.0;
        QTest::newRow("1.2 ns/px") << 1.2 << 200.0;
        QTest::newRow("3 ns/px") << 3.0 << 500.0;
        QTest::newRow("12.5 µs/px") << 12'500.0 << 2'000'000.0;
        QTest::newRow("tiny") << 0.001 << 1.0;
    }
    void rulerStep() {
        QFETCH(double, nsPerPixel);
        QFETCH(double, step);
        QCOMPARE(TimeRuler::stepFor(nsPerPixel, 100.0), step);
    }

    void rulerLabel_data() {
        QTest::addColumn<double>("offset");
        QTest::addColumn<double>("step");
        QTest::addColumn<QString>("label");
        QTest::newRow("ns") << 300.0 << 100.0 << QStringLiteral("300 ns");
        QTest::newRow("µs") << 40'000.0 << 20'000.0 << QStringLiteral("40 µs");
        QTest::newRow("ms decimals") << 1'250'000.0 << 250'000.0 << QStringLiteral("1.25 ms");
        QTest::newRow("tenth ms") << 1'400'000.0 << 200'000.0 << QStringLiteral("1.4 ms");
        QTest::newRow("below tenth ms") << 60'000.0 << 20'000.0 << QStringLiteral("60 µs");
        QTest::newRow("ms") << 6'000'000.0 << 2'000'000.0 << QStringLiteral("6 ms");
        QTest::newRow("s with tenths")
            << 1'500'000'000.0 << 500'000'000.0 << QStringLiteral("1.5 s");
        QTest::newRow("whole s") << 2'000'000'000.0 << 500'000'000.0 << QStringLiteral("2 s");
        QTest::newRow("zero") << 0.0 << 1'000'000.0 << QStringLiteral("0 ms");
        // Zoomed far into a long session: a larger unit rather than seven-digit numbers.
        QTest::newRow("deep µs") << 4'234'620'000.0 << 10'000.0 << QStringLiteral("4234.62 ms");
        QTest::newRow("deeper µs") << 423'462'000'000.0 << 10'000.0 << QStringLiteral("423.462 s");
        QTest::newRow("deep ns") << 123'456'700.0 << 100.0 << QStringLiteral("123.4567 ms");
        QTest::newRow("five digits stay") << 99'990'000.0 << 10'000.0 << QStringLiteral("99990 µs");
    }
    void rulerLabel() {
        QFETCH(double, offset);
        QFETCH(double, step);
        QFETCH(QString, label);
        QCOMPARE(TimeRuler::label(offset, step), label);
    }

    void rulerTicks() {
        const TimelineViewport viewport = make(0, 0, 10'000'000, 1000);
        const auto ticks = TimeRuler::ticks(viewport, 90.0);
        QCOMPARE(ticks.size(), size_t(11)); // every 1 ms, 0..10 ms
        QCOMPARE(ticks.front().x, 0.0);
        QCOMPARE(ticks.front().label, QStringLiteral("0 ms"));
        QCOMPARE(ticks[3].x, 300.0);
        QCOMPARE(ticks[3].label, QStringLiteral("3 ms"));
    }
};

STALLSCOPE_TEST_APPLESS_MAIN(TimelineViewportTest)
#include "tst_timeline_viewport.moc"
