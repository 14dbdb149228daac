// TimelineWidget and SessionSummaryWidget on a tiny session: lanes, the stall colour at the
// syncs' pixels, zoom around the cursor, the cached draw list; the summary and its warning.
#include "model/session/session_loader.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"
#include "tests/views/tiny_session.h"
#include "views/panels/session_summary_widget.h"
#include "views/timeline/time_ruler.h"
#include "views/timeline/timeline_palette.h"
#include "views/timeline/timeline_widget.h"

#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

using namespace stallscope;
using namespace stallscope::views;

class TimelineWidgetTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const model::Session> m_session;

    // The tiny session with `status`; null when it cannot be written or loaded (which fails the
    // test).
    std::shared_ptr<const model::Session> load(const std::string& status) {
        const QString path =
            m_dir.filePath(QString::fromStdString(status) + QStringLiteral(".stallscope"));
        QString error;
        if (!tiny::write(path, &error, status)) {
            STALLSCOPE_FAIL("cannot write the fixture %s: %s", qPrintable(path), qPrintable(error));
            return nullptr;
        }
        model::LoadResult result = model::SessionLoader::load(path.toStdString());
        if (!result.ok()) {
            STALLSCOPE_FAIL("cannot load the fixture %s: %s", qPrintable(path),
                            result.error.c_str());
            return nullptr;
        }
        return std::shared_ptr<const model::Session>(std::move(result.session));
    }

    // The widget's pixels at its current size.
    static QImage render(TimelineWidget& widget) {
        QImage image(widget.size(), QImage::Format_RGB32);
        widget.render(&image);
        return image;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_session = load("complete");
        QVERIFY(m_session);
    }

    void lanes() {
        TimelineWidget widget;
        widget.setSession(m_session);
        QStringList labels;
        for (const TimelineLane& lane : widget.layout().lanes())
            labels << lane.label;
        QVERIFY2(labels.size() == 9, qPrintable(labels.join(QLatin1String(" | "))));
        QVERIFY(labels[0].startsWith(QStringLiteral("Process 4242")));
        QCOMPARE(labels[1], QStringLiteral("python (4242)"));
        QCOMPARE(widget.layout().lanes()[2].kind, LaneKind::Range);
        QCOMPARE(labels[2], QStringLiteral("NVTX"));
        QCOMPARE(widget.layout().lanes()[3].kind, LaneKind::Range);
        QCOMPARE(labels[3], QStringLiteral("NVTX · depth 1"));
        QCOMPARE(labels[4], QStringLiteral("pt_data_worker (4250)"));
        QCOMPARE(labels[5], QStringLiteral("GPU 0 · ") + QString::fromLatin1(tiny::kGpu));
        QCOMPARE(widget.layout().lanes()[6].kind, LaneKind::GpuBusy);
        QCOMPARE(labels[6], QStringLiteral("GPU 0 · busy"));
        QCOMPARE(labels[7], QStringLiteral("GPU 0 · stream 7"));
        QCOMPARE(labels[8], QStringLiteral("GPU 0 · stream 13"));
        // Tree: threads and the device belong to the process, streams to the device.
        QCOMPARE(widget.layout().lanes()[1].parent, 0);
        QCOMPARE(widget.layout().lanes()[3].parent, 1);
        QCOMPARE(widget.layout().lanes()[8].parent, 5);
    }

    void stallColourAtSyncPixels() {
        TimelineWidget widget;
        widget.resize(1000, 400);
        widget.setSession(m_session);
        widget.zoomToFit(); // the whole session spans the canvas
        QCOMPARE(widget.viewport().visibleStartNs(), tiny::kStart);
        QVERIFY(std::abs(widget.viewport().visibleEndNs() - tiny::kEnd) <= 1);
        const QImage image = render(widget);
        const int lane = widget.layout().find(LaneKind::HostThread, 0);
        // Near the lane's top: the label inside the sync ("blocked 2.00 ms") sits in the middle.
        const int y = widget.laneRect(lane).top() + 2;
        const QRgb stall = TimelinePalette::stall();
        // The 2 ms stream sync: solid stall colour across its span.
        const int x0 = int(std::ceil(widget.xForTime(tiny::kSyncStart)));
        const int x1 = int(std::floor(widget.xForTime(tiny::kSyncEnd))) - 2; // 1 px end gap
        QVERIFY(x1 - x0 > 100);
        for (int x = x0; x <= x1; x += 7)
            QCOMPARE(image.pixel(x, y), stall);
        // The 2 µs event sync is 0.16 px wide here and still painted: a pixel wide and (as a
        // density bar, bottom-aligned) at least a third of the lane high.
        const int shortX = int(std::floor(widget.xForTime(tiny::kShortSyncStart)));
        const int bottom = widget.laneRect(lane).bottom() - 2;
        QCOMPARE(image.pixel(shortX, bottom), stall);
        QVERIFY(image.pixel(shortX, y) != stall);
        // Elsewhere on the lane, no stall colour.
        const int quietX = int(widget.xForTime(tiny::kStart + 9'500'000));
        QVERIFY(image.pixel(quietX, y) != stall);
        // The stall colour is not used by any GPU lane.
        for (const int laneIndex : {widget.layout().find(LaneKind::Stream, 0),
                                    widget.layout().find(LaneKind::Stream, 1)}) {
            const QRect rect = widget.laneRect(laneIndex);
            for (int x = rect.left(); x < rect.right(); ++x)
                QVERIFY(image.pixel(x, rect.center().y()) != stall);
        }
    }

    // A recording with capture control: the time it left out is hatched, the rest untouched.
    void notRecordedTimeHatched() {
        auto captured = std::make_shared<model::Session>(*m_session);
        const int64_t middle = (tiny::kStart + tiny::kEnd) / 2;
        captured->captureControlled = true;
        captured->captureIntervals = {
            {0, tiny::kStart, middle, "cudaProfilerStart", "cudaProfilerStop"}};
        QCOMPARE(captured->notRecorded(), (std::vector<model::TimeSpan>{{middle, tiny::kEnd}}));
        TimelineWidget plain, hatched;
        for (TimelineWidget* widget : {&plain, &hatched}) {
            widget->resize(1000, 400);
            widget->setSession(widget == &plain ? m_session : captured);
            widget->zoomToFit();
        }
        const QImage before = render(plain), after = render(hatched);
        const QRect canvas = hatched.canvasRect();
        auto differing = [&](int fromX, int toX) {
            int count = 0;
            for (int x = fromX; x < toX; ++x)
                for (int y = canvas.top(); y < canvas.bottom(); y += 3)
                    count += before.pixel(x, y) != after.pixel(x, y);
            return count;
        };
        const int split = int(hatched.xForTime(middle));
        QCOMPARE(differing(canvas.left(), split - 1), 0);
        QVERIFY(differing(split + 1, canvas.right()) > (canvas.right() - split) * 5);
    }

    void kernelAndCopyColours() {
        TimelineWidget widget;
        widget.resize(1000, 400);
        widget.setSession(m_session);
        widget.setVisibleRange(tiny::kStart, tiny::kStart + 1'000'000); // 1 ms: kernels are 80 px
        const QImage image = render(widget);
        const QRect compute = widget.laneRect(widget.layout().find(LaneKind::Stream, 0));
        // First kernel (gemm) runs 120..200 µs.
        const int kernelX = int(widget.xForTime(tiny::kStart + 150'000));
        QCOMPARE(image.pixel(kernelX, compute.top() + 3),
                 TimelinePalette::kernel("ampere_sgemm_128x64_nn"));
        const QRect copy = widget.laneRect(widget.layout().find(LaneKind::Stream, 1));
        const int copyX = int(widget.xForTime(tiny::kStart + 500'000));
        QCOMPARE(image.pixel(copyX, copy.top() + 3), TimelinePalette::memcpy(1));
        QVERIFY(TimelinePalette::kernel("a") != TimelinePalette::kernel("b"));
        QCOMPARE(TimelinePalette::kernel("gemm"), TimelinePalette::kernel("gemm"));
    }

    void wheelZoomKeepsCursorTime() {
        TimelineWidget widget;
        widget.resize(1000, 400);
        widget.setSession(m_session);
        const QPointF position(widget.canvasRect().left() + 300.5, 100);
        const int64_t before = widget.timeForX(position.x());
        const double nsPerPixel = widget.viewport().nsPerPixel();
        QWheelEvent wheel(position, widget.mapToGlobal(position), QPoint(), QPoint(0, 240),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&widget, &wheel);
        QVERIFY(widget.viewport().nsPerPixel() < nsPerPixel * 0.7);
        QVERIFY(std::abs(widget.timeForX(position.x()) - before) <= 1);
        // Drag to pan: content follows the mouse.
        const int64_t atX = widget.timeForX(400);
        QTest::mousePress(&widget, Qt::LeftButton, Qt::NoModifier, QPoint(500, 100));
        QTest::mouseMove(&widget, QPoint(600, 100));
        QTest::mouseRelease(&widget, Qt::LeftButton, Qt::NoModifier, QPoint(600, 100));
        QVERIFY(std::abs(widget.timeForX(500) - atX) <=
                int64_t(widget.viewport().nsPerPixel()) + 1);
    }

    // The ruler counts from the time origin (two runs compared share an axis through it); moving
    // it keeps the view where it was.
    void timeOriginMovesTheRulerNotTheView() {
        TimelineWidget widget;
        widget.resize(1000, 400);
        widget.setSession(m_session);
        QCOMPARE(widget.timeOrigin(), m_session->startNs);
        widget.setVisibleRange(tiny::kSyncStart - 1'000'000, tiny::kSyncStart + 1'000'000);
        const double syncX = widget.xForTime(tiny::kSyncStart);
        QSignalSpy changed(&widget, &TimelineWidget::viewportChanged);
        widget.setTimeOrigin(tiny::kSyncStart);
        QCOMPARE(widget.timeOrigin(), tiny::kSyncStart);
        QCOMPARE(changed.size(), 1);
        QVERIFY(std::abs(widget.xForTime(tiny::kSyncStart) - syncX) < 0.01);
        bool zeroAtTheSync = false;
        for (const RulerTick& tick : TimeRuler::ticks(widget.viewport()))
            if (tick.label.startsWith(QLatin1String("0 ")))
                zeroAtTheSync = std::abs(tick.x - syncX + widget.canvasRect().left()) < 1.0;
        QVERIFY(zeroAtTheSync);
        widget.setSession(m_session); // a new session: the ruler counts from its start again
        QCOMPARE(widget.timeOrigin(), m_session->startNs);
    }

    void drawListCachedAcrossPaints() {
        TimelineWidget widget;
        widget.resize(800, 300);
        widget.setSession(m_session);
        render(widget);
        const int builds = widget.drawListBuilds();
        render(widget);
        render(widget);
        QCOMPARE(widget.drawListBuilds(), builds); // repaint only
        widget.zoomAround(500, 2.0);
        render(widget);
        QCOMPARE(widget.drawListBuilds(), builds + 1); // viewport changed: rebuilt once
    }

    void summary() {
        SessionSummaryWidget widget;
        widget.setSession(m_session);
        const QString text = widget.text();
        QVERIFY2(text.contains(QString::fromLatin1(tiny::kCommand)), qPrintable(text));
        QVERIFY2(text.contains(QString::fromLatin1(tiny::kHost)), qPrintable(text));
        QVERIFY2(text.contains(QString::fromLatin1(tiny::kGpu)), qPrintable(text));
        QVERIFY(widget.warningText().isEmpty());
        QVERIFY(!widget.isWarningVisible());
    }

    void summaryWarnsAboutUnfinishedRecording() {
        const auto session = load("recording");
        QVERIFY(session);
        QVERIFY(!session->warning.empty());
        SessionSummaryWidget widget;
        widget.setSession(session);
        widget.show();
        QVERIFY(widget.isWarningVisible());
        QVERIFY(widget.warningText().contains(QString::fromStdString(session->warning)));
        widget.setSession(m_session); // a complete one: the banner goes away
        QVERIFY(!widget.isWarningVisible());
    }
};

STALLSCOPE_TEST_MAIN(TimelineWidgetTest)
#include "tst_timeline_widget.moc"
