// MainWindow: opening a session (title, summary, lanes), bad files (error shown, no crash, no
// modal hang), drag & drop of a file URL, cancelling; the analysis docks (cards → timeline,
// chip → source, stack frame → source, gutter → syncs, tables → timeline, the remap prompt),
// the find box, recent files, the remembered layout and the shortcuts dialog.
#include "app/main_window.h"
#include "model/analysis/analysis_window.h"
#include "model/jobs/job_tracker.h"
#include "model/session/session.h"
#include "tests/support/test_suite.h"
#include "tests/support/write_file.h"
#include "tests/views/insight_session.h"
#include "tests/views/tiny_session.h"
#include "views/dialogs/path_remap_dialog.h"
#include "views/dialogs/shortcuts_dialog.h"
#include "views/panels/analysis_panels.h"
#include "views/panels/find_box.h"
#include "views/panels/insight_card.h"
#include "views/panels/insight_cards_widget.h"
#include "views/panels/kernel_table_model.h"
#include "views/panels/name_statistics.h"
#include "views/panels/session_summary_widget.h"
#include "views/panels/source_editor.h"
#include "views/panels/source_view.h"
#include "views/panels/stack_model.h"
#include "views/panels/stack_view.h"
#include "views/panels/statistics_tables_widget.h"
#include "views/timeline/timeline_widget.h"

#include <QAction>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QToolButton>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QScreen>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using namespace stallscope;
using stallscope::app::MainWindow;

class MainWindowTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_valid;
    QString m_insightRun;

    // Opens the insight fixture and waits for its analysis.
    static bool openAndAnalyze(MainWindow& window, const QString& path) {
        QSignalSpy analyzed(&window, &MainWindow::analysisFinished);
        if (openAndWait(window, path) != QStringLiteral("loaded"))
            return false;
        return analyzed.wait(20000) || !analyzed.isEmpty();
    }
    // Shows the window at a desktop size (the docks lay out as a user sees them: cards, tables and
    // source are clickable), waits until it is on screen, then opens and analyzes `path`.
    static bool showFullSizeAndAnalyze(MainWindow& window, const QString& path) {
        window.resize(1400, 900);
        window.show();
        return QTest::qWaitForWindowExposed(&window) && openAndAnalyze(window, path);
    }
    static int cardOf(const views::InsightCardsWidget* cards, model::InsightRule rule) {
        for (size_t i = 0; i < cards->cards().size(); ++i)
            if (cards->cards()[i]->insight().rule == rule)
                return int(i);
        return -1;
    }

    // Opens path and waits for the outcome; returns "loaded", "failed" or "timeout".
    static QString openAndWait(MainWindow& window, const QString& path) {
        QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        window.openFile(path);
        if (!QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, 10000))
            return QStringLiteral("timeout");
        return loaded.isEmpty() ? QStringLiteral("failed") : QStringLiteral("loaded");
    }

private slots:
    void initTestCase() {
        // Recent files, layouts and remap rules go to a throwaway settings location.
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_insightRun = m_dir.filePath(QStringLiteral("insight run.stallscope"));
        QString insightError;
        QVERIFY2(insight_session::write(m_insightRun, &insightError), qPrintable(insightError));
        m_valid = m_dir.filePath(QStringLiteral("tiny run.stallscope"));
        QString error;
        QVERIFY2(tiny::write(m_valid, &error), qPrintable(error));
    }

    void startsEmpty() {
        MainWindow window;
        QCOMPARE(window.windowTitle(), QStringLiteral("Stallscope"));
        QVERIFY(!window.session());
        QVERIFY(window.acceptDrops());
        // Sized to the screen it opens on (85 % of the space there, or what its docks need at
        // least), not a fixed 1400 x 900.
        const QSize available = window.screen()->availableGeometry().size();
        QCOMPARE(window.size(), (available * 0.85).expandedTo(window.minimumSizeHint()));
    }

    void opensValidSession() {
        MainWindow window;
        window.show();
        QCOMPARE(openAndWait(window, m_valid), QStringLiteral("loaded"));
        QCOMPARE(window.windowTitle(), QStringLiteral("tiny run.stallscope — Stallscope"));
        QCOMPARE(window.currentFile(), m_valid);
        QVERIFY(window.session());
        QVERIFY(!window.isLoading());
        QVERIFY(window.lastError().isEmpty());
        const QString summary = window.summaryWidget()->text();
        QVERIFY2(summary.contains(QString::fromLatin1(tiny::kCommand)), qPrintable(summary));
        QVERIFY2(summary.contains(QString::fromLatin1(tiny::kGpu)), qPrintable(summary));
        QVERIFY(window.summaryWidget()->isVisible());
        QVERIFY(window.timelineWidget()->isVisible());
        QCOMPARE(window.timelineWidget()->session(), window.session());
        QVERIFY(window.timelineWidget()->layout().lanes().size() >= 5);
        QVERIFY(!window.errorDialog());
    }

    // File ▸ Export Chrome Trace: enabled once a session is open; writes JSON Perfetto opens.
    void exportsChromeTrace() {
        MainWindow window;
        window.setErrorDialogsEnabled(false);
        QAction* exportAction = nullptr;
        for (QAction* action : window.findChildren<QAction*>())
            if (action->text().contains(QStringLiteral("Export Chrome Trace")))
                exportAction = action;
        QVERIFY(exportAction);
        QVERIFY(!exportAction->isEnabled());
        QCOMPARE(openAndWait(window, m_valid), QStringLiteral("loaded"));
        QVERIFY(exportAction->isEnabled());
        const QString out = m_dir.filePath(QStringLiteral("exported.json"));
        QSignalSpy exported(&window, &MainWindow::chromeTraceExported);
        window.exportChromeTrace(out);
        QVERIFY(exported.wait(20000));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
        QVERIFY(root.value(QStringLiteral("traceEvents")).toArray().size() > 10);
        // An unwritable target reports the error instead of failing silently.
        QSignalSpy failed(&window, &MainWindow::chromeTraceExportFailed);
        window.exportChromeTrace(QStringLiteral("/nonexistent-dir/out.json"));
        QVERIFY(failed.wait(20000));
        QVERIFY2(
            failed.at(0).at(0).toString().contains(QStringLiteral("/nonexistent-dir/out.json")),
            qPrintable(failed.at(0).at(0).toString()));
        // Even a confirmed save dialog never replaces the open session.
        const QByteArray session = stallscope::testing::readFile(m_valid);
        window.exportChromeTrace(m_valid);
        QVERIFY(failed.wait(20000));
        QVERIFY2(failed.at(1).at(0).toString().contains(QStringLiteral(": is the input ")),
                 qPrintable(failed.at(1).at(0).toString()));
        QCOMPARE(stallscope::testing::readFile(m_valid), session);
    }

    // File ▸ Export Report: enabled once the analysis finished; writes a PDF.
    void exportsReport() {
        MainWindow window;
        window.setErrorDialogsEnabled(false);
        QSignalSpy analyzed(&window, &MainWindow::analysisFinished);
        QCOMPARE(openAndWait(window, m_insightRun), QStringLiteral("loaded"));
        QVERIFY(analyzed.wait(20000) || !analyzed.isEmpty());
        const QString out = m_dir.filePath(QStringLiteral("report.pdf"));
        QVERIFY(window.exportReport(out));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray pdf = file.readAll();
        QVERIFY(pdf.startsWith("%PDF-"));
        QVERIFY(pdf.count("/Type /Page\n") >= 1); // one object per page
        QVERIFY(!window.exportReport(QStringLiteral("/nonexistent-dir/report.pdf")));
        QVERIFY(window.lastError().isEmpty()); // an export error is not a load error
        const QByteArray session = stallscope::testing::readFile(m_insightRun);
        QVERIFY(!window.exportReport(m_insightRun));
        QCOMPARE(stallscope::testing::readFile(m_insightRun), session);
    }

    void badFileShowsError_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("zero bytes") << QStringLiteral("empty.stallscope") << QByteArray();
        QTest::newRow("not SQLite")
            << QStringLiteral("notes.stallscope")
            << QByteArray("this is a text file, not a session\n").repeated(200);
        QTest::newRow("truncated header")
            << QStringLiteral("truncated.stallscope") << QByteArray("SQLite format 3\0", 16);
    }
    void badFileShowsError() {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        const QString path = testing::writeFile(m_dir, name, bytes);
        QVERIFY(!path.isEmpty());
        MainWindow window;
        window.show();
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        QCOMPARE(openAndWait(window, path), QStringLiteral("failed"));
        QCOMPARE(failed.size(), 1);
        const QString error = failed.front().front().toString();
        QVERIFY2(error.contains(name), qPrintable(error)); // names the file
        QCOMPARE(window.lastError(), error);
        QVERIFY(!window.session());
        QCOMPARE(window.windowTitle(), QStringLiteral("Stallscope"));
        // The dialog is up but did not block us; it says the same and closes.
        QMessageBox* box = window.errorDialog();
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QVERIFY(box->text().contains(name));
        box->accept();
        QTRY_VERIFY(!window.errorDialog());
    }

    void missingFileShowsError() {
        MainWindow window;
        window.setErrorDialogsEnabled(false);
        const QString path = m_dir.filePath(QStringLiteral("nowhere.stallscope"));
        QCOMPARE(openAndWait(window, path), QStringLiteral("failed"));
        QVERIFY(window.lastError().contains(QStringLiteral("nowhere.stallscope")));
        QVERIFY(!window.errorDialog());
    }

    void errorKeepsPreviousSession() {
        MainWindow window;
        window.setErrorDialogsEnabled(false);
        QCOMPARE(openAndWait(window, m_valid), QStringLiteral("loaded"));
        const auto session = window.session();
        const QString zero = testing::writeFile(m_dir, QStringLiteral("zero.stallscope"), {});
        QVERIFY(!zero.isEmpty());
        QCOMPARE(openAndWait(window, zero), QStringLiteral("failed"));
        QCOMPARE(window.session(), session);
        QCOMPARE(window.windowTitle(), QStringLiteral("tiny run.stallscope — Stallscope"));
    }

    void dropOpensFile() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(m_valid)});
        const QPoint at = window.rect().center();
        QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
        QDropEvent drop(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QVERIFY(drop.isAccepted());
        QVERIFY(loaded.wait(10000));
        QCOMPARE(loaded.front().front().toString(), m_valid);
        QCOMPARE(window.windowTitle(), QStringLiteral("tiny run.stallscope — Stallscope"));
    }

    void dropRejectsNonFiles() {
        QMimeData text;
        text.setText(QStringLiteral("hello"));
        QVERIFY(MainWindow::droppedFile(&text).isEmpty());
        QMimeData remote;
        remote.setUrls({QUrl(QStringLiteral("https://example.com/run.stallscope"))});
        QVERIFY(MainWindow::droppedFile(&remote).isEmpty());
        QMimeData two;
        two.setUrls({QUrl::fromLocalFile(m_valid), QUrl::fromLocalFile(m_valid)});
        QVERIFY(MainWindow::droppedFile(&two).isEmpty());
        MainWindow window;
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton,
                              Qt::NoModifier);
        enter.setAccepted(false);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(!enter.isAccepted());
    }

    void cancelAndReopen() {
        MainWindow window;
        QSignalSpy cancelled(&window, &MainWindow::loadCancelled);
        QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
        window.openFile(m_valid);
        auto* loads = window.findChild<model::JobTracker*>(QStringLiteral("loads"));
        QVERIFY(loads);
        window.cancelLoad();
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!window.isLoading());
        // Once the cancelled task has ended, whatever it posted is in the queue: deliver it, and
        // it must not land.
        loads->waitForDone();
        QCoreApplication::sendPostedEvents();
        QCOMPARE(loaded.size(), 0);
        QCOMPARE(openAndWait(window, m_valid), QStringLiteral("loaded"));
        // The cancelled load's result was dropped (test_job_tracker proves it never arrives).
        QCOMPARE(loaded.size(), 1);
        QCOMPARE(cancelled.size(), 1);
    }

    void fileMenu() {
        MainWindow window;
        QStringList actions;
        for (QAction* action : window.findChildren<QAction*>())
            if (!action->shortcut().isEmpty())
                actions << action->shortcut().toString();
        QVERIFY2(actions.contains(QKeySequence(QKeySequence::Open).toString()),
                 qPrintable(actions.join(',')));
        QVERIFY2(actions.contains(QStringLiteral("Ctrl+Q")), qPrintable(actions.join(',')));
    }

    void insightCardsAfterLoad() {
        MainWindow window;
        window.show();
        QVERIFY(openAndAnalyze(window, m_insightRun));
        views::AnalysisPanels* panels = window.panels();
        QVERIFY(panels->report());
        views::InsightCardsWidget* cards = panels->insightCards();
        QVERIFY(!cards->cards().empty());
        QVERIFY(cards->summaryText().startsWith(QStringLiteral("Wall time")));
        // Ordered by savings, the in-loop sync at train.py:48 on top.
        for (size_t i = 1; i < cards->cards().size(); ++i)
            QVERIFY(cards->card(int(i) - 1)->insight().savingsNs >=
                    cards->card(int(i))->insight().savingsNs);
        const int loop = cardOf(cards, model::InsightRule::InLoopSync);
        QVERIFY(loop >= 0);
        QCOMPARE(cards->card(loop)->chipText(), QStringLiteral("train.py:48 · train_step"));
        QVERIFY(panels->insightsDock()->isVisible());
    }

    // Analyze Selected Range: insights over the selection (the summary names it); Analyze the Loop.
    void analyzeSelectedRange() {
        MainWindow window;
        window.show();
        QVERIFY(openAndAnalyze(window, m_insightRun));
        QAction* range = nullptr;
        QAction* defaultWindow = nullptr;
        for (QAction* action : window.findChildren<QAction*>()) {
            if (action->text() == QStringLiteral("Analyze &Selected Range"))
                range = action;
            if (action->text() == QStringLiteral("Analyze the &Loop (Default Window)"))
                defaultWindow = action;
        }
        QVERIFY(range && defaultWindow);
        const std::string defaultLabel = model::defaultWindow(*window.session()).label;
        QVERIFY(!range->isEnabled());
        const model::Session& session = *window.session();
        const int64_t quarter = session.durationNs() / 4;
        window.timelineWidget()->selectRange(session.startNs + quarter,
                                             session.startNs + 2 * quarter);
        QVERIFY(range->isEnabled());
        QSignalSpy analyzed(&window, &MainWindow::analysisFinished);
        range->trigger();
        QVERIFY(analyzed.wait(20000));
        const model::SessionStatistics& summary = window.panels()->report()->summary;
        QCOMPARE(summary.windowStartNs, session.startNs + quarter);
        QCOMPARE(summary.windowEndNs, session.startNs + 2 * quarter);
        QCOMPARE(summary.startupNs, quarter);
        QCOMPARE(summary.windowLabel, std::string("selected range"));
        const auto* card =
            window.panels()->insightCards()->findChild<QLabel*>(QStringLiteral("summaryCard"));
        QVERIFY(card);
        QVERIFY2(card->text().contains(QStringLiteral("Window: selected range")),
                 qPrintable(card->text()));

        window.timelineWidget()->clearSelection();
        QVERIFY(!range->isEnabled());
        defaultWindow->trigger();
        QVERIFY(analyzed.wait(20000));
        QCOMPARE(window.panels()->report()->summary.windowLabel, defaultLabel);
    }

    void clickingCardHighlightsItsEvents() {
        MainWindow window;
        QVERIFY(showFullSizeAndAnalyze(window, m_insightRun));
        views::InsightCardsWidget* cards = window.panels()->insightCards();
        const int index = cardOf(cards, model::InsightRule::InLoopSync);
        views::InsightCard* card = cards->card(index);
        cards->ensureWidgetVisible(card);
        QTest::mouseClick(card, Qt::LeftButton, {}, QPoint(card->width() - 12, 10));
        const model::EventSpans& expected = *card->insight().events;
        QCOMPARE(model::eventCount(expected), int64_t(insight_session::kSteps));
        QVERIFY(window.timelineWidget()->isHighlighting());
        QCOMPARE(window.timelineWidget()->highlightedSpans(), expected);
        QCOMPARE(window.panels()->highlightedEvents(), expected);
        // The events are framed: the first and the last sync lie in the visible range.
        const auto [first, last] = views::spanExtent(*window.session(), expected);
        QVERIFY(window.timelineWidget()->viewport().visibleStartNs() <= first);
        QVERIFY(window.timelineWidget()->viewport().visibleEndNs() >= last);
        // The stack view shows the first sync's stack: driver, train_step, train.
        views::StackView* stack = window.panels()->stackView();
        QCOMPARE(stack->model()->rowCount(), 3);
        QCOMPARE(stack->model()->functionText(1), QStringLiteral("train_step"));
        QVERIFY2(stack->caption().contains(QStringLiteral("Stream sync")),
                 qPrintable(stack->caption()));
    }

    void chipOpensSourceAndFramesNavigate() {
        MainWindow window;
        QVERIFY(showFullSizeAndAnalyze(window, m_insightRun));
        views::AnalysisPanels* panels = window.panels();
        views::InsightCardsWidget* cards = panels->insightCards();
        views::InsightCard* card = cards->card(cardOf(cards, model::InsightRule::InLoopSync));
        cards->ensureWidgetVisible(card);
        QTest::mouseClick(card->chip(), Qt::LeftButton);
        views::SourceView* source = panels->sourceView();
        QVERIFY(panels->sourceDock()->isVisible());
        QVERIFY(!source->isSourceMissing());
        QCOMPARE(source->currentFile(), QString::fromLatin1(insight_session::kTrainPath));
        QCOMPARE(source->currentLine(), insight_session::kTrainLine);
        QCOMPARE(source->selectedLineText(), QString::fromLatin1(insight_session::kSyncLineText));
        QCOMPARE(source->editor()->lineMarks().at(insight_session::kTrainLine).calls,
                 int64_t(insight_session::kSteps));

        // Gutter mark → the line's syncs on the timeline.
        window.timelineWidget()->clearHighlight();
        const QRect mark = source->editor()->gutterLineRect(insight_session::kTrainLine);
        QVERIFY(!mark.isEmpty());
        QTest::mouseClick(source->editor()->gutter(), Qt::LeftButton, {}, mark.center());
        QCOMPARE(model::eventCount(window.timelineWidget()->highlightedSpans()),
                 int64_t(insight_session::kSteps));

        // A stack frame click navigates: the caller's line.
        QTest::mouseClick(card, Qt::LeftButton, {}, QPoint(card->width() - 12, 10));
        QTableView* table = panels->stackView()->table();
        panels->stackDock()->raise();
        QTRY_VERIFY(table->isVisible());
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualRect(table->model()->index(2, 1)).center());
        QCOMPARE(source->currentLine(), insight_session::kCallerLine);
        QVERIFY(source->selectedLineText().contains(QStringLiteral("train_step(model")));
    }

    void missingSourcePromptsAndRemapLoads() {
        MainWindow window;
        window.show();
        QVERIFY(openAndAnalyze(window, m_insightRun));
        views::AnalysisPanels* panels = window.panels();
        views::SourceView* source = panels->sourceView();
        QVERIFY(!panels->openSource(QString::fromLatin1(insight_session::kModelPath),
                                    insight_session::kModelLine));
        QVERIFY(source->isSourceMissing());
        QVERIFY(source->remapButton()->isVisible());
        QTest::mouseClick(source->remapButton(), Qt::LeftButton);
        views::PathRemapDialog* dialog = panels->pathRemapDialog();
        QVERIFY(dialog); // open, and this test still runs: not a nested modal loop
        // Pre-filled with the recorded directory; point it at a local checkout.
        const QString local = insight_session::writeCheckout(m_dir);
        QVERIFY(!local.isEmpty());
        QTableWidget* rules = dialog->table();
        QCOMPARE(rules->item(rules->rowCount() - 1, 0)->text(),
                 QString::fromLatin1(insight_session::kRecordedDir));
        rules->item(rules->rowCount() - 1, 1)->setText(local);
        dialog->accept();
        QVERIFY(!source->isSourceMissing());
        QCOMPARE(source->selectedLineText(), QString::fromLatin1(insight_session::kModelLineText));
        // Saved for the next run.
        QSettings settings;
        const auto saved = views::PathRemapDialog::loadRules(settings);
        QCOMPARE(int(saved.size()), 1);
        QCOMPARE(QString::fromStdString(saved[0].to), local);
        views::PathRemapDialog::saveRules(settings, {});
    }

    // Ctrl+4/5 name the Statistics and Details panels, tabs of one dock area: a press brings its
    // panel forward, a second leaves it there (it used to hide it), a closed panel comes back.
    void panelShortcutsBringPanelsForward() {
        MainWindow window;
        QVERIFY(showFullSizeAndAnalyze(window, m_insightRun));
        QDockWidget* details = window.panels()->detailsDock();
        QDockWidget* tables = window.panels()->tablesDock();
        tables->raise();
        QTRY_VERIFY(tables->widget()->isVisible());
        for (int press = 0; press < 2; ++press) {
            QTest::keyClick(&window, Qt::Key_5, Qt::ControlModifier);
            QTRY_VERIFY(details->widget()->isVisible());
        }
        QTest::keyClick(&window, Qt::Key_4, Qt::ControlModifier);
        QTRY_VERIFY(tables->widget()->isVisible());
        details->close();
        QVERIFY(details->isHidden());
        QTest::keyClick(&window, Qt::Key_5, Qt::ControlModifier);
        QTRY_VERIFY(details->widget()->isVisible());
    }

    void tableRowHighlightsEvents() {
        MainWindow window;
        QVERIFY(showFullSizeAndAnalyze(window, m_insightRun));
        views::StatisticsTablesWidget* tables = window.panels()->tables();
        window.panels()->tablesDock()->raise();
        tables->tabs()->setCurrentIndex(views::StatisticsTablesWidget::KernelsTab);
        QTableView* table = tables->table(views::StatisticsTablesWidget::KernelsTab);
        QTRY_VERIFY(table->isVisible());
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualRect(table->model()->index(0, 0)).center());
        QCOMPARE(model::eventCount(window.timelineWidget()->highlightedSpans()),
                 int64_t(insight_session::kSteps * insight_session::kLaunchesPerStep / 2));
        // Sync sites: the model.py site is below the top insights' site, and still maps.
        tables->tabs()->setCurrentIndex(views::StatisticsTablesWidget::SyncSitesTab);
        QTableView* sites = tables->table(views::StatisticsTablesWidget::SyncSitesTab);
        QTRY_VERIFY(sites->isVisible());
        QCOMPARE(sites->model()->rowCount(), 2);
        QTest::mouseClick(sites->viewport(), Qt::LeftButton, {},
                          sites->visualRect(sites->model()->index(1, 0)).center());
        QCOMPARE(model::eventCount(window.timelineWidget()->highlightedSpans()),
                 int64_t((insight_session::kSteps + 2) / 3));
    }

    void findBoxHighlightsMatches() {
        MainWindow window;
        window.show();
        QVERIFY(openAndAnalyze(window, m_insightRun));
        views::FindBox* find = window.findBox();
        window.focusFindBox();
        QTest::keyClicks(find, QStringLiteral("SGEMM"));
        QTest::keyClick(find, Qt::Key_Return);
        QCOMPARE(model::eventCount(window.timelineWidget()->highlightedSpans()),
                 int64_t(insight_session::kSteps * insight_session::kLaunchesPerStep / 2));
        // A source function name finds its syncs.
        find->clear();
        QTest::keyClicks(find, QStringLiteral("train_step"));
        QTest::keyClick(find, Qt::Key_Return);
        QCOMPARE(model::eventCount(window.timelineWidget()->highlightedSpans()),
                 int64_t(insight_session::kSteps));
        QTest::keyClick(find, Qt::Key_Escape);
        QVERIFY(find->text().isEmpty());
        QVERIFY(!window.timelineWidget()->isHighlighting());
        QCOMPARE(window.panels()->findEvents(QStringLiteral("no such kernel")), int64_t(0));
    }

    void recentFilesMenu() {
        QSettings().remove(QStringLiteral("recentFiles"));
        MainWindow window;
        window.setErrorDialogsEnabled(false);
        QVERIFY(!window.recentMenu()->isEnabled());
        QCOMPARE(openAndWait(window, m_valid), QStringLiteral("loaded"));
        QCOMPARE(openAndWait(window, m_insightRun), QStringLiteral("loaded"));
        QCOMPARE(window.recentFiles().size(), 2);
        QCOMPARE(window.recentFiles().front(), QFileInfo(m_insightRun).absoluteFilePath());
        QVERIFY(window.recentMenu()->isEnabled());
        const QList<QAction*> actions = window.recentMenu()->actions();
        QVERIFY(actions.front()->text().contains(QStringLiteral("insight run.stallscope")));
        // Choosing the second entry opens it.
        QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
        actions.at(1)->trigger();
        QVERIFY(loaded.wait(10000));
        QCOMPARE(window.currentFile(), QFileInfo(m_valid).absoluteFilePath());
    }

    void layoutIsRemembered() {
        QSettings().remove(QStringLiteral("window"));
        {
            MainWindow window;
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(window.panels()->stackDock()->isVisible());
            window.panels()->stackDock()->close();
            window.close(); // saves the layout
        }
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QVERIFY(!again.panels()->stackDock()->isVisible());
        QVERIFY(again.panels()->insightsDock()->isVisible());
        again.resetLayout();
        QVERIFY(again.panels()->stackDock()->isVisible());
        QSettings().remove(QStringLiteral("window"));
    }

    void shortcutsAreListed() {
        MainWindow window;
        window.show();
        window.showShortcuts();
        views::ShortcutsDialog* dialog = window.shortcutsDialog();
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        const QString all = dialog->entries().join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("Find\tCtrl+F")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Open")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Insights\tCtrl+1")), qPrintable(all));
        QVERIFY(!dialog->timelineHelp().isEmpty());
        dialog->close();
        QTRY_VERIFY(!window.shortcutsDialog());
    }
};

STALLSCOPE_TEST_MAIN(MainWindowTest)
#include "tst_main_window.moc"
