// MainWindow: opening a session (title, summary, lanes), bad files (error shown, no crash, no
// modal hang), drag & drop of a file URL, cancelling.
#include "../views/tiny_session.h"
#include "main_window.h"
#include "session.h"
#include "session_summary_widget.h"
#include "timeline_widget.h"

#include <QFile>
#include <QMessageBox>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using namespace stallscope;
using stallscope::views::MainWindow;

class MainWindowTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_valid;

    QString writeFile(const QString& name, const QByteArray& bytes) {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(path));
        return path;
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
        QVERIFY(m_dir.isValid());
        m_valid = m_dir.filePath(QStringLiteral("tiny run.stallscope"));
        QString error;
        QVERIFY2(tiny::write(m_valid, &error), qPrintable(error));
    }

    void startsEmpty() {
        MainWindow window;
        QCOMPARE(window.windowTitle(), QStringLiteral("Stallscope"));
        QVERIFY(!window.session());
        QVERIFY(window.acceptDrops());
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
        const QString path = writeFile(name, bytes);
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
        QCOMPARE(openAndWait(window, writeFile(QStringLiteral("zero.stallscope"), {})),
                 QStringLiteral("failed"));
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
        window.cancelLoad();
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!window.isLoading());
        QTest::qWait(100); // a cancelled job's late result must not land
        QCOMPARE(loaded.size(), 0);
        QCOMPARE(openAndWait(window, m_valid), QStringLiteral("loaded"));
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
};

QTEST_MAIN(MainWindowTest)
#include "tst_main_window.moc"
