// stallscope-record and a program that will not stop (no GPU needed: the program is a shell that
// ignores the signal): a SIGTERM, SIGINT or SIGHUP forwarded to it is followed by SIGKILL after
// the grace period, and the session is still finished; a program that ends on the signal is left
// to end; a killed stallscope-record leaves neither the program nor its watchdog behind.
#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "tests/recorder/process_state.h"
#include "tests/support/test_suite.h"
#include "tests/support/write_file.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

namespace {

// STALLSCOPE_RECORD_KILL_GRACE_MS for these runs, and how much longer an ending may take.
constexpr int kGraceMs = 500;
constexpr int kMarginMs = 10000;

using stallscope::testing::processState;
using stallscope::testing::readFile;

bool runs(qint64 pid) {
    const char state = processState(pid);
    return state != 0 && state != 'Z';
}

// The processes whose parent is `parent` (/proc/PID/stat's fourth field).
QList<qint64> childrenOf(qint64 parent) {
    QList<qint64> children;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& entry : entries) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number)
            continue;
        const QByteArray stat = readFile(QStringLiteral("/proc/%1/stat").arg(pid));
        const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1 && fields.at(1).toLongLong() == parent)
            children << pid;
    }
    return children;
}

// stallscope-record running /bin/sh with `traps`, which writes its pid to a file and then execs
// `sleep`; its output (stallscope-record's and the watchdog's) goes to a file, which outlives
// stallscope-record. `program`: the program's pid once it sleeps; `others`: the other children of
// stallscope-record then (its watchdog).
struct Recording {
    QTemporaryDir dir;
    QProcess recorder;
    qint64 program = 0;
    QList<qint64> others;

    QString session() const { return dir.filePath(QStringLiteral("stop.stallscope")); }
    QString output() const {
        return QString::fromLocal8Bit(readFile(dir.filePath(QStringLiteral("output"))));
    }

    void start(const QString& traps) {
        const QString pidFile = dir.filePath(QStringLiteral("pid"));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("STALLSCOPE_RECORD_KILL_GRACE_MS"),
                           QString::number(kGraceMs));
        recorder.setProcessEnvironment(environment);
        recorder.setProcessChannelMode(QProcess::MergedChannels);
        recorder.setStandardOutputFile(dir.filePath(QStringLiteral("output")));
        recorder.start(QStringLiteral(STALLSCOPE_RECORD),
                       {QStringLiteral("-q"), QStringLiteral("--no-calibration"),
                        QStringLiteral("--no-symbolize"), QStringLiteral("-o"), session(),
                        QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                        traps + QStringLiteral("echo $$ > '%1'; exec sleep 60").arg(pidFile)});
        QVERIFY(recorder.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(readFile(pidFile).trimmed().toLongLong() > 0, kMarginMs);
        program = readFile(pidFile).trimmed().toLongLong();
        QTRY_COMPARE_WITH_TIMEOUT(readFile(QStringLiteral("/proc/%1/comm").arg(program)).trimmed(),
                                  QByteArray("sleep"), kMarginMs);
        others = childrenOf(recorder.processId());
        QVERIFY2(others.removeAll(program) == 1, "the program is not stallscope-record's child");
    }
};

} // namespace

class TestRecordStop : public QObject {
    Q_OBJECT
private slots:
    // Both sides: a program that ignores the signal gets SIGKILL after the grace period (and the
    // session says so); one that ends on it just ends, with no SIGKILL.
    void forwardedStopEndsTheProgram_data() {
        QTest::addColumn<int>("signal");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("ignored");
        for (const auto& [name, signal] :
             {std::pair{"SIGTERM", SIGTERM}, {"SIGINT", SIGINT}, {"SIGHUP", SIGHUP}}) {
            QTest::addRow("%s ignored", name) << signal << QString::fromLatin1(name) << true;
            QTest::addRow("%s obeyed", name) << signal << QString::fromLatin1(name) << false;
        }
    }
    void forwardedStopEndsTheProgram() {
        QFETCH(int, signal);
        QFETCH(QString, name);
        QFETCH(bool, ignored);
        Recording recording;
        recording.start(ignored ? QStringLiteral("trap '' TERM INT HUP; ") : QString());
        if (QTest::currentTestFailed())
            return;
        QElapsedTimer timer;
        timer.start();
        ::kill(pid_t(recording.recorder.processId()), signal);
        QVERIFY(recording.recorder.waitForFinished(kGraceMs + kMarginMs));
        const qint64 elapsed = timer.elapsed();
        QCOMPARE(recording.recorder.exitStatus(), QProcess::NormalExit);
        QCOMPARE(recording.recorder.exitCode(), 128 + (ignored ? SIGKILL : signal));
        const QString killed =
            QStringLiteral("stallscope-record: /bin/sh did not exit 0.5 s after %1; killed it "
                           "(SIGKILL)\n")
                .arg(name);
        QVERIFY2(recording.output().contains(killed) == ignored, qPrintable(recording.output()));
        if (ignored)
            QVERIFY2(elapsed >= kGraceMs, qPrintable(QString::number(elapsed)));
        // stallscope-record reaped both: the program and its watchdog are gone, not zombies.
        QCOMPARE(processState(recording.program), char(0));
        for (qint64 other : recording.others)
            QCOMPARE(processState(other), char(0));
        // The session is finished as after any ending.
        const auto loaded =
            stallscope::model::SessionLoader::load(recording.session().toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(loaded.session->status, std::string("incomplete"));
        QCOMPARE(loaded.session->metaValue("exit_signal"),
                 std::to_string(ignored ? SIGKILL : signal));
    }

    // SIGUSR1 (a flight recorder's snapshot, --ring) reaches the program and stops nothing: the
    // program handles it and ends on its own, with its own status, no SIGKILL.
    void sigusr1IsForwardedAndStopsNothing() {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(QStringLiteral("pid"));
        const QString got = dir.filePath(QStringLiteral("got"));
        QProcess recorder;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("STALLSCOPE_RECORD_KILL_GRACE_MS"),
                           QString::number(kGraceMs));
        recorder.setProcessEnvironment(environment);
        recorder.setProcessChannelMode(QProcess::MergedChannels);
        recorder.start(QStringLiteral(STALLSCOPE_RECORD),
                       {QStringLiteral("-q"), QStringLiteral("--no-calibration"),
                        QStringLiteral("--no-symbolize"), QStringLiteral("-o"),
                        dir.filePath(QStringLiteral("usr1.stallscope")), QStringLiteral("--"),
                        QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                        QStringLiteral("trap 'echo usr1 > \"%1\"' USR1; echo $$ > '%2'; "
                                       "while [ ! -e '%1' ]; do sleep 0.05; done; exit 3")
                            .arg(got, pidFile)});
        QVERIFY(recorder.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(readFile(pidFile).trimmed().toLongLong() > 0, kMarginMs);
        ::kill(pid_t(recorder.processId()), SIGUSR1);
        QVERIFY(recorder.waitForFinished(kMarginMs));
        QCOMPARE(readFile(got), QByteArray("usr1\n"));
        QCOMPARE(recorder.exitStatus(), QProcess::NormalExit);
        QCOMPARE(recorder.exitCode(), 3);
        QVERIFY2(!recorder.readAll().contains("SIGKILL"), "the program was killed");
    }

    // A killed stallscope-record: the program gets SIGTERM (PR_SET_PDEATHSIG), ignores it, and
    // the watchdog kills it after the grace period, then ends too.
    void programIgnoringSigtermDoesNotOutliveAKilledRecorder() {
        Recording recording;
        recording.start(QStringLiteral("trap '' TERM; "));
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(!recording.others.isEmpty(), "no watchdog beside the program");
        QElapsedTimer timer;
        timer.start();
        ::kill(pid_t(recording.recorder.processId()), SIGKILL);
        recording.recorder.waitForFinished();
        // Gone, or a zombie nobody reaps (a container's init): either way it no longer runs.
        QTRY_VERIFY_WITH_TIMEOUT(!runs(recording.program), kGraceMs + kMarginMs);
        QVERIFY2(timer.elapsed() >= kGraceMs, qPrintable(QString::number(timer.elapsed())));
        for (qint64 other : recording.others)
            QTRY_VERIFY_WITH_TIMEOUT(!runs(other), kMarginMs);
        QVERIFY2(recording.output().contains(
                     QStringLiteral("stallscope-record: /bin/sh did not exit 0.5 s after "
                                    "stallscope-record ended; killed it (SIGKILL)\n")),
                 qPrintable(recording.output()));
    }
};

STALLSCOPE_TEST_MAIN(TestRecordStop)
#include "tst_record_stop.moc"
