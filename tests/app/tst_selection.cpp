// One selection everywhere and the window's keys (issue 17, items 1 and 2), on the insight
// fixture in a full-size main window: a card, a sync clicked on the timeline, a sync-site row each
// move the source, stack, card, table and timeline together; an empty click on the timeline and
// Esc from any panel clear them all (the find box keeps its own Esc); W/A/S/D reach the timeline
// from other panels but not from a text field; the first-run overlay shows once.
#include "app/main_window.h"
#include "app/window_navigation.h"
#include "model/session/session.h"
#include "tests/support/test_suite.h"
#include "tests/views/insight_session.h"
#include "views/dialogs/getting_around_overlay.h"
#include "views/panels/analysis_panels.h"
#include "views/panels/event_details_widget.h"
#include "views/panels/find_box.h"
#include "views/panels/insight_card.h"
#include "views/panels/insight_cards_widget.h"
#include "views/panels/name_statistics.h"
#include "views/panels/source_editor.h"
#include "views/panels/source_view.h"
#include "views/panels/stack_model.h"
#include "views/panels/stack_view.h"
#include "views/panels/statistics_tables_widget.h"
#include "views/panels/sync_site_table_model.h"
#include "views/timeline/timeline_widget.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace stallscope;
using stallscope::app::MainWindow;
using stallscope::app::WindowNavigation;
using views::StatisticsTablesWidget;

class SelectionTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_run;

    // A desktop-sized window, active (the Esc shortcut and focus need it), with the fixture
    // open and analysed.
    bool openWindow(MainWindow& window) {
        window.resize(1400, 900);
        window.show();
        if (!QTest::qWaitForWindowActive(&window))
            return false;
        QSignalSpy analyzed(&window, &MainWindow::analysisFinished);
        window.openFile(m_run);
        return analyzed.wait(20000) || !analyzed.isEmpty();
    }
    static int findingAt(const MainWindow& window, const char* path) {
        const auto& cards = window.panels()->insightCards()->cards();
        for (size_t i = 0; i < cards.size(); ++i)
            if (cards[i]->insight().site.file == path)
                return int(i);
        return -1;
    }
    static void clickCard(MainWindow& window, int index) {
        views::InsightCardsWidget* cards = window.panels()->insightCards();
        views::InsightCard* card = cards->card(index);
        cards->ensureWidgetVisible(card);
        QTest::mouseClick(card, Qt::LeftButton, {}, QPoint(card->width() - 12, 10));
    }
    // The site the sync-sites table marks, or empty.
    static QString markedSite(const MainWindow& window) {
        StatisticsTablesWidget* tables = window.panels()->tables();
        const QModelIndex current =
            tables->table(StatisticsTablesWidget::SyncSitesTab)->selectionModel()->currentIndex();
        if (!current.isValid())
            return {};
        const auto* proxy = tables->proxy(StatisticsTablesWidget::SyncSitesTab);
        const model::SyncSiteStats* site =
            tables->syncSiteModel()->site(proxy->mapToSource(current).row());
        return QString::fromStdString(site->site.file) + QLatin1Char(':') +
               QString::number(site->site.line);
    }
    static QString site(const char* path, int line) {
        return QString::fromLatin1(path) + QLatin1Char(':') + QString::number(line);
    }
    // A click on `event` where the timeline draws it (framed first, so it is wide enough).
    static void clickEvent(views::TimelineWidget* timeline, const model::EventRef& event) {
        const model::Session& session = *timeline->session();
        const int64_t start = event.start(session);
        const int64_t end = event.end(session);
        timeline->setVisibleRange(start - (end - start), end + (end - start));
        const QPoint at(int(timeline->xForTime((start + end) / 2)),
                        timeline->laneRect(timeline->rowOf(event)).center().y());
        QCOMPARE(timeline->eventAt(at), event);
        QTest::mouseClick(timeline, Qt::LeftButton, {}, at);
    }
    // A point of the canvas below the lanes: no event there.
    static QPoint emptyPoint(const views::TimelineWidget* timeline) {
        const QRect canvas = timeline->canvasRect();
        return QPoint(canvas.center().x(), canvas.bottom() - 4);
    }
    static void verifyClearedEverywhere(const MainWindow& window) {
        views::AnalysisPanels* panels = window.panels();
        QVERIFY(panels->selection()->current().isEmpty());
        QVERIFY(!window.timelineWidget()->isHighlighting());
        QVERIFY(!window.timelineWidget()->selectedEvent().isValid());
        QCOMPARE(panels->insightCards()->selectedIndex(), -1);
        for (const views::InsightCard* card : panels->insightCards()->cards())
            QVERIFY(!card->isSelected());
        QCOMPARE(markedSite(window), QString());
        QCOMPARE(panels->stackView()->model()->rowCount(), 0);
        QVERIFY2(panels->details()->text().startsWith(QStringLiteral("Click an event")),
                 qPrintable(panels->details()->text()));
        QCOMPARE(window.statusLabel()->text(), QString());
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // never the user's settings
        QSettings().clear();
        // The overlay has its own test; elsewhere it stays away.
        QSettings().setValue(QLatin1String(WindowNavigation::kGettingAroundShownKey), true);
        QVERIFY(m_dir.isValid());
        m_run = m_dir.filePath(QStringLiteral("run.stallscope"));
        QString error;
        QVERIFY2(insight_session::write(m_run, &error), qPrintable(error));
    }

    // Card → source line, the first sync's stack, the timeline framed and highlighted, the
    // site's table row, the details in front; from a selection on another site.
    void cardMovesEveryPanel() {
        MainWindow window;
        QVERIFY(openWindow(window));
        views::AnalysisPanels* panels = window.panels();
        // Everything on model.py first (its sync-sites row), so each panel has to move.
        panels->selectSite(panels->tables()->syncSiteModel()->site(1)->site);
        QCOMPARE(panels->sourceView()->currentLine(), insight_session::kModelLine);
        QCOMPARE(panels->stackView()->model()->functionText(1), QStringLiteral("forward"));
        QCOMPARE(markedSite(window),
                 site(insight_session::kModelPath, insight_session::kModelLine));

        panels->tablesDock()->raise();
        const int train = findingAt(window, insight_session::kTrainPath);
        QVERIFY(train >= 0);
        clickCard(window, train);
        // (Read before the event loop runs: the after-fix replay's message follows.)
        QVERIFY2(window.statusLabel()->text().contains(QStringLiteral("10 event(s) highlighted")),
                 qPrintable(window.statusLabel()->text()));
        const model::Insight& insight = panels->insightCards()->card(train)->insight();
        QCOMPARE(panels->insightCards()->selectedIndex(), train);
        QCOMPARE(panels->sourceView()->currentFile(),
                 QString::fromLatin1(insight_session::kTrainPath));
        QCOMPARE(panels->sourceView()->currentLine(), insight_session::kTrainLine);
        QCOMPARE(panels->stackView()->model()->functionText(1), QStringLiteral("train_step"));
        views::TimelineWidget* timeline = window.timelineWidget();
        QCOMPARE(timeline->highlightedSpans(), *insight.events);
        const auto [first, last] = views::spanExtent(*window.session(), *insight.events);
        QVERIFY(timeline->viewport().visibleStartNs() <= first);
        QVERIFY(timeline->viewport().visibleEndNs() >= last);
        QCOMPARE(markedSite(window),
                 site(insight_session::kTrainPath, insight_session::kTrainLine));
        QTRY_VERIFY(panels->details()->isVisible());
        QVERIFY(panels->details()->text().contains(QStringLiteral("sync")));
    }

    // The chip of a card selects its finding too: the timeline and stack follow, not only the
    // source.
    void sourceChipSelectsItsFinding() {
        MainWindow window;
        QVERIFY(openWindow(window));
        views::AnalysisPanels* panels = window.panels();
        const int train = findingAt(window, insight_session::kTrainPath);
        views::InsightCard* card = panels->insightCards()->card(train);
        panels->insightCards()->ensureWidgetVisible(card);
        QTest::mouseClick(card->chip(), Qt::LeftButton);
        QCOMPARE(panels->insightCards()->selectedIndex(), train);
        QCOMPARE(window.timelineWidget()->highlightedSpans(), *card->insight().events);
        QCOMPARE(panels->stackView()->model()->functionText(1), QStringLiteral("train_step"));
        QTRY_VERIFY(panels->sourceView()->isVisible()); // the chip brings the source forward
        QCOMPARE(panels->sourceView()->currentLine(), insight_session::kTrainLine);
    }

    // A sync clicked on the timeline → its line, its stack, its site's card and row; the
    // previous finding's highlight goes. A sync inside the highlight keeps it.
    void syncClickMovesSourceStackAndCard() {
        MainWindow window;
        QVERIFY(openWindow(window));
        views::AnalysisPanels* panels = window.panels();
        views::TimelineWidget* timeline = window.timelineWidget();
        // model.py's syncs, then the train.py finding selected.
        panels->selectSite(panels->tables()->syncSiteModel()->site(1)->site);
        const model::EventRef modelSync = panels->highlightedEvents().back().last();
        const int train = findingAt(window, insight_session::kTrainPath);
        clickCard(window, train);
        const model::EventSpans trainSyncs = timeline->highlightedSpans();

        // A train.py sync other than the first: the highlight and the card stay.
        const model::EventRef third = trainSyncs.front().at(2);
        clickEvent(timeline, third);
        QCOMPARE(timeline->selectedEvent(), third);
        QCOMPARE(timeline->highlightedSpans(), trainSyncs);
        QCOMPARE(panels->insightCards()->selectedIndex(), train);

        clickEvent(timeline, modelSync);
        QCOMPARE(timeline->selectedEvent(), modelSync);
        QVERIFY(!timeline->isHighlighting());
        QCOMPARE(panels->sourceView()->currentFile(),
                 QString::fromLatin1(insight_session::kModelPath));
        QCOMPARE(panels->sourceView()->currentLine(), insight_session::kModelLine);
        QCOMPARE(panels->stackView()->model()->functionText(1), QStringLiteral("forward"));
        QCOMPARE(panels->insightCards()->selectedIndex(),
                 findingAt(window, insight_session::kModelPath));
        QVERIFY(!panels->insightCards()->card(train)->isSelected());
        QCOMPARE(markedSite(window),
                 site(insight_session::kModelPath, insight_session::kModelLine));

        // And back: a train.py sync selects the train.py card again.
        clickEvent(timeline, third);
        QCOMPARE(panels->insightCards()->selectedIndex(), train);
        QCOMPARE(panels->sourceView()->currentLine(), insight_session::kTrainLine);
        QCOMPARE(panels->stackView()->model()->functionText(1), QStringLiteral("train_step"));
    }

    // A kernel clicked on the timeline marks its row in the kernels table.
    void kernelClickMarksItsRow() {
        MainWindow window;
        QVERIFY(openWindow(window));
        views::TimelineWidget* timeline = window.timelineWidget();
        const model::EventRef kernel{model::EventKind::Kernel, 0, 0, 0};
        clickEvent(timeline, kernel);
        StatisticsTablesWidget* tables = window.panels()->tables();
        QCOMPARE(tables->tabs()->currentIndex(), int(StatisticsTablesWidget::KernelsTab));
        const QModelIndex row =
            tables->table(StatisticsTablesWidget::KernelsTab)->selectionModel()->currentIndex();
        QVERIFY(row.isValid());
        QCOMPARE(row.data().toString(), QString::fromStdString(kernel.name(*window.session())));
        QCOMPARE(window.panels()->stackView()->model()->rowCount(), 0); // a kernel has no sync
    }

    // The click that only focuses the timeline keeps the selection; the next empty click clears
    // every panel and the status bar.
    void emptyClickClearsEverywhere() {
        MainWindow window;
        QVERIFY(openWindow(window));
        views::TimelineWidget* timeline = window.timelineWidget();
        clickCard(window, findingAt(window, insight_session::kTrainPath));
        QVERIFY(timeline->isHighlighting());
        QVERIFY(!window.statusLabel()->text().isEmpty());
        window.panels()->insightCards()->setFocus();
        const QPoint empty = emptyPoint(timeline);
        QVERIFY(!timeline->eventAt(empty).isValid());

        QTest::mouseClick(timeline, Qt::LeftButton, {}, empty);
        QVERIFY(timeline->hasFocus());
        QVERIFY(timeline->isHighlighting());
        QCOMPARE(window.panels()->insightCards()->selectedIndex(),
                 findingAt(window, insight_session::kTrainPath));

        QTest::mouseClick(timeline, Qt::LeftButton, {}, empty);
        verifyClearedEverywhere(window);
    }

    // Esc from another panel (the stack's table, the statistics table, the source text) clears
    // the selection everywhere.
    void escapeFromAnyPanelClears_data() {
        QTest::addColumn<QString>("panel");
        QTest::newRow("stack") << QStringLiteral("stack");
        QTest::newRow("statistics table") << QStringLiteral("table");
        QTest::newRow("source") << QStringLiteral("source");
    }
    void escapeFromAnyPanelClears() {
        QFETCH(QString, panel);
        MainWindow window;
        QVERIFY(openWindow(window));
        views::AnalysisPanels* panels = window.panels();
        clickCard(window, findingAt(window, insight_session::kTrainPath));
        QVERIFY(window.timelineWidget()->isHighlighting());
        QWidget* target = panels->sourceView()->editor();
        if (panel == QStringLiteral("stack"))
            target = panels->stackView()->table();
        else if (panel == QStringLiteral("table"))
            target = panels->tables()->table(StatisticsTablesWidget::SyncSitesTab);
        QDockWidget* dock = panel == QStringLiteral("stack")   ? panels->stackDock()
                            : panel == QStringLiteral("table") ? panels->tablesDock()
                                                               : panels->sourceDock();
        dock->raise();
        QTRY_VERIFY(target->isVisible());
        target->setFocus();
        QTRY_VERIFY(target->hasFocus());
        QTest::keyClick(target, Qt::Key_Escape);
        verifyClearedEverywhere(window);
    }

    // In the find box Esc is the box's: it clears the text and the highlight, as it did.
    void escapeInFindBoxClearsTheSearch() {
        MainWindow window;
        QVERIFY(openWindow(window));
        views::FindBox* find = window.findBox();
        window.focusFindBox();
        QTest::keyClicks(find, QStringLiteral("SGEMM"));
        QTest::keyClick(find, Qt::Key_Return);
        QVERIFY(window.timelineWidget()->isHighlighting());
        QTest::keyClick(find, Qt::Key_Escape);
        QVERIFY(find->text().isEmpty());
        QVERIFY(!window.timelineWidget()->isHighlighting());
        QVERIFY(window.panels()->selection()->current().isEmpty());
    }

    // A menu closed with Esc leaves the menu bar waiting for a mnemonic: the next plain letter
    // goes back to the timeline (W zooms) and opens no menu (issue 42: F opened File, and W then
    // Compare With…).
    void keysAfterAMenuClosedWithEscape() {
        MainWindow window;
        QVERIFY(openWindow(window));
        views::TimelineWidget* timeline = window.timelineWidget();
        QMenuBar* bar = window.menuBar();
        QTest::keyClick(bar, Qt::Key_F, Qt::AltModifier);
        QTRY_VERIFY(QApplication::activePopupWidget());
        QTest::keyClick(QApplication::activePopupWidget(), Qt::Key_Escape);
        QTRY_VERIFY(!QApplication::activePopupWidget());
        const int64_t before =
            timeline->viewport().visibleEndNs() - timeline->viewport().visibleStartNs();
        QTest::keyClick(bar, Qt::Key_F);
        QVERIFY(!QApplication::activePopupWidget());
        QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : bar, Qt::Key_W);
        QVERIFY(!QApplication::activePopupWidget());
        QVERIFY(timeline->viewport().visibleEndNs() - timeline->viewport().visibleStartNs() <
                before);
    }

    // W/A/S/D with the focus in another panel move the timeline; typed into the find box they
    // are text.
    void timelineKeysFromOtherPanels() {
        MainWindow window;
        QVERIFY(openWindow(window));
        views::AnalysisPanels* panels = window.panels();
        views::TimelineWidget* timeline = window.timelineWidget();
        panels->stackDock()->raise();
        QWidget* stack = panels->stackView()->table();
        QTRY_VERIFY(stack->isVisible());
        stack->setFocus();
        QTRY_VERIFY(stack->hasFocus());
        const auto span = [&] {
            return timeline->viewport().visibleEndNs() - timeline->viewport().visibleStartNs();
        };
        const int64_t before = span();
        QTest::keyClick(stack, Qt::Key_W);
        QVERIFY2(span() < before, "W zooms in");
        QVERIFY(stack->hasFocus()); // the keys move the timeline, not the focus
        int64_t start = timeline->viewport().visibleStartNs();
        QTest::keyClick(stack, Qt::Key_D);
        QVERIFY(timeline->viewport().visibleStartNs() > start);
        start = timeline->viewport().visibleStartNs();
        QTest::keyClick(panels->sourceView()->editor(), Qt::Key_A);
        QVERIFY(timeline->viewport().visibleStartNs() < start);
        const int64_t zoomed = span();
        QTest::keyClick(stack, Qt::Key_S);
        QVERIFY(span() > zoomed);

        const int64_t startBefore = timeline->viewport().visibleStartNs();
        const int64_t spanBefore = span();
        window.focusFindBox();
        QTest::keyClicks(window.findBox(), QStringLiteral("wasd"));
        QCOMPARE(window.findBox()->text(), QStringLiteral("wasd"));
        QCOMPARE(timeline->viewport().visibleStartNs(), startBefore);
        QCOMPARE(span(), spanBefore);
    }

    void editsTextTellsFieldsApart() {
        QLineEdit line;
        QVERIFY(WindowNavigation::editsText(&line));
        line.setReadOnly(true);
        QVERIFY(!WindowNavigation::editsText(&line));
        views::SourceEditor editor; // read-only text: the keys are the timeline's
        QVERIFY(!WindowNavigation::editsText(&editor));
        QVERIFY(!WindowNavigation::editsText(nullptr));
    }

    // The overlay shows on the first run only; Help ▸ Getting Around brings it back; any key
    // or click hides it.
    void gettingAroundShowsOnce() {
        QSettings().remove(QLatin1String(WindowNavigation::kGettingAroundShownKey));
        {
            MainWindow first;
            first.show();
            QVERIFY(QTest::qWaitForWindowActive(&first));
            views::GettingAroundOverlay* overlay = first.navigation()->gettingAround();
            QVERIFY(overlay);
            QVERIFY(overlay->isVisible());
            QVERIFY(overlay->text().contains(QStringLiteral("Esc")));
            QVERIFY(overlay->text().contains(QStringLiteral("Ctrl+1")));
            QCOMPARE(overlay->geometry(), first.rect());
            QTest::keyClick(first.findBox(), Qt::Key_Space);
            QVERIFY(!first.navigation()->gettingAround());
        }
        QVERIFY(
            QSettings().value(QLatin1String(WindowNavigation::kGettingAroundShownKey)).toBool());
        MainWindow second;
        second.show();
        QVERIFY(QTest::qWaitForWindowActive(&second));
        QVERIFY(!second.navigation()->gettingAround());
        QAction* help = nullptr;
        for (QAction* action : second.findChildren<QAction*>())
            if (action->text() == QStringLiteral("&Getting Around"))
                help = action;
        QVERIFY(help);
        help->trigger();
        QVERIFY(second.navigation()->gettingAround());
        QTest::mouseClick(second.timelineWidget(), Qt::LeftButton);
        QVERIFY(!second.navigation()->gettingAround());
    }
};

STALLSCOPE_TEST_MAIN(SelectionTest)
#include "tst_selection.moc"
