// TimelineWidget interaction on the tiny session: click selection (signals), ruler range
// selection, highlight dimming, framing, activity fit, header collapse/reorder, and that hover
// and selection repaint without rebuilding the draw list.
#include "tests/support/test_suite.h"
#include "tests/views/tst_timeline_support.h"
#include "views/timeline/timeline_palette.h"
#include "views/timeline/timeline_widget.h"

#include <QApplication>
#include <QImage>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>
#include <QTextDocumentFragment>

using namespace stallscope;
using namespace stallscope::views;

namespace {

QImage render(TimelineWidget& widget) {
    QImage image(widget.size(), QImage::Format_RGB32);
    widget.render(&image);
    return image;
}

int brightness(QRgb c) {
    return qRed(c) + qGreen(c) + qBlue(c);
}

} // namespace

class TimelineSelectionTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const model::Session> m_session; // loaded by initTestCase

    // A 1000×400 widget showing the first millisecond (kernels 80 px wide).
    void prepare(TimelineWidget& widget) {
        widget.resize(1000, 400);
        widget.setSession(m_session);
        widget.setVisibleRange(tiny::kStart, tiny::kStart + 1'000'000);
    }
    QPoint pointAt(TimelineWidget& widget, LaneKind kind, int32_t source, int64_t t) {
        const QRect lane = widget.laneRect(widget.layout().find(kind, source));
        return QPoint(int(widget.xForTime(t)), lane.center().y());
    }

private slots:
    void initTestCase() {
        m_session = tinyload::load(m_dir);
        QVERIFY(m_session);
    }

    void clickSelectsAnEvent() {
        TimelineWidget widget;
        prepare(widget);
        QSignalSpy selected(&widget, &TimelineWidget::eventSelected);
        QSignalSpy cleared(&widget, &TimelineWidget::selectionCleared);
        // Kernel 0 runs 120..200 µs on stream 7.
        QTest::mouseClick(&widget, Qt::LeftButton, {},
                          pointAt(widget, LaneKind::Stream, 0, tiny::kStart + 150'000));
        QCOMPARE(selected.count(), 1);
        const model::EventRef event = selected.at(0).at(0).value<model::EventRef>();
        QCOMPARE(event.kind, model::EventKind::Kernel);
        QCOMPARE(event.lane, 0);
        QCOMPARE(event.index, 0u);
        QCOMPARE(widget.selectedEvent(), event);
        // Empty space: the selection goes.
        QTest::mouseClick(&widget, Qt::LeftButton, {},
                          pointAt(widget, LaneKind::Stream, 0, tiny::kStart + 50'000));
        QCOMPARE(cleared.count(), 1);
        QVERIFY(!widget.selectedEvent().isValid());
        QCOMPARE(selected.count(), 1);
    }

    void clickPicksSubPixelSyncAndLinksIt() {
        TimelineWidget widget;
        widget.resize(1000, 400);
        widget.setSession(m_session);
        widget.zoomToFit(); // the 2 µs event sync is a fifth of a pixel
        QSignalSpy selected(&widget, &TimelineWidget::eventSelected);
        QPoint p = pointAt(widget, LaneKind::HostThread, 0, tiny::kShortSyncStart);
        p.rx() += 2;
        QTest::mouseClick(&widget, Qt::LeftButton, {}, p);
        QCOMPARE(selected.count(), 1);
        const model::EventRef sync = widget.selectedEvent();
        QCOMPARE(sync.kind, model::EventKind::Sync);
        QCOMPARE(sync.index, 1u);
        // Its link: the DtoH copy on stream 7, launched by cudaMemcpyAsync.
        QCOMPARE(widget.syncLink().work.kind, model::EventKind::Memcpy);
        QCOMPARE(eventName(*m_session, widget.syncLink().launch),
                 QStringLiteral("cudaMemcpyAsync"));
        // The link is painted: an arrow in the stall colour crosses between the lanes.
        const QImage image = render(widget);
        const QRect streamLane = widget.laneRect(widget.layout().find(LaneKind::Stream, 0));
        const int copyEndX = int(widget.xForTime(tiny::kSyncEnd - 10'000));
        int stallPixels = 0;
        for (int y = streamLane.top() - 40; y < streamLane.top(); ++y)
            for (int x = copyEndX - 60; x <= int(widget.xForTime(tiny::kShortSyncEnd)) + 2; ++x)
                stallPixels += qRed(image.pixel(x, y)) > 180 && qGreen(image.pixel(x, y)) < 110;
        QVERIFY2(stallPixels > 5, qPrintable(QString::number(stallPixels)));
    }

    void rangeSelectionOnTheRuler() {
        TimelineWidget widget;
        prepare(widget);
        QSignalSpy ranges(&widget, &TimelineWidget::rangeSelected);
        const int left = widget.canvasRect().left();
        const QPoint from(left + 100, TimelineWidget::kRulerHeight / 2);
        const QPoint to(left + 300, TimelineWidget::kRulerHeight / 2);
        const int64_t before = widget.viewport().visibleStartNs();
        QTest::mousePress(&widget, Qt::LeftButton, {}, from);
        QTest::mouseMove(&widget, QPoint(left + 200, from.y()));
        QTest::mouseMove(&widget, to);
        QTest::mouseRelease(&widget, Qt::LeftButton, {}, to);
        QCOMPARE(ranges.count(), 1);
        const qint64 start = ranges.at(0).at(0).toLongLong();
        const qint64 end = ranges.at(0).at(1).toLongLong();
        const int64_t pixel = int64_t(widget.viewport().nsPerPixel()) + 1;
        QVERIFY(std::abs(start - widget.timeForX(from.x())) <= pixel);
        QVERIFY(std::abs(end - widget.timeForX(to.x())) <= pixel);
        QVERIFY(widget.hasRangeSelection());
        QCOMPARE(widget.viewport().visibleStartNs(), before); // no pan while selecting
        // Dragging right to left gives the same ordered range.
        QTest::mousePress(&widget, Qt::LeftButton, {}, to);
        QTest::mouseMove(&widget, from);
        QTest::mouseRelease(&widget, Qt::LeftButton, {}, from);
        QCOMPARE(ranges.count(), 2);
        QVERIFY(ranges.at(1).at(0).toLongLong() < ranges.at(1).at(1).toLongLong());
        // A click on the ruler drops the range without a signal.
        QTest::mouseClick(&widget, Qt::LeftButton, {}, from);
        QCOMPARE(ranges.count(), 2);
        QVERIFY(!widget.hasRangeSelection());
    }

    void highlightDimsTheRest() {
        TimelineWidget widget;
        prepare(widget);
        const QImage plain = render(widget);
        QSignalSpy selected(&widget, &TimelineWidget::eventSelected);
        model::EventSpan span;
        span.first = {model::EventKind::Kernel, 0, 0,
                      2}; // kernels 2 and 3: 320..400 and 420..500 µs
        span.count = 2;
        widget.highlight({span});
        QVERIFY(widget.isHighlighting());
        QCOMPARE(selected.count(), 1);
        QCOMPARE(widget.selectedEvent().index, 2u);
        // Framed: the two kernels fill the view (with a margin).
        QVERIFY(widget.viewport().visibleStartNs() > tiny::kStart + 300'000);
        QVERIFY(widget.viewport().visibleEndNs() < tiny::kStart + 520'000);
        widget.setVisibleRange(tiny::kStart, tiny::kStart + 1'000'000);
        const QImage dimmed = render(widget);
        const QRect lane = widget.laneRect(widget.layout().find(LaneKind::Stream, 0));
        const int y = lane.top() + 4;
        const QRgb gemm = TimelinePalette::kernel("ampere_sgemm_128x64_nn");  // even kernels
        const int highlighted = int(widget.xForTime(tiny::kStart + 360'000)); // kernel 2
        const int other = int(widget.xForTime(tiny::kStart + 560'000));       // kernel 4
        QCOMPARE(plain.pixel(other, y), gemm);
        QCOMPARE(dimmed.pixel(highlighted, y), gemm);
        QVERIFY(dimmed.pixel(other, y) != gemm);
        QVERIFY(brightness(dimmed.pixel(other, y)) > brightness(gemm) + 150); // washed out
        // A host lane pixel is dimmed too.
        const QPoint call = pointAt(widget, LaneKind::HostThread, 0, tiny::kStart + 403'000);
        QVERIFY(brightness(dimmed.pixel(call)) > brightness(plain.pixel(call)));
        widget.clearHighlight();
        QVERIFY(!widget.isHighlighting());
        QCOMPARE(render(widget).pixel(other, y), gemm);
    }

    void hoverAndSelectionDoNotRebuildTheDrawList() {
        TimelineWidget widget;
        prepare(widget);
        render(widget);
        const int builds = widget.drawListBuilds();
        const QPoint kernel = pointAt(widget, LaneKind::Stream, 0, tiny::kStart + 150'000);
        QMouseEvent move(QEvent::MouseMove, QPointF(kernel), widget.mapToGlobal(QPointF(kernel)),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(&widget, &move);
        QVERIFY(widget.hoveredEvent().isValid());
        QCOMPARE(widget.hoveredEvent().kind, model::EventKind::Kernel);
        render(widget);
        QTest::mouseClick(&widget, Qt::LeftButton, {}, kernel);
        QVERIFY(widget.selectedEvent().isValid());
        render(widget);
        model::EventSpan span;
        span.first = model::EventRef::sync(0, 0);
        span.count = 2;
        widget.highlight({span});
        widget.setVisibleRange(tiny::kStart, tiny::kStart + 1'000'000); // back, one rebuild
        render(widget);
        QCOMPARE(widget.drawListBuilds(), builds + 1); // the viewport changed: one rebuild
    }

    void doubleClickAndFFrame() {
        TimelineWidget widget;
        prepare(widget);
        const QPoint kernel = pointAt(widget, LaneKind::Stream, 0, tiny::kStart + 150'000);
        QTest::mouseDClick(&widget, Qt::LeftButton, {}, kernel);
        // Kernel 0 (120..200 µs) framed with a 5 % margin.
        QVERIFY(std::abs(widget.viewport().visibleStartNs() - (tiny::kStart + 116'000)) < 500);
        QVERIFY(std::abs(widget.viewport().visibleEndNs() - (tiny::kStart + 204'000)) < 500);
        widget.zoomToFit();
        widget.setFocus();
        QTest::keyClick(&widget, Qt::Key_F);
        QVERIFY(std::abs(widget.viewport().visibleStartNs() - (tiny::kStart + 116'000)) < 500);
        QTest::keyClick(&widget, Qt::Key_Escape);
        QVERIFY(!widget.selectedEvent().isValid());
    }

    void fitActivitySkipsAnIdleStart() {
        // 6 s of import/CUDA init, then 1 s of GPU work: the default view starts at the work.
        // (The tail below the 5 % threshold is kept.)
        auto session = std::make_shared<model::Session>();
        session->strings = {"", "k"};
        model::StreamInfo stream;
        session->streams.push_back(stream);
        model::StreamLane lane;
        lane.streamIndex = 0;
        for (int i = 0; i < 100; ++i) {
            const int64_t t = 6'000'000'000 + int64_t(i) * 10'000'000;
            lane.kernels.pushInterval(t, t + 5'000'000, uint32_t(i));
            lane.kernels.nameId.push_back(1);
            lane.kernels.correlationId.push_back(0);
        }
        // A stray context-setup memset early on must not stretch the fit back to the start.
        lane.memsets.pushInterval(50'000'000, 50'010'000, 0);
        lane.memsets.correlationId.push_back(0);
        lane.memsets.bytes.push_back(64);
        lane.memsets.copyKind.push_back(0);
        lane.memsets.srcKind.push_back(0);
        lane.memsets.dstKind.push_back(3);
        session->streamLanes.push_back(std::move(lane));
        session->startNs = 0;
        session->endNs = 7'050'000'000;
        const auto [start, end] = TimelineWidget::activityRange(*session);
        QVERIFY(start > 5'900'000'000 && start <= 6'000'000'000);
        QCOMPARE(end, session->endNs); // a short idle tail is kept
        TimelineWidget widget;
        widget.resize(1000, 300);
        widget.setSession(session);
        QVERIFY(widget.viewport().visibleStartNs() > 5'900'000'000);
        widget.setFocus();
        QTest::keyClick(&widget, Qt::Key_0); // everything
        QCOMPARE(widget.viewport().visibleStartNs(), int64_t(0));
        QTest::keyClick(&widget, Qt::Key_Home); // activity again
        QVERIFY(widget.viewport().visibleStartNs() > 5'900'000'000);
        // The tiny session starts work at once: nothing is trimmed at the start.
        QCOMPARE(TimelineWidget::activityRange(*m_session).first, tiny::kStart);
    }

    void headerClickCollapsesAndDragReorders() {
        TimelineWidget widget;
        prepare(widget);
        const int thread = widget.layout().find(LaneKind::HostThread, 0);
        const QPoint header(60, widget.laneRect(thread).center().y());
        const int builds = widget.drawListBuilds();
        QTest::mouseClick(&widget, Qt::LeftButton, {}, header);
        QCOMPARE(widget.layout().lanes().size(), size_t(7));
        QVERIFY(widget.layout().lanes()[thread].collapsed);
        render(widget);
        QCOMPARE(widget.drawListBuilds(), builds + 1); // rows changed: rebuilt
        QTest::mouseClick(&widget, Qt::LeftButton, {}, header);
        QCOMPARE(widget.layout().lanes().size(), size_t(9));
        // Drag stream 13's header onto stream 7's.
        const QPoint s13(60,
                         widget.laneRect(widget.layout().find(LaneKind::Stream, 1)).center().y());
        const QPoint s7(60,
                        widget.laneRect(widget.layout().find(LaneKind::Stream, 0)).center().y());
        QTest::mousePress(&widget, Qt::LeftButton, {}, s13);
        QTest::mouseMove(&widget, s7);
        QTest::mouseRelease(&widget, Qt::LeftButton, {}, s7);
        QVERIFY(widget.layout().find(LaneKind::Stream, 1) <
                widget.layout().find(LaneKind::Stream, 0));
    }

    void toolTipText() {
        TimelineWidget widget;
        prepare(widget);
        const model::EventRef hit =
            widget.eventAt(pointAt(widget, LaneKind::Stream, 1, tiny::kStart + 500'000));
        QCOMPARE(hit.kind, model::EventKind::Memcpy);
        QCOMPARE(eventName(*m_session, hit), QStringLiteral("Memcpy HtoD"));
        QVERIFY(TimelineWidget::navigationHelp().contains(QStringLiteral("Home")));
        // A template name keeps the tooltip narrow: lines of at most 60 characters, broken after
        // "::", "," or "<", all of the name up to its 120th character, escaped.
        const QString name = QStringLiteral(
            "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, "
            "float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, "
            "2ul> >(int)");
        const QString shown = toolTipName(name);
        const QStringList lines = shown.split(QStringLiteral("<br>"));
        QVERIFY(lines.size() >= 2);
        for (const QString& line : lines)
            QVERIFY2(QTextDocumentFragment::fromHtml(line).toPlainText().size() <= 60,
                     qPrintable(line));
        QCOMPARE(QTextDocumentFragment::fromHtml(lines.join(QString())).toPlainText(),
                 name.left(119) + QChar(0x2026));
        QVERIFY(lines.front().endsWith(QStringLiteral("::")) ||
                lines.front().endsWith(QStringLiteral(",")) ||
                lines.front().endsWith(QStringLiteral("&lt;")));
        QCOMPARE(toolTipName(QStringLiteral("Memcpy HtoD")), QStringLiteral("Memcpy HtoD"));
    }
};

STALLSCOPE_TEST_MAIN(TimelineSelectionTest)
#include "tst_timeline_selection.moc"
