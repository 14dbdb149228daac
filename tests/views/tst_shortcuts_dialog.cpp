// Help ▸ Keyboard Shortcuts (issue 17): every row of the table shows whole, none cut off at the
// bottom, with the timeline's keys beside it.
#include "tests/support/test_suite.h"
#include "views/dialogs/shortcuts_dialog.h"

#include <QAction>
#include <QScrollBar>
#include <QTableWidget>
#include <QTest>
#include <QWidget>

using namespace stallscope::views;

class ShortcutsDialogTest : public QObject {
    Q_OBJECT
private slots:
    void everyRowShowsWhole() {
        QWidget window;
        QList<QAction*> actions;
        // As many as the main window's menus have, give or take.
        for (int i = 0; i < 14; ++i) {
            auto* action = new QAction(QStringLiteral("Action number %1").arg(i), &window);
            action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | (Qt::Key_A + i)));
            actions << action;
        }
        actions << new QAction(QStringLiteral("No shortcut"), &window); // not listed
        // A help text as long as the timeline's (TimelineWidget::navigationHelp).
        QString help = QStringLiteral("<h3>Timeline</h3><table>");
        for (int i = 0; i < 13; ++i)
            help += QStringLiteral("<tr><td><b>Key %1</b></td><td>does thing %1</td></tr>").arg(i);
        help += QStringLiteral("</table>");
        ShortcutsDialog dialog(actions, help);
        QCOMPARE(dialog.rowCount(), 15); // 14 actions and the find box's Esc
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTRY_COMPARE(dialog.fullyVisibleRows(), dialog.rowCount());
        auto* table = dialog.findChild<QTableWidget*>();
        QVERIFY(table);
        QVERIFY(!table->verticalScrollBar()->isVisible());
        QCOMPARE(dialog.timelineHelp(), help);
    }
};

STALLSCOPE_TEST_MAIN(ShortcutsDialogTest)
#include "tst_shortcuts_dialog.moc"
