// File ▸ Record: the dialog runs a program under the real stallscope-record, shows its output,
// opens the session it wrote, stops a running program, and explains failures in the dialog.
// The programs recorded here use no CUDA, so it runs without a GPU: the recorder then writes an
// empty, complete session.
#include "app/main_window.h"
#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "tests/support/test_suite.h"
#include "views/dialogs/record_dialog.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using stallscope::app::MainWindow;
using stallscope::views::RecordDialog;

namespace {

// The ids of the processes whose parent is `pid`, from /proc/<pid>/task/*/children.
QList<qint64> childrenOf(qint64 pid) {
    QList<qint64> children;
    const QString tasks = QStringLiteral("/proc/%1/task").arg(pid);
    for (const QString& task : QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile file(tasks + "/" + task + "/children");
        if (file.open(QIODevice::ReadOnly))
            for (const QByteArray& id : file.readAll().split(' '))
                if (!id.trimmed().isEmpty())
                    children << id.trimmed().toLongLong();
    }
    return children;
}

// Whether a child of this test (the recorder) has a child of its own named `name` (the recorded
// program; the recorder's first child may be stallscope-calibrate).
bool hasGrandchild(const QString& name) {
    for (qint64 child : childrenOf(QCoreApplication::applicationPid()))
        for (qint64 grandchild : childrenOf(child)) {
            QFile comm(QStringLiteral("/proc/%1/comm").arg(grandchild));
            if (comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == name.toUtf8())
                return true;
        }
    return false;
}

} // namespace

class RecordDialogTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    static QString recorder() { return QStringLiteral(STALLSCOPE_RECORD); }
    void skipWithoutRecorder() {
        if (recorder().isEmpty())
            QSKIP("SKIP: stallscope-record not built (no CUDA Toolkit)");
    }
    RecordDialog* dialogFor(QWidget* parent, const QString& session) {
        auto* dialog = new RecordDialog(parent);
        dialog->setRecorderPath(recorder());
        dialog->setWorkingDirectory(m_dir.path());
        dialog->setOutputFile(session);
        return dialog;
    }

private slots:
    void recordsAndReportsTheSession() {
        skipWithoutRecorder();
        const QString session = m_dir.filePath(QStringLiteral("echo.stallscope"));
        RecordDialog* dialog = dialogFor(nullptr, session);
        dialog->setProgram(
            QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"),
             QStringLiteral("echo hello from $GREETING, unbuffered=$PYTHONUNBUFFERED")});
        dialog->setEnvironment({QStringLiteral("GREETING=the target")});
        QSignalSpy recorded(dialog, &RecordDialog::sessionRecorded);
        QVERIFY(dialog->startRecording());
        QVERIFY(recorded.wait(60000));
        QCOMPARE(recorded.at(0).at(0).toString(), session);
        // Python's output shows as it runs (unbuffered) unless the user's environment says.
        QVERIFY2(
            dialog->outputText().contains(QStringLiteral("hello from the target, unbuffered=1")),
            qPrintable(dialog->outputText()));
        // What recording needs is said up front (issue 42).
        const auto* needs = dialog->findChild<QLabel*>(QStringLiteral("recordNeeds"));
        QVERIFY(needs && needs->text().contains(QStringLiteral("NVIDIA GPU")));
        const auto loaded = stallscope::model::SessionLoader::load(session.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        // /bin/sh never initializes CUDA: the session says so instead of looking complete.
        QCOMPARE(loaded.session->status, std::string("incomplete"));
        delete dialog;
    }

    // The light-mode box passes --mode light, which the recorder takes (the session itself is
    // checked on the GPU: tst_recorder_gpu::lightRecordingKeepsTheSyncLines); unticked, none.
    void lightModeIsPassedToTheRecorder() {
        skipWithoutRecorder();
        for (const bool light : {true, false}) {
            const QString session =
                m_dir.filePath(light ? QStringLiteral("light.stallscope") : "full.stallscope");
            RecordDialog* dialog = dialogFor(nullptr, session);
            dialog->setProgram(QStringLiteral("/bin/true"));
            dialog->setLightMode(light);
            QSignalSpy recorded(dialog, &RecordDialog::sessionRecorded);
            QVERIFY(dialog->startRecording());
            QVERIFY2(recorded.wait(60000), qPrintable(dialog->outputText()));
            QCOMPARE(dialog->outputText().contains(QStringLiteral(" --mode light ")), light);
            QVERIFY(dialog->errorText().isEmpty());
            delete dialog;
        }
    }

    // The capture rows pass the recorder's capture options, which it takes; the whole run with
    // no delay and no duration passes none.
    void captureOptionsArePassedToTheRecorder() {
        skipWithoutRecorder();
        struct Case {
            QString range;
            double delay, duration;
            int firstStep = 0, lastStep = 0;
            QString passed;
        };
        for (const Case& c :
             {Case{QStringLiteral("nvtx:train step"), 1.5, 0, 0, 0,
                   QStringLiteral(" --capture-range 'nvtx:train step' --delay 1.5 --")},
              Case{QStringLiteral("cuda-profiler-api"), 0, 20, 0, 0,
                   QStringLiteral(" --capture-range cuda-profiler-api --duration 20 --")},
              // Steps: a last step before the first is the first alone.
              Case{QStringLiteral("nvtx:step"), 0, 0, 3, 7,
                   QStringLiteral(" --capture-range nvtx:step --capture-steps 3-7 --")},
              Case{QStringLiteral("cuda-profiler-api"), 0, 0, 4, 2,
                   QStringLiteral(" --capture-range cuda-profiler-api --capture-steps 4-4 --")},
              // Without a range there are no steps to count: none passed.
              Case{QString(), 0, 0, 3, 7, QStringLiteral(".stallscope -- /bin/true")}}) {
            const QString session = m_dir.filePath(QStringLiteral("capture.stallscope"));
            QFile::remove(session);
            RecordDialog* dialog = dialogFor(nullptr, session);
            dialog->setProgram(QStringLiteral("/bin/true"));
            dialog->setCapture(c.range, c.delay, c.duration);
            dialog->setCaptureSteps(c.firstStep, c.lastStep);
            QSignalSpy recorded(dialog, &RecordDialog::sessionRecorded);
            QVERIFY(dialog->startRecording());
            QVERIFY2(recorded.wait(60000), qPrintable(dialog->outputText()));
            QVERIFY2(dialog->outputText().contains(c.passed), qPrintable(dialog->outputText()));
            QCOMPARE(dialog->outputText().contains(QStringLiteral("--capture-range")),
                     !c.range.isEmpty());
            QCOMPARE(dialog->outputText().contains(QStringLiteral("--capture-steps")),
                     !c.range.isEmpty() && c.firstStep > 0);
            QVERIFY(dialog->errorText().isEmpty());
            delete dialog;
        }
    }

    // The flight recorder's row passes --ring and, with a factor of 2 or more, the slow-step
    // trigger, which the recorder takes; no ring passes neither, even with a factor set.
    void flightRecorderOptionsArePassedToTheRecorder() {
        skipWithoutRecorder();
        struct Case {
            double ring, factor;
            QString passed;
        };
        for (const Case& c : {Case{30, 5, QStringLiteral(" --ring 30 --trigger-slow-step 5 --")},
                              Case{0.5, 1, QStringLiteral(" --ring 0.5 --")},
                              Case{0, 5, QStringLiteral(".stallscope -- /bin/true")}}) {
            const QString session = m_dir.filePath(QStringLiteral("ring.stallscope"));
            QFile::remove(session);
            RecordDialog* dialog = dialogFor(nullptr, session);
            dialog->setProgram(QStringLiteral("/bin/true"));
            dialog->setFlightRecorder(c.ring, c.factor);
            QSignalSpy recorded(dialog, &RecordDialog::sessionRecorded);
            QVERIFY(dialog->startRecording());
            QVERIFY2(recorded.wait(60000), qPrintable(dialog->outputText()));
            QVERIFY2(dialog->outputText().contains(c.passed), qPrintable(dialog->outputText()));
            QCOMPARE(dialog->outputText().contains(QStringLiteral("--ring")), c.ring > 0);
            QVERIFY(dialog->errorText().isEmpty());
            delete dialog;
        }
    }

    // The default session file is a fresh name; an existing one is replaced only after the user
    // said yes, and then only when the new recording is complete.
    void existingSessionIsReplacedOnlyWhenConfirmed() {
        skipWithoutRecorder();
        QTemporaryDir dir;
        QCOMPARE(RecordDialog::freshSessionPath(dir.path()), dir.filePath("run.stallscope"));
        QFile old(dir.filePath("run.stallscope"));
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("yesterday's recording");
        old.close();
        QCOMPARE(RecordDialog::freshSessionPath(dir.path()), dir.filePath("run-2.stallscope"));
        QFile(dir.filePath("run-2.recording.stallscope")).open(QIODevice::WriteOnly);
        QCOMPARE(RecordDialog::freshSessionPath(dir.path()), dir.filePath("run-3.stallscope"));

        RecordDialog* dialog = dialogFor(nullptr, dir.filePath("run.stallscope"));
        QStringList asked;
        bool answer = false;
        dialog->setReplaceConfirmation([&](const QString& path) {
            asked << path;
            return answer;
        });
        dialog->setProgram(QStringLiteral("/bin/true"));
        QVERIFY(!dialog->startRecording()); // declined: nothing runs
        QCOMPARE(asked, QStringList{dir.filePath("run.stallscope")});
        QVERIFY(dialog->errorText().contains(QStringLiteral("choose another")));
        // A typo in the program name keeps yesterday's recording even after "replace".
        answer = true;
        dialog->setProgram(QStringLiteral("/nonexistent/train"));
        QSignalSpy failed(dialog, &RecordDialog::recordingFailed);
        QVERIFY(dialog->startRecording());
        QVERIFY(failed.wait(30000));
        QVERIFY(old.open(QIODevice::ReadOnly));
        QCOMPARE(old.readAll(), QByteArray("yesterday's recording"));
        old.close();
        dialog->setProgram(QStringLiteral("/bin/true"));
        QSignalSpy recorded(dialog, &RecordDialog::sessionRecorded);
        QVERIFY(dialog->startRecording());
        QVERIFY(recorded.wait(60000));
        const auto loaded =
            stallscope::model::SessionLoader::load(dir.filePath("run.stallscope").toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QVERIFY(!QFileInfo::exists(dir.filePath("run.recording.stallscope")));
        delete dialog;
    }

    void mainWindowOpensTheRecording() {
        skipWithoutRecorder();
        MainWindow window;
        window.setErrorDialogsEnabled(false);
        RecordDialog* dialog = window.showRecordDialog();
        QVERIFY(dialog && dialog->isVisible());
        const QString session = m_dir.filePath(QStringLiteral("true.stallscope"));
        dialog->setRecorderPath(recorder());
        dialog->setOutputFile(session);
        dialog->setProgram(QStringLiteral("/bin/true"));
        QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
        QVERIFY(dialog->startRecording());
        QVERIFY(loaded.wait(60000));
        QCOMPARE(window.currentFile(), session);
    }

    void stopEndsTheProgramAndKeepsTheSession() {
        skipWithoutRecorder();
        const QString session = m_dir.filePath(QStringLiteral("sleep.stallscope"));
        RecordDialog* dialog = dialogFor(nullptr, session);
        dialog->setProgram(QStringLiteral("/bin/sleep"), {QStringLiteral("60")});
        QSignalSpy recorded(dialog, &RecordDialog::sessionRecorded);
        QVERIFY(dialog->startRecording());
        QTRY_VERIFY_WITH_TIMEOUT(dialog->isRecording(), 30000);
        // Stop once the recorder has forked the program: it forwards SIGTERM from then on.
        QTRY_VERIFY_WITH_TIMEOUT(hasGrandchild(QStringLiteral("sleep")), 30000);
        dialog->stopRecording();
        QVERIFY(recorded.wait(30000));
        QVERIFY(!dialog->isRecording());
        QVERIFY2(dialog->outputText().contains(QStringLiteral("exited with status")),
                 qPrintable(dialog->outputText()));
        delete dialog;
    }

    void missingProgramIsExplained() {
        skipWithoutRecorder();
        RecordDialog* dialog =
            dialogFor(nullptr, m_dir.filePath(QStringLiteral("never.stallscope")));
        dialog->setProgram(QStringLiteral("/nonexistent/train"));
        QSignalSpy failed(dialog, &RecordDialog::recordingFailed);
        QVERIFY(dialog->startRecording());
        QVERIFY(failed.wait(30000));
        QVERIFY2(dialog->errorText().contains(QStringLiteral("could not be run")),
                 qPrintable(dialog->errorText()));
        QVERIFY2(dialog->outputText().contains(QStringLiteral("/nonexistent/train")),
                 qPrintable(dialog->outputText()));
        // Said at once, with no line about the recorder's calibration before it (issue 42).
        QVERIFY2(dialog->outputText().contains(QStringLiteral("no such program")) &&
                     !dialog->outputText().contains(QStringLiteral("calibrat")) &&
                     !dialog->outputText().contains(QStringLiteral("own cost")),
                 qPrintable(dialog->outputText()));
        delete dialog;
    }

    // A program whose several processes used CUDA (torchrun) leaves the run folder "run/" instead
    // of "run.stallscope": the dialog opens that, asks before replacing it, and never proposes its
    // name again. The folder here holds the bundled real 2-rank recording.
    void runFolderIsWhatTheRecordingLeft() {
        QTemporaryDir dir;
        const QString session = dir.filePath(QStringLiteral("run.stallscope"));
        const QString folder = dir.filePath(QStringLiteral("run"));
        QCOMPARE(RecordDialog::recordedOutput(session), QString());
        QVERIFY(QDir().mkpath(folder));
        for (const char* rank : {"rank0.stallscope", "rank1.stallscope"})
            QVERIFY(QFile::copy(QStringLiteral(STALLSCOPE_SOURCE_DIR "/resources/sample-ddp/") +
                                    QLatin1String(rank),
                                folder + QLatin1Char('/') + QLatin1String(rank)));
        QCOMPARE(RecordDialog::recordedOutput(session), folder);
        QCOMPARE(RecordDialog::freshSessionPath(dir.path()), dir.filePath("run-2.stallscope"));

        RecordDialog dialog;
        dialog.setRecorderPath(recorder().isEmpty() ? QStringLiteral("/bin/true") : recorder());
        dialog.setOutputFile(session);
        dialog.setProgram(QStringLiteral("/bin/true"));
        QStringList asked;
        dialog.setReplaceConfirmation([&](const QString& path) {
            asked << path;
            return false;
        });
        QVERIFY(!dialog.startRecording()); // declined: nothing runs, the run stays
        QCOMPARE(asked, QStringList{folder});
        QVERIFY(QFileInfo(folder + QStringLiteral("/rank1.stallscope")).isFile());

        // One file of that name is what a single-process recording left: it wins.
        QFile single(session);
        QVERIFY(single.open(QIODevice::WriteOnly));
        single.close();
        QCOMPARE(RecordDialog::recordedOutput(session), session);
    }

    // The window opens the run folder the dialog hands it as one run of two ranks.
    void mainWindowOpensARecordedRunFolder() {
        QTemporaryDir cache;
        qputenv("STALLSCOPE_IMPORT_CACHE", cache.path().toUtf8());
        MainWindow window;
        window.setErrorDialogsEnabled(false);
        RecordDialog* dialog = window.showRecordDialog();
        const QString folder = QStringLiteral(STALLSCOPE_SOURCE_DIR "/resources/sample-ddp");
        QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
        emit dialog->sessionRecorded(folder);
        QVERIFY(loaded.wait(60000));
        QCOMPARE(window.currentFile(), folder);
        QVERIFY(window.session());
        QCOMPARE(window.session()->processes.size(), size_t(2));
        qunsetenv("STALLSCOPE_IMPORT_CACHE");
    }

    void withoutRecorderItSaysHowToBuildIt() {
        RecordDialog dialog;
        dialog.setRecorderPath(QString());
        dialog.setProgram(QStringLiteral("/bin/true"));
        QSignalSpy failed(&dialog, &RecordDialog::recordingFailed);
        QVERIFY(!dialog.startRecording());
        QCOMPARE(failed.count(), 1);
        QVERIFY(dialog.errorText().contains(QStringLiteral("stallscope-record")));
        dialog.setRecorderPath(recorder());
        dialog.setProgram(QString());
        QVERIFY(!dialog.startRecording());
        QVERIFY(dialog.errorText().contains(QStringLiteral("program")));
    }
};

STALLSCOPE_TEST_MAIN(RecordDialogTest)
#include "tst_record_dialog.moc"
