// The main window's proportions (issue 17) at 1920×1080 and 1280×800: the timeline gets most of
// the window, the insight list the whole height of the left side (the bottom docks sit under the
// timeline only), the docks sized as shares of the window once it is shown; its title names a run
// folder.
#include "app/main_window.h"
#include "app/window_layout.h"
#include "tests/support/test_suite.h"
#include "views/panels/analysis_panels.h"
#include "views/panels/stack_model.h"
#include "views/panels/stack_view.h"
#include "views/timeline/timeline_widget.h"

#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

using namespace stallscope;

class WindowLayoutTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear(); // no saved layout: the proportions apply
    }

    void sharesOfTheWindow_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1920x1080") << QSize(1920, 1050);
        QTest::newRow("1280x800") << QSize(1280, 770);
    }

    void sharesOfTheWindow() {
        QFETCH(QSize, size);
        const app::DockSizes sizes = app::dockSizesFor(size);
        QVERIFY(sizes.insightsWidth >= 340 && sizes.insightsWidth <= 440);
        QVERIFY(size.width() - sizes.insightsWidth >= size.width() * 0.7); // the timeline's
        QVERIFY(sizes.bottomHeight >= 200 && sizes.bottomHeight <= size.height() / 3);
        QCOMPARE(sizes.sourceWidth + sizes.stackWidth, size.width() - sizes.insightsWidth);
        QVERIFY(sizes.sourceWidth > sizes.stackWidth);
    }

    void windowProportions_data() { sharesOfTheWindow_data(); }

    void windowProportions() {
        QFETCH(QSize, size);
        app::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const app::DockSizes sizes = app::dockSizesFor(window.size());
        QDockWidget* insights = window.panels()->insightsDock();
        QDockWidget* source = window.panels()->sourceDock();
        // Applied once shown (the first show's layout pass).
        QTRY_VERIFY2(std::abs(insights->width() - sizes.insightsWidth) <= 10,
                     qPrintable(QString::number(insights->width())));
        QTRY_VERIFY2(std::abs(source->height() - sizes.bottomHeight) <= 30,
                     qPrintable(QString::number(source->height())));
        // The insight list runs the whole height, beside the bottom docks, not above them.
        QCOMPARE(window.corner(Qt::BottomLeftCorner), Qt::LeftDockWidgetArea);
        QVERIFY(insights->geometry().bottom() > source->geometry().top());
        QVERIFY(source->geometry().left() >= insights->geometry().right());
        // The timeline keeps most of the window.
        const QWidget* timeline = window.centralWidget(); // the timeline once a session is open
        QVERIFY2(timeline->width() >= size.width() * 0.65,
                 qPrintable(QString::number(timeline->width())));
        QVERIFY2(timeline->height() >= size.height() * 0.45,
                 qPrintable(QString::number(timeline->height())));
    }

    // Issue 42: a run folder given as "sample-ddp/" titled the window " — Stallscope".
    void runFolderNamesTheWindow() {
        app::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.show();
        QSignalSpy loaded(&window, &app::MainWindow::sessionLoaded);
        window.openFile(QStringLiteral(STALLSCOPE_SOURCE_DIR "/resources/sample-ddp/"));
        QVERIFY(loaded.wait(20000));
        QCOMPARE(window.windowTitle(), QStringLiteral("sample-ddp — Stallscope"));
    }

    // The top finding's stack in its dock, tabbed in after the selection: it opens on the user's
    // frame (row 14 of 26 in the bundled sample), not on the library frames above it.
    void stackDockOpensOnTheUsersFrame() {
        app::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1500, 940);
        window.show();
        QSignalSpy analyzed(&window, &app::MainWindow::analysisFinished);
        window.openFile(QStringLiteral(STALLSCOPE_SOURCE_DIR "/resources/sample.stallscope"));
        QVERIFY(analyzed.wait(30000));
        window.panels()->activateInsight(0);
        window.panels()->stackDock()->raise();
        const views::StackView* stack = window.panels()->stackView();
        const QTableView* table = stack->table();
        int user = -1;
        for (int row = 0; row < table->model()->rowCount() && user < 0; ++row)
            if (table->model()->index(row, 0).data(views::StackModel::IsUserRole).toBool())
                user = row;
        QVERIFY(user > 8); // below the first screen of the dock
        QTRY_VERIFY(table->viewport()->rect().intersects(
            table->visualRect(table->model()->index(user, 0))));
    }
};

STALLSCOPE_TEST_MAIN(WindowLayoutTest)
#include "tst_main_window_layout.moc"
