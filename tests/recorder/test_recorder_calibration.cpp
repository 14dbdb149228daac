// RecorderCalibration (recorder/recorder_calibration.h): the probe's line read and written, the
// value handed to the target's recorder, and obtain() with stand-in probes (shell scripts that
// write what stallscope-calibrate writes): it runs the probe without the injection variables and
// with the recorder's settings, keeps a measurement per settings in the cache, and says why when
// the probe is missing, fails or writes something else, and a stop while it runs leaves nothing
// behind. The real probe runs in tst_recorder_gpu.
#include "recorder/recorder_calibration.h"
#include "recorder/recorder_config.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using stallscope::recorder::RecorderCalibration;
using stallscope::recorder::RecorderConfig;

namespace {

constexpr const char* kLine = "restart_plain_ns=21000 restart_recorded_ns=24500 "
                              "launch_plain_ns=2100 launch_recorded_ns=3300 "
                              "queue_shallow_gap_ns=2100 queue_deep_gap_ns=2800";

} // namespace

class TestRecorderCalibration : public QObject {
    Q_OBJECT

private slots:
    void readsTheProbesLine() {
        std::string line = kLine;
        line += '\n'; // as the probe writes it
        const auto c = RecorderCalibration::parse(line);
        QVERIFY(c);
        QCOMPARE(c->restartOverheadNs(), int64_t(3'500));
        QCOMPARE(c->launchOverheadNs(), int64_t(1'200));
        QCOMPARE(c->deepQueueDelayNs(), int64_t(700));
        QCOMPARE(QString::fromStdString(c->format()), QString(kLine));
        QCOMPARE(QString::fromStdString(c->environmentValue()), QString("3500,1200,700"));
    }

    void overheadsStayInRange_data() {
        QTest::addColumn<qint64>("plain");
        QTest::addColumn<qint64>("recorded");
        QTest::addColumn<qint64>("overhead");
        QTest::newRow("faster recorded") << qint64(5'000) << qint64(4'000) << qint64(0);
        QTest::newRow("equal") << qint64(5'000) << qint64(5'000) << qint64(0);
        QTest::newRow("one ns") << qint64(5'000) << qint64(5'001) << qint64(1);
        QTest::newRow("largest") << qint64(5'000) << qint64(105'000) << qint64(100'000);
        QTest::newRow("disturbed") << qint64(5'000) << qint64(105'001) << qint64(0);
    }
    void overheadsStayInRange() {
        QFETCH(qint64, plain);
        QFETCH(qint64, recorded);
        QFETCH(qint64, overhead);
        RecorderCalibration c;
        c.restartPlainNs = c.launchPlainNs = c.queueShallowGapNs = plain;
        c.restartRecordedNs = c.launchRecordedNs = c.queueDeepGapNs = recorded;
        QCOMPARE(c.restartOverheadNs(), overhead);
        QCOMPARE(c.launchOverheadNs(), overhead);
        QCOMPARE(c.deepQueueDelayNs(), overhead);
    }

    // Every defect is rejected; the largest accepted value ("a second") is the bound's other side.
    void rejectsOtherLines_data() {
        QTest::addColumn<QString>("line");
        QTest::newRow("empty") << "";
        QTest::newRow("a field missing")
            << "restart_plain_ns=1 restart_recorded_ns=2 launch_plain_ns=3";
        QTest::newRow("the line before the queue gaps")
            << "restart_plain_ns=21000 restart_recorded_ns=24500 launch_plain_ns=2100 "
               "launch_recorded_ns=3300";
        QTest::newRow("a field more") << QString(kLine) + " extra=1";
        // kLine with one defect each: anything else is read wrongly, not rejected.
        const QString line(kLine);
        QTest::newRow("order") << QString(line).replace(
            "restart_plain_ns=21000 restart_recorded_ns=24500",
            "restart_recorded_ns=24500 restart_plain_ns=21000");
        QTest::newRow("negative") << QString(line).replace("restart_plain_ns=21000",
                                                           "restart_plain_ns=-1");
        QTest::newRow("not a number")
            << QString(line).replace("launch_recorded_ns=3300", "launch_recorded_ns=3300us");
        QTest::newRow("past a second")
            << QString(line).replace("launch_plain_ns=2100", "launch_plain_ns=1000000001");
        QTest::newRow("deep gap not a number")
            << QString(line).replace("queue_deep_gap_ns=2800", "queue_deep_gap_ns=x");
        QTest::newRow("a second") << QString(line).replace("launch_plain_ns=2100",
                                                           "launch_plain_ns=1000000000");
    }
    void rejectsOtherLines() {
        QFETCH(QString, line);
        const bool accepted = QString(QTest::currentDataTag()) == "a second";
        QCOMPARE(bool(RecorderCalibration::parse(line.toStdString())), accepted);
    }

    void environmentValue_data() {
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("three costs") << "3500,1200,700" << true;
        QTest::newRow("largest") << "100000,100000,100000" << true;
        QTest::newRow("an empty one") << "3500,1200," << false;
        QTest::newRow("restart past the largest") << "100001,0,0" << false;
        QTest::newRow("launch past the largest") << "0,100001,0" << false;
        QTest::newRow("delay past the largest") << "0,0,100001" << false;
        QTest::newRow("one") << "3500" << false;
        QTest::newRow("two") << "3500,1200" << false;
        QTest::newRow("negative") << "1,-1,2" << false;
        QTest::newRow("text") << "a,b,c" << false;
        QTest::newRow("four") << "1,2,3,4" << false;
    }
    void environmentValue() {
        QFETCH(QString, value);
        QFETCH(bool, accepted);
        const auto read = RecorderCalibration::parseEnvironmentValue(value.toStdString());
        QCOMPARE(bool(read), accepted);
        if (read) // the numbers themselves, in their order
            QCOMPARE(QString("%1,%2,%3")
                         .arg(read->restartNs)
                         .arg(read->launchNs)
                         .arg(read->deepQueueDelayNs),
                     value);
        qputenv("STALLSCOPE_CALIBRATION", value.toUtf8());
        std::string warnings;
        const RecorderConfig config = RecorderConfig::fromEnvironment(&warnings);
        qunsetenv("STALLSCOPE_CALIBRATION");
        QCOMPARE(config.restartOverheadNs, accepted ? read->restartNs : int64_t(-1));
        QCOMPARE(config.launchOverheadNs, accepted ? read->launchNs : int64_t(-1));
        QCOMPARE(config.deepQueueDelayNs, accepted ? read->deepQueueDelayNs : int64_t(-1));
        QCOMPARE(warnings.find("STALLSCOPE_CALIBRATION") != std::string::npos, !accepted);
    }

    void obtainRunsTheProbeOncePerSettings() {
        QTemporaryDir dir;
        qputenv("XDG_CACHE_HOME", dir.filePath("cache").toUtf8());
        qputenv("TMPDIR", dir.path().toUtf8());
        qputenv("CUDA_INJECTION64_PATH", "/nonexistent/libstallscope_recorder.so");
        // Capture control measures nothing while closed: the probe records all of its run.
        qputenv("STALLSCOPE_CAPTURE_RANGE", "nvtx:never");
        const std::string runs = dir.filePath("runs").toStdString();
        // Appends what it saw (the injection variable, the mode, the capture range) to `runs`,
        // then writes the line to the --output file.
        const std::string probe =
            script(dir, "probe",
                   "echo \"${CUDA_INJECTION64_PATH:-none} "
                   "${STALLSCOPE_MODE:-} ${STALLSCOPE_CAPTURE_RANGE:-all}\" >> " +
                       runs + "\necho '" + kLine + "' > \"$2\"\n");
        QVERIFY(!probe.empty());
        std::string why;
        const auto first = RecorderCalibration::obtain(probe, {"STALLSCOPE_MODE=full"}, &why);
        QVERIFY2(first, why.c_str());
        QCOMPARE(first->restartOverheadNs(), int64_t(3'500));
        const auto again = RecorderCalibration::obtain(probe, {"STALLSCOPE_MODE=full"}, &why);
        QVERIFY(again);
        QCOMPARE(QString::fromStdString(again->format()), QString(kLine));
        QVERIFY(RecorderCalibration::obtain(probe, {"STALLSCOPE_MODE=light"}, &why));
        QVERIFY(RecorderCalibration::obtain(probe, {"STALLSCOPE_MODE=full"}, &why));
        QCOMPARE(readAll(QString::fromStdString(runs)), QString("none full all\nnone light all\n"));
        QCOMPARE(readAll(dir.filePath("cache/stallscope/calibration")).count('\n'), 2);
        // Nothing of the probe's is left behind.
        QCOMPARE(probeFolders(dir), 0);
        qunsetenv("CUDA_INJECTION64_PATH");
        qunsetenv("STALLSCOPE_CAPTURE_RANGE");
        qunsetenv("TMPDIR");
        qunsetenv("XDG_CACHE_HOME");
    }

    void obtainSaysWhyNot_data() {
        QTest::addColumn<QString>("body"); // empty: no probe at all
        QTest::addColumn<QString>("why");
        QTest::newRow("missing") << ""
                                 << "not found";
        QTest::newRow("fails") << "exit 1\n"
                               << "exited with status 1";
        QTest::newRow("killed") << "kill -9 $$\n"
                                << "died of signal 9";
        QTest::newRow("other output") << "echo 'restart_plain_ns=1' > \"$2\"\n"
                                      << "not understood";
    }
    void obtainSaysWhyNot() {
        QFETCH(QString, body);
        QFETCH(QString, why);
        QTemporaryDir dir;
        qputenv("XDG_CACHE_HOME", dir.filePath("cache").toUtf8());
        const std::string probe = body.isEmpty() ? dir.filePath("absent").toStdString()
                                                 : script(dir, "probe", body.toStdString());
        QVERIFY(!probe.empty());
        std::string reason;
        QVERIFY(!RecorderCalibration::obtain(probe, {}, &reason));
        QVERIFY2(reason.find(why.toStdString()) != std::string::npos, reason.c_str());
        QVERIFY(!QFile::exists(dir.filePath("cache/stallscope/calibration"))); // nothing cached
        qunsetenv("XDG_CACHE_HOME");
    }

    // A stop while the probe runs (the record dialog's Stop, Ctrl-C): the probe is killed, its
    // folder removed, and the signal then ends stallscope-record as it would have without the
    // probe. Here a forked child of the test stands in for stallscope-record.
    void stopWhileTheProbeRuns() {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath("probe.pid");
        const std::string probe =
            script(dir, "probe", "echo $$ > " + pidFile.toStdString() + "\nexec sleep 30\n");
        QVERIFY(!probe.empty());
        const pid_t recorder = fork();
        QVERIFY(recorder >= 0);
        if (recorder == 0) {
            signal(SIGTERM, SIG_DFL); // as in stallscope-record (not Qt Test's crash handler)
            setenv("TMPDIR", dir.path().toUtf8().constData(), 1);
            std::string why;
            RecorderCalibration::obtain(probe, {}, &why);
            _exit(0); // not reached: the stop ends this process
        }
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(pidFile) && !readAll(pidFile).isEmpty(), 10000);
        const pid_t probePid = readAll(pidFile).trimmed().toInt();
        QVERIFY(probePid > 0);
        kill(recorder, SIGTERM);
        int status = 0;
        QCOMPARE(waitpid(recorder, &status, 0), recorder);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(WTERMSIG(status), SIGTERM);
        QCOMPARE(kill(probePid, 0), -1); // killed and reaped, not left running
        QCOMPARE(probeFolders(dir), 0);
    }

private:
    // The probe's folders under `dir`, the TMPDIR of the test's obtain() calls.
    static int probeFolders(const QTemporaryDir& dir) {
        return QDir(dir.path()).entryList({"stallscope-calibrate.*"}, QDir::Dirs).size();
    }
    // A shell script `name` in `dir` running `body`; its path, empty when it cannot be written
    // (which fails the test).
    static std::string script(const QTemporaryDir& dir, const char* name, const std::string& body) {
        const QString path = dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly)) {
            STALLSCOPE_FAIL("cannot write %s: %s", qPrintable(path),
                            qPrintable(file.errorString()));
            return {};
        }
        file.write(("#!/bin/sh\n" + body).c_str());
        file.close();
        chmod(path.toUtf8().constData(), 0755);
        return path.toStdString();
    }
    static QString readAll(const QString& path) {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestRecorderCalibration)
#include "test_recorder_calibration.moc"
