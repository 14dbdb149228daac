// The timeline's use of the screen (issue 17): lanes that fill the pane or scroll, labels elided
// on the right with the full text as a tooltip, a label column dragged wider by its edge, a
// range badge that never covers a ruler label, the GPU-busy label saying what it measures.
#include "tests/support/test_suite.h"
#include "tests/views/tst_timeline_support.h"
#include "views/timeline/draw_list.h"
#include "views/timeline/timeline_widget.h"

#include <QApplication>
#include <QHelpEvent>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>

using namespace stallscope;
using namespace stallscope::views;

class TimelineSpaceTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const model::Session> m_session; // loaded by initTestCase

    static QScrollBar* scrollBar(TimelineWidget& widget) { return widget.findChild<QScrollBar*>(); }

private slots:
    void initTestCase() {
        m_session = tinyload::load(m_dir);
        QVERIFY(m_session);
    }

    void lanesFillThePaneOrScroll() {
        TimelineWidget widget;
        widget.setSession(m_session);
        const int natural = widget.layout().naturalHeight();
        // Room for more than the minimums: the lanes fill the canvas, nothing to scroll.
        widget.resize(1000, TimelineWidget::kRulerHeight + natural + 100);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QCOMPARE(widget.layout().contentHeight(), widget.canvasRect().height());
        QVERIFY(!scrollBar(widget)->isVisible());
        const int stream = widget.layout().find(LaneKind::Stream, 0);
        QVERIFY(widget.laneRect(stream).height() > TimelineLayout::kStreamHeight);
        QCOMPARE(widget.laneRect(stream).bottom() - widget.laneRect(stream).top() + 1,
                 widget.layout().lanes()[stream].height);
        // Less room: minimum heights, and the lanes scroll.
        widget.resize(1000, TimelineWidget::kRulerHeight + natural / 2);
        QTRY_VERIFY(scrollBar(widget)->isVisible());
        QCOMPARE(widget.layout().contentHeight(), natural);
        QCOMPARE(widget.laneRect(stream).height(), TimelineLayout::kStreamHeight);
        QCOMPARE(scrollBar(widget)->maximum(), natural - widget.canvasRect().height());
    }

    // Only the rows shown get blocks (a run of many ranks has more lanes than fit); scrolling to
    // others builds them, and a GPU-busy track still sums streams scrolled out of view.
    void lanesOutOfViewAreBuiltWhenScrolledTo() {
        TimelineWidget widget;
        widget.setSession(m_session);
        const int natural = widget.layout().naturalHeight();
        widget.resize(1000, TimelineWidget::kRulerHeight + natural / 2);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY(scrollBar(widget)->isVisible());
        const int thread = widget.layout().find(LaneKind::HostThread, 0);
        const int stream = widget.layout().find(LaneKind::Stream, 0);
        QVERIFY(!widget.laneRect(stream).intersects(widget.canvasRect()));
        QVERIFY(!widget.drawList().laneBlocks(thread).empty());
        QVERIFY(widget.drawList().laneBlocks(stream).empty());
        const int builds = widget.drawListBuilds();
        scrollBar(widget)->setValue(scrollBar(widget)->maximum());
        QVERIFY(widget.laneRect(stream).intersects(widget.canvasRect()));
        QVERIFY(!widget.drawList().laneBlocks(stream).empty());
        QCOMPARE(widget.drawListBuilds(), builds + 1);
        QVERIFY(widget.drawList().laneBlocks(thread).empty());

        const int busy = widget.layout().find(LaneKind::GpuBusy, 0);
        const TimelineLane& busyLane = widget.layout().lanes()[busy];
        const DrawList all = DrawList::build(*m_session, widget.layout(), widget.viewport());
        const DrawList busyOnly = DrawList::build(*m_session, widget.layout(), widget.viewport(),
                                                  busyLane.y, busyLane.y + busyLane.height);
        QVERIFY(busyOnly.laneBlocks(stream).empty());
        QVERIFY(all.busyShare(busy) > 0.0);
        QCOMPARE(busyOnly.busyShare(busy), all.busyShare(busy));
    }

    void longLabelsElideWithTheFullTextAsTooltip() {
        TimelineWidget widget;
        widget.resize(1000, 400);
        widget.setSession(m_session);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        const int device = widget.layout().find(LaneKind::DeviceHeader, 0);
        const QString full = QStringLiteral("GPU 0 · ") + QString::fromLatin1(tiny::kGpu);
        QCOMPARE(widget.laneLabelFull(device), full);
        // The column is fitted to the labels: the GPU's name shows whole.
        QCOMPARE(widget.laneLabelShown(device), full);
        // A narrow column elides on the right, the start of the label stays.
        widget.setLabelColumnWidth(TimelineWidget::kMinLabelWidth);
        const QString shown = widget.laneLabelShown(device);
        QVERIFY2(shown.endsWith(QStringLiteral("…")), qPrintable(shown));
        QVERIFY2(shown.startsWith(QStringLiteral("GPU 0")), qPrintable(shown));
        QVERIFY(shown.size() < full.size());
        // Hovering the label shows it whole.
        const QPoint at(20, widget.laneRect(device).center().y());
        QHelpEvent help(QEvent::ToolTip, at, widget.mapToGlobal(at));
        QApplication::sendEvent(&widget, &help);
        QTRY_COMPARE(QToolTip::text(), full);
        QToolTip::hideText();
    }

    void busyLabelSaysItIsTheView() {
        TimelineWidget widget;
        widget.resize(1000, 400);
        widget.setSession(m_session);
        widget.drawList();
        const int busy = widget.layout().find(LaneKind::GpuBusy, 0);
        const QString label = widget.laneLabelFull(busy);
        QVERIFY2(label.contains(QStringLiteral("(view)")), qPrintable(label));
        QVERIFY2(label.endsWith(QStringLiteral(" %")), qPrintable(label));
        QCOMPARE(widget.laneLabelShown(busy), label); // fitted: not elided
    }

    void dragTheLabelColumnEdge() {
        TimelineWidget widget;
        widget.resize(1200, 400);
        widget.setSession(m_session);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        const int before = widget.labelColumnWidth();
        QCOMPARE(widget.canvasRect().left(), before);
        QSignalSpy changed(&widget, &TimelineWidget::labelColumnWidthChanged);
        const int y = widget.laneRect(1).center().y();
        QTest::mousePress(&widget, Qt::LeftButton, {}, QPoint(before, y));
        QTest::mouseMove(&widget, QPoint(before + 40, y));
        QTest::mouseMove(&widget, QPoint(before + 90, y));
        QTest::mouseRelease(&widget, Qt::LeftButton, {}, QPoint(before + 90, y));
        QTRY_COMPARE(widget.labelColumnWidth(), before + 90);
        QVERIFY(changed.count() >= 1);
        QCOMPARE(changed.last().at(0).toInt(), before + 90);
        QCOMPARE(widget.canvasRect().left(), before + 90);
        QCOMPARE(widget.viewport().width(), widget.canvasRect().width());
        // Not a lane drag or a collapse: the lanes are as they were.
        QCOMPARE(widget.layout().lanes().size(), size_t(9));
        // Remembered when another session opens.
        widget.setSession(m_session);
        QCOMPARE(widget.labelColumnWidth(), before + 90);
        // Never so narrow that labels vanish, nor wider than half the widget.
        widget.setLabelColumnWidth(10);
        QCOMPARE(widget.labelColumnWidth(), TimelineWidget::kMinLabelWidth);
        widget.setLabelColumnWidth(5000);
        QCOMPARE(widget.labelColumnWidth(), widget.width() / 2);
    }

    void rangeBadgeLeavesRulerLabelsUncovered() {
        TimelineWidget widget;
        widget.resize(1200, 300);
        widget.setSession(m_session);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        const std::vector<QRect> labels = widget.rulerLabelRects();
        QVERIFY(labels.size() >= 4);
        QVERIFY(!widget.rangeBadgeRect().isValid());
        // A range centred on a label: its badge lands on that label.
        const QRect target = labels[labels.size() / 2];
        const int x = target.center().x();
        widget.selectRange(widget.timeForX(x - 120), widget.timeForX(x + 120));
        const QRect badge = widget.rangeBadgeRect();
        QVERIFY(badge.isValid());
        QVERIFY(badge.intersects(target));
        const std::vector<QRect> shown = widget.rulerLabelRects();
        QVERIFY(shown.size() < labels.size()); // the covered one left out, the others stay
        QVERIFY(shown.size() + 2 >= labels.size());
        for (const QRect& label : shown)
            QVERIFY2(!label.intersects(badge),
                     qPrintable(QStringLiteral("label at %1..%2, badge at %3..%4")
                                    .arg(label.left())
                                    .arg(label.right())
                                    .arg(badge.left())
                                    .arg(badge.right())));
        widget.clearSelection();
        QCOMPARE(widget.rulerLabelRects().size(), labels.size());
    }
};

STALLSCOPE_TEST_MAIN(TimelineSpaceTest)
#include "tst_timeline_space.moc"
