// File ▸ Compare With… (app/compare_launcher): disabled until a session is open; the second run
// loads in the background (the call returns at once, the window shows progress meanwhile) and the
// comparison window then shows both runs; a file that cannot be opened is one message naming it,
// and its window closes; FILE --compare-with AFTER compares once FILE has loaded.
#include "app/compare_launcher.h"
#include "app/main_window.h"
#include "format/session_meta.h"
#include "model/session/session.h"
#include "tests/support/loop_session.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"
#include "views/compare/compare_table_model.h"
#include "views/compare/compare_view.h"
#include "views/timeline/timeline_widget.h"

#include <QAction>
#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using stallscope::app::CompareLauncher;
using stallscope::app::MainWindow;

class CompareWindowTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_before, m_after;

    // Empty when the loop cannot be written (which fails the test).
    QString writeLoop(const char* name, const loop_session::Options& options) {
        const QString path = m_dir.filePath(QString::fromLatin1(name));
        const std::string error = loop_session::write(path.toStdString(), options);
        if (!error.empty()) {
            STALLSCOPE_FAIL("cannot write %s: %s", qPrintable(path), error.c_str());
            return {};
        }
        return path;
    }
    static bool openAndWait(MainWindow& window, const QString& path) {
        QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
        window.openFile(path);
        return loaded.wait(20000) || !loaded.isEmpty();
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_before = writeLoop("before run.stallscope", {});
        m_after = writeLoop("after run.stallscope", {.syncs = false, .startNs = 2'000'000});
        QVERIFY(!m_before.isEmpty() && !m_after.isEmpty());
    }

    void comparesWithASecondRunInTheBackground() {
        MainWindow window;
        window.setErrorDialogsEnabled(false);
        CompareLauncher* launcher = window.compareLauncher();
        QVERIFY(launcher);
        QVERIFY(!launcher->action()->isEnabled()); // nothing to compare yet
        QVERIFY(!launcher->compareWith(m_after));
        QVERIFY(openAndWait(window, m_before));
        QVERIFY(launcher->action()->isEnabled());

        QSignalSpy compared(launcher, &CompareLauncher::compared);
        QVERIFY(launcher->compareWith(m_after));
        // Returned at once: the load and the analyses run in the background, the window waits.
        QVERIFY(launcher->isRunning());
        QPointer<views::CompareView> view = launcher->view();
        QVERIFY(view);
        QVERIFY(view->isVisible());
        QVERIFY(view->progressLabel()->isVisible());
        QVERIFY2(view->progressLabel()->text().contains(QStringLiteral("after run.stallscope")),
                 qPrintable(view->progressLabel()->text()));
        QVERIFY(compared.wait(30000));
        QCOMPARE(compared.size(), 1);
        QCOMPARE(compared.front().front().value<views::CompareView*>(), view.data());
        QVERIFY(!launcher->isRunning());
        QCOMPARE(view->beforeTimeline()->session(), window.session());
        QVERIFY(view->afterTimeline()->session());
        QCOMPARE(QString::fromStdString(view->afterTimeline()->session()->path), m_after);
        QCOMPARE(view->tableModel()->rowCount(), 1);
        QCOMPARE(view->tableModel()->site(0)->status, model::SiteStatus::Fixed);
        QVERIFY(view->windowTitle().contains(QStringLiteral("before run.stallscope")));
        QVERIFY(view->windowTitle().contains(QStringLiteral("after run.stallscope")));
        QVERIFY(view->isWindow());
        // Esc closes it, as Ctrl+W does (issue 42: no key did).
        view->activateWindow();
        QTest::keyClick(view, Qt::Key_Escape);
        QTRY_VERIFY(!view);
    }

    // Issue 42: two different programs were compared without a word.
    void differentCommandsAreNamed() {
        auto run = [](const char* command) {
            auto session = std::make_shared<model::Session>();
            if (*command)
                session->meta[std::string(format::meta::kCommand)] = command;
            views::ComparedRun compared;
            compared.session = std::move(session);
            return compared;
        };
        views::ComparedRuns runs;
        runs.before = run("python train.py");
        runs.after = run("python train.py");
        QVERIFY(views::CompareView::differentPrograms(runs).isEmpty());
        runs.after = run("");
        QVERIFY(views::CompareView::differentPrograms(runs).isEmpty()); // nothing to tell
        runs.after = run("python eval.py --fast");
        const QString warning = views::CompareView::differentPrograms(runs);
        QVERIFY2(warning.contains(QStringLiteral("before: python train.py; after: python eval.py "
                                                 "--fast")),
                 qPrintable(warning));
    }

    void aFileThatCannotBeOpenedIsOneMessageNamingIt() {
        MainWindow window;
        QVERIFY(openAndWait(window, m_before));
        CompareLauncher* launcher = window.compareLauncher();
        const QString missing = m_dir.filePath(QStringLiteral("no such run.stallscope"));
        QSignalSpy failed(launcher, &CompareLauncher::compareFailed);
        QVERIFY(launcher->compareWith(missing));
        QPointer<views::CompareView> view = launcher->view();
        QVERIFY(failed.wait(20000));
        const QString error = failed.front().front().toString();
        QVERIFY2(error.contains(QStringLiteral("no such run.stallscope")), qPrintable(error));
        QVERIFY(launcher->errorDialog());
        QCOMPARE(launcher->errorDialog()->text(), error);
        launcher->errorDialog()->close();
        QTRY_VERIFY(!view); // the comparison's window closed (and was deleted)
    }

    // The command line's FILE --compare-with AFTER.
    void comparesOnceTheFileHasLoaded() {
        MainWindow window;
        QSignalSpy compared(window.compareLauncher(), &CompareLauncher::compared);
        window.compareLauncher()->compareWhenLoaded(m_after);
        window.openFile(m_before);
        QVERIFY(compared.wait(30000));
        QCOMPARE(window.compareLauncher()->view()->tableModel()->rowCount(), 1);
    }
};

STALLSCOPE_TEST_MAIN(CompareWindowTest)
#include "tst_compare_window.moc"
