// stallscope-record around the program it runs, without a GPU (programs that never use CUDA):
// the output is checked before the program starts, an existing recording survives everything but
// a complete new one made with --force-overwrite, a session that cannot be finished leaves nothing
// behind, every ending says why, and the program never outlives a killed recorder.
#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "tests/recorder/process_state.h"
#include "tests/support/test_suite.h"
#include "tests/support/write_file.h"

#include <sys/resource.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

namespace {

struct Run {
    int exitCode = -1;
    QString output;
};

Run record(const QStringList& arguments, const std::function<void()>& inChild = {},
           const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.setProcessEnvironment(environment);
    if (inChild)
        process.setChildProcessModifier(inChild);
    process.start(QStringLiteral(STALLSCOPE_RECORD), QStringList{QStringLiteral("-q")} + arguments);
    process.waitForFinished(60000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromLocal8Bit(process.readAll())};
}

void writeText(const QString& path, const QByteArray& text) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

using stallscope::testing::processState;
using stallscope::testing::readFile;

} // namespace

class TestRecordCli : public QObject {
    Q_OBJECT
private slots:
    void unwritableOutputStopsBeforeTheProgram_data() {
        QTest::addColumn<QString>("output");
        QTest::addColumn<QString>("why");
        QTest::newRow("missing folder") << "/nonexistent-stallscope/run.stallscope"
                                        << "does not exist";
        QTest::newRow("not writable") << "/proc/run.stallscope"
                                      << "cannot write in /proc";
        QTest::newRow("a folder") << "/tmp"
                                  << "is a folder";
    }
    void unwritableOutputStopsBeforeTheProgram() {
        QFETCH(QString, output);
        QFETCH(QString, why);
        QTemporaryDir dir;
        const QString marker = dir.filePath(QStringLiteral("started"));
        const Run run =
            record({QStringLiteral("-o"), output, QStringLiteral("--"), QStringLiteral("/bin/sh"),
                    QStringLiteral("-c"), QStringLiteral("touch '%1'").arg(marker)});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.output.contains(why) && run.output.contains(QStringLiteral("not started")),
                 qPrintable(run.output));
        QVERIFY(!QFile::exists(marker));
    }

    void unknownModeStopsBeforeTheProgram() {
        QTemporaryDir dir;
        const QString marker = dir.filePath(QStringLiteral("started"));
        const Run run =
            record({QStringLiteral("--mode"), QStringLiteral("fast"), QStringLiteral("-o"),
                    dir.filePath(QStringLiteral("run.stallscope")), QStringLiteral("--"),
                    QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                    QStringLiteral("touch '%1'").arg(marker)});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.output.contains(QStringLiteral("--mode 'fast' is neither full nor light")),
                 qPrintable(run.output));
        QVERIFY(!QFile::exists(marker));
    }

    // Each option's value is checked before the program starts: one line names the option, the
    // value and what it takes (exit 2); a value just inside each limit runs the program.
    void optionValuesAreCheckedBeforeTheProgram_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("grace");   // STALLSCOPE_RECORD_KILL_GRACE_MS, "" for none
        QTest::addColumn<QString>("refusal"); // the line's text, "" when the value is accepted
        const auto row = [](const char* name, const QStringList& options, const QString& refusal,
                            const QString& grace = {}) {
            QTest::newRow(name) << options << grace << refusal;
        };
        const auto depth = [](const char* value) {
            return QStringList{QStringLiteral("--stack-depth"), QString::fromUtf8(value)};
        };
        row("stack depth 0", depth("0"), "--stack-depth '0' is not a whole number in 1..96");
        row("stack depth 1", depth("1"), "");
        row("stack depth 96", depth("96"), "");
        row("stack depth 97", depth("97"), "--stack-depth '97' is not a whole number in 1..96");
        row("stack depth 1000000", depth("1000000"),
            "--stack-depth '1000000' is not a whole number in 1..96");
        row("stack depth 12x", depth("12x"), "--stack-depth '12x' is not a whole number in 1..96");
        row("stack depth empty", depth(""), "--stack-depth '' is not a whole number in 1..96");
        const auto flush = [](const char* value) {
            return QStringList{QStringLiteral("--flush-ms"), QString::fromUtf8(value)};
        };
        row("flush 0", flush("0"), "--flush-ms '0' is not a whole number in 10..1000");
        row("flush 9", flush("9"), "--flush-ms '9' is not a whole number in 10..1000");
        row("flush 10", flush("10"), "");
        row("flush 1000", flush("1000"), "");
        row("flush 1001", flush("1001"), "--flush-ms '1001' is not a whole number in 10..1000");
        const auto hz = [](const char* value) {
            return QStringList{QStringLiteral("--sample-hz"), QString::fromUtf8(value)};
        };
        row("sample -5", hz("-5"),
            "--sample-hz '-5' is not 0 (none) or a whole number in 1..10000");
        row("sample -1", hz("-1"),
            "--sample-hz '-1' is not 0 (none) or a whole number in 1..10000");
        row("sample 0", hz("0"), "");
        row("sample 1", hz("1"), "");
        row("sample 10000", hz("10000"), "");
        row("sample 10001", hz("10001"),
            "--sample-hz '10001' is not 0 (none) or a whole number in 1..10000");
        row("sample off", hz("off"),
            "--sample-hz 'off' is not 0 (none) or a whole number in 1..10000");
        const auto buffer = [](const char* value) {
            return QStringList{QStringLiteral("--buffer-size"), QString::fromUtf8(value)};
        };
        const auto bufferRefusal = [](const char* value) {
            return QStringLiteral(
                       "--buffer-size '%1' is not a size in 64K..256M (bytes, or with K, "
                       "M or G)")
                .arg(QString::fromUtf8(value));
        };
        row("buffer 65535", buffer("65535"), bufferRefusal("65535"));
        row("buffer 65536", buffer("65536"), "");
        row("buffer 64k", buffer("64k"), "");
        row("buffer 256M", buffer("256M"), "");
        row("buffer 268435457", buffer("268435457"), bufferRefusal("268435457"));
        row("buffer 257M", buffer("257M"), bufferRefusal("257M"));
        row("buffer 100G", buffer("100G"), bufferRefusal("100G"));
        row("buffer 8X", buffer("8X"), bufferRefusal("8X"));
        row("buffer 8MB", buffer("8MB"), bufferRefusal("8MB"));
        row("buffer past 2^64", buffer("17179869184G"), bufferRefusal("17179869184G"));
        row("buffer empty", buffer(""), bufferRefusal(""));
        row("output empty", {QStringLiteral("-o"), QString()}, "-o '' is not a file name");
        row("output empty, long", {QStringLiteral("--output"), QString()},
            "--output '' is not a file name");
        row("mode empty", {QStringLiteral("--mode"), QString()},
            "--mode '' is neither full nor light");
        row("mode light", {QStringLiteral("--mode"), QStringLiteral("light")}, "");
        row("kinds unknown", {QStringLiteral("--kinds"), QStringLiteral("kernel,foo")},
            "--kinds 'kernel,foo' is not a list of all,kernel,");
        row("kinds", {QStringLiteral("--kinds"), QStringLiteral("kernel,-nvtx")}, "");
        row("remap", {QStringLiteral("--remap"), QStringLiteral("/ci")},
            "--remap '/ci' is not OLD=NEW");
        row("remap ok", {QStringLiteral("--remap"), QStringLiteral("/ci=/home")}, "");
        row("library empty", {QStringLiteral("--library"), QString()},
            "--library '' is not a path");
        row("debug dir empty", {QStringLiteral("--debug-dir"), QString()},
            "--debug-dir '' is not a folder");
        // Capture control (recorder_config.h holds the ranges).
        const auto seconds = [](const char* option, const char* value) {
            return QStringList{QString::fromUtf8(option), QString::fromUtf8(value)};
        };
        const QString delayRefusal = "is not a number of seconds in 0..1000000";
        const QString durationRefusal = "is not a number of seconds in 0.001..1000000";
        row("delay 0", seconds("--delay", "0"), "");
        row("delay 1000000", seconds("--delay", "1000000"), "");
        row("delay 0.000000001", seconds("--delay", "0.000000001"), "");
        row("delay past the limit", seconds("--delay", "1000000.000000001"),
            "--delay '1000000.000000001' " + delayRefusal);
        row("delay 10 decimals", seconds("--delay", "0.0000000001"),
            "--delay '0.0000000001' " + delayRefusal);
        row("delay -1", seconds("--delay", "-1"), "--delay '-1' " + delayRefusal);
        row("delay 1s", seconds("--delay", "1s"), "--delay '1s' " + delayRefusal);
        row("delay .5", seconds("--delay", ".5"), "--delay '.5' " + delayRefusal);
        row("delay empty", seconds("--delay", ""), "--delay '' " + delayRefusal);
        row("duration 0.001", seconds("--duration", "0.001"), "");
        row("duration 0.000999999", seconds("--duration", "0.000999999"),
            "--duration '0.000999999' " + durationRefusal);
        row("duration 0", seconds("--duration", "0"), "--duration '0' " + durationRefusal);
        row("duration 1000000", seconds("--duration", "1000000"), "");
        row("duration 1000001", seconds("--duration", "1000001"),
            "--duration '1000001' " + durationRefusal);
        const QString rangeRefusal = "is not cuda-profiler-api, nvtx:NAME (NAME 1..1024 bytes)";
        row("range cuda-profiler-api", seconds("--capture-range", "cuda-profiler-api"), "");
        row("range cudaProfilerApi", seconds("--capture-range", "cudaProfilerApi"), "");
        row("range nvtx", seconds("--capture-range", "nvtx:train step"), "");
        row("range nvtx 1024 bytes",
            {QStringLiteral("--capture-range"), "nvtx:" + QString(1024, QLatin1Char('x'))}, "");
        row("range nvtx 1025 bytes",
            {QStringLiteral("--capture-range"), "nvtx:" + QString(1025, QLatin1Char('x'))},
            "--capture-range 'nvtx:xxx");
        row("range nvtx without a name", seconds("--capture-range", "nvtx:"),
            "--capture-range 'nvtx:' " + rangeRefusal);
        row("range nvtx alone", seconds("--capture-range", "nvtx"),
            "--capture-range 'nvtx' " + rangeRefusal);
        row("range end repeat",
            seconds("--capture-range", "nvtx:step") + seconds("--capture-range-end", "repeat"), "");
        row("range end always",
            seconds("--capture-range", "nvtx:step") + seconds("--capture-range-end", "always"),
            "--capture-range-end 'always' is neither stop (the first range) nor repeat");
        row("range end without a range", seconds("--capture-range-end", "stop"),
            "--capture-range-end 'stop' needs a --capture-range");
        const QString stepsRefusal = "is not A-B or A, steps counted from 1";
        row("steps 1", seconds("--capture-range", "nvtx:step") + seconds("--capture-steps", "1"),
            "");
        row("steps 3-1000000000",
            seconds("--capture-range", "cuda-profiler-api") +
                seconds("--capture-steps", "3-1000000000"),
            "");
        row("steps 3-1000000001",
            seconds("--capture-range", "nvtx:step") + seconds("--capture-steps", "3-1000000001"),
            "--capture-steps '3-1000000001' " + stepsRefusal);
        row("steps 0-3",
            seconds("--capture-range", "nvtx:step") + seconds("--capture-steps", "0-3"),
            "--capture-steps '0-3' " + stepsRefusal);
        row("steps 5-4",
            seconds("--capture-range", "nvtx:step") + seconds("--capture-steps", "5-4"),
            "--capture-steps '5-4' " + stepsRefusal);
        row("steps 4-4",
            seconds("--capture-range", "nvtx:step") + seconds("--capture-steps", "4-4"), "");
        row("steps without a range", seconds("--capture-steps", "2-3"),
            "--capture-steps '2-3' needs a --capture-range whose ranges are the steps");
        row("steps with a range end",
            seconds("--capture-range", "nvtx:step") + seconds("--capture-steps", "2-3") +
                seconds("--capture-range-end", "stop"),
            "--capture-range-end 'stop' cannot be given with --capture-steps");
        const QString ringRefusal = "is not a number of seconds in 0.1..86400";
        row("ring 0.1", seconds("--ring", "0.1"), "");
        row("ring 0.09", seconds("--ring", "0.09"), "--ring '0.09' " + ringRefusal);
        row("ring 86400", seconds("--ring", "86400"), "");
        row("ring 86401", seconds("--ring", "86401"), "--ring '86401' " + ringRefusal);
        row("slow step 2", seconds("--ring", "30") + seconds("--trigger-slow-step", "2"), "");
        row("slow step 1.9", seconds("--ring", "30") + seconds("--trigger-slow-step", "1.9"),
            "--trigger-slow-step '1.9' is not a factor in 2..1000");
        row("slow step without a ring", seconds("--trigger-slow-step", "5"),
            "--trigger-slow-step '5' needs a --ring");
        row("grace -1", {},
            "STALLSCOPE_RECORD_KILL_GRACE_MS '-1' is not a whole number in 0..3600000", "-1");
        row("grace 0", {}, "", "0");
        row("grace 3600000", {}, "", "3600000");
        row("grace 3600001", {},
            "STALLSCOPE_RECORD_KILL_GRACE_MS '3600001' is not a whole number in 0..3600000",
            "3600001");
        row("grace 1s", {},
            "STALLSCOPE_RECORD_KILL_GRACE_MS '1s' is not a whole number in 0..3600000", "1s");
    }
    void optionValuesAreCheckedBeforeTheProgram() {
        QFETCH(QStringList, options);
        QFETCH(QString, grace);
        QFETCH(QString, refusal);
        QTemporaryDir dir;
        const QString marker = dir.filePath(QStringLiteral("started"));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        if (!grace.isEmpty())
            environment.insert(QStringLiteral("STALLSCOPE_RECORD_KILL_GRACE_MS"), grace);
        QStringList arguments{QStringLiteral("--no-calibration"), QStringLiteral("--no-symbolize")};
        if (!options.contains(QStringLiteral("-o")) &&
            !options.contains(QStringLiteral("--output")))
            arguments << QStringLiteral("-o") << dir.filePath(QStringLiteral("o.stallscope"));
        const Run run =
            record(arguments + options +
                       QStringList{QStringLiteral("--"), QStringLiteral("/bin/sh"),
                                   QStringLiteral("-c"), QStringLiteral("touch '%1'").arg(marker)},
                   {}, environment);
        if (refusal.isEmpty()) {
            QVERIFY2(run.exitCode == 0, qPrintable(run.output));
            QVERIFY(QFile::exists(marker));
            return;
        }
        QCOMPARE(run.exitCode, 2);
        const QString line = run.output.trimmed();
        QVERIFY2(!line.contains(QLatin1Char('\n')), qPrintable(run.output));
        QVERIFY2(line.startsWith(QStringLiteral("stallscope-record: ") + refusal),
                 qPrintable(run.output));
        QVERIFY(!QFile::exists(marker));
    }

    // The capture options reach the program's recorder as the variables it reads
    // (RecorderConfig::fromEnvironment; tests/recorder/test_capture_control.cpp reads them back).
    void captureOptionsReachTheProgram() {
        QTemporaryDir dir;
        const QString seen = dir.filePath(QStringLiteral("environment"));
        const Run run = record({"--no-calibration", "--no-symbolize", "-o",
                                dir.filePath("o.stallscope"), "--delay", "1.50", "--duration", "2",
                                "--capture-range", "nvtx:train step", "--capture-range-end",
                                "repeat", "--", "/bin/sh", "-c", "env > '" + seen + "'"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.output));
        QFile file(seen);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QStringList capture;
        for (const QByteArray& line : file.readAll().split('\n'))
            if (line.startsWith("STALLSCOPE_CAPTURE") || line.startsWith("STALLSCOPE_DELAY") ||
                line.startsWith("STALLSCOPE_DURATION"))
                capture << QString::fromUtf8(line);
        capture.sort();
        QCOMPARE(capture, (QStringList{"STALLSCOPE_CAPTURE_RANGE=nvtx:train step",
                                       "STALLSCOPE_CAPTURE_RANGE_END=repeat",
                                       "STALLSCOPE_DELAY=1.5", "STALLSCOPE_DURATION=2"}));
    }

    void existingRecordingSurvivesUntilANewOneIsComplete() {
        QTemporaryDir dir;
        const QString session = dir.filePath(QStringLiteral("run.stallscope"));
        writeText(session, "yesterday's recording");
        Run run = record({QStringLiteral("-o"), session, QStringLiteral("/bin/true")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.output.contains(QStringLiteral("--force-overwrite")), qPrintable(run.output));
        QCOMPARE(readFile(session), QByteArray("yesterday's recording"));
        // A typo in the program name: nothing was recorded, nothing is replaced.
        run = record({QStringLiteral("--force-overwrite"), QStringLiteral("-o"), session,
                      QStringLiteral("/nonexistent/train")});
        QCOMPARE(run.exitCode, 127);
        QCOMPARE(readFile(session), QByteArray("yesterday's recording"));
        // One line, the first (issue 42: it came after a line about the calibration), for a path
        // and for a name looked up on PATH alike.
        for (const QString& missing :
             {QStringLiteral("/nonexistent/train"), QStringLiteral("no-such-program-xyz")}) {
            run = record(
                {QStringLiteral("-o"), dir.filePath(QStringLiteral("x.stallscope")), missing});
            QCOMPARE(run.exitCode, 127);
            QCOMPARE(run.output.trimmed(), QStringLiteral("stallscope-record: %1: no such program "
                                                          "(not a file, nor found on PATH)")
                                               .arg(missing));
        }
        run = record({QStringLiteral("--force-overwrite"), QStringLiteral("-o"), session,
                      QStringLiteral("/bin/true")});
        QCOMPARE(run.exitCode, 0);
        const auto loaded = stallscope::model::SessionLoader::load(session.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("run.stallscope")});
    }

    void unfinishedRecordingIsNotReplacedSilently() {
        QTemporaryDir dir;
        const QString partial = dir.filePath(QStringLiteral("run.recording.stallscope"));
        writeText(partial, "a recording whose recorder died");
        const QString session = dir.filePath(QStringLiteral("run.stallscope"));
        Run run = record({QStringLiteral("-o"), session, QStringLiteral("/bin/true")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.output.contains(partial), qPrintable(run.output));
        QCOMPARE(readFile(partial), QByteArray("a recording whose recorder died"));
        run = record({QStringLiteral("--force-overwrite"), QStringLiteral("-o"), session,
                      QStringLiteral("/bin/true")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(!QFile::exists(partial));
        QVERIFY(QFile::exists(session));
    }

    // Every ending says why in meta.incomplete_reason and exit_signal.
    void endingsSayWhy_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<int>("signal");
        QTest::newRow("exit 0, no CUDA") << "exit 0" << 0 << "never initialized CUDA" << 0;
        QTest::newRow("exit 3, no CUDA") << "exit 3" << 3 << "never initialized CUDA" << 0;
        QTest::newRow("SIGTERM") << "kill -TERM $$" << 128 + SIGTERM << "never initialized CUDA"
                                 << int(SIGTERM);
    }
    void endingsSayWhy() {
        QFETCH(QString, script);
        QFETCH(int, exitCode);
        QFETCH(QString, reason);
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString session = dir.filePath(QStringLiteral("end.stallscope"));
        const Run run = record({QStringLiteral("-o"), session, QStringLiteral("--"),
                                QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
        QCOMPARE(run.exitCode, exitCode);
        const auto loaded = stallscope::model::SessionLoader::load(session.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(loaded.session->status, std::string("incomplete"));
        const auto meta = [&](const char* key) {
            return QString::fromStdString(loaded.session->metaValue(key));
        };
        QVERIFY2(meta("incomplete_reason").contains(reason), qPrintable(meta("incomplete_reason")));
        QCOMPARE(meta("exit_signal"), signal ? QString::number(signal) : QString());
    }

    // A session that cannot be written (here: a file size limit, write() fails with EFBIG)
    // gives a non-zero exit and leaves no file behind.
    void sessionThatCannotBeFinishedLeavesNothing() {
        QTemporaryDir dir;
        const QString session = dir.filePath(QStringLiteral("full.stallscope"));
        const Run run = record({QStringLiteral("-o"), session, QStringLiteral("/bin/true")}, [] {
            ::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{8192, 8192};
            setrlimit(RLIMIT_FSIZE, &limit);
        });
        QCOMPARE(run.exitCode, 125);
        QVERIFY2(run.output.contains(QStringLiteral("cannot finish the session")),
                 qPrintable(run.output));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
    }

    // Python targets get recorder/python/sitecustomize.py: it wraps torch.profiler's
    // prepare_trace (here a stand-in package: CI has no torch), says nothing while the recorder
    // does not hold CUPTI (no GPU here: the notice itself is checked by tst_recorder_gpu), and
    // still runs the user's own sitecustomize, which it shadows.
    void pythonHookWrapsTheProfilerAndKeepsTheUsersSitecustomize() {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("no python3");
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("fake/torch/profiler")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("user")));
        writeText(dir.filePath(QStringLiteral("fake/torch/__init__.py")), "");
        writeText(dir.filePath(QStringLiteral("fake/torch/profiler/__init__.py")),
                  "from .profiler import _KinetoProfile\n");
        writeText(dir.filePath(QStringLiteral("fake/torch/profiler/profiler.py")),
                  "class _KinetoProfile:\n"
                  "    def __init__(self):\n"
                  "        self.activities = {'ProfilerActivity.CUDA'}\n"
                  "    def prepare_trace(self):\n"
                  "        print('prepared')\n");
        writeText(dir.filePath(QStringLiteral("user/sitecustomize.py")),
                  "print('user sitecustomize ran')\n");
        writeText(dir.filePath(QStringLiteral("script.py")),
                  "import torch.profiler.profiler as p\n"
                  "print('wrapped' if p._KinetoProfile.prepare_trace._stallscope else 'bare')\n"
                  "p._KinetoProfile().prepare_trace()\n");
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("PYTHONPATH"), dir.filePath(QStringLiteral("fake")) +
                                                             QLatin1Char(':') +
                                                             dir.filePath(QStringLiteral("user")));
        const Run run = record({QStringLiteral("-o"), dir.filePath(QStringLiteral("p.stallscope")),
                                QStringLiteral("--"), QStringLiteral("python3"),
                                dir.filePath(QStringLiteral("script.py"))},
                               {}, environment);
        QVERIFY2(run.output.contains(QStringLiteral("user sitecustomize ran\nwrapped\nprepared")),
                 qPrintable(run.output));
        QVERIFY2(!run.output.contains(QStringLiteral("owns CUPTI")), qPrintable(run.output));
    }

    // The program gets SIGTERM when stallscope-record dies (PR_SET_PDEATHSIG).
    void programDoesNotOutliveAKilledRecorder() {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(QStringLiteral("pid"));
        QProcess recorder;
        recorder.start(QStringLiteral(STALLSCOPE_RECORD),
                       {QStringLiteral("-q"), QStringLiteral("-o"),
                        dir.filePath(QStringLiteral("k.stallscope")), QStringLiteral("--"),
                        QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                        QStringLiteral("echo $$ > '%1'; exec sleep 60").arg(pidFile)});
        QVERIFY(recorder.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(readFile(pidFile).trimmed().toLongLong() > 0, 30000);
        const qint64 program = readFile(pidFile).trimmed().toLongLong();
        QTRY_VERIFY_WITH_TIMEOUT(processState(program) == 'S', 30000); // sleeping in `sleep`
        ::kill(pid_t(recorder.processId()), SIGKILL);
        recorder.waitForFinished();
        // Gone, or a zombie nobody reaps (a container's init): either way it no longer runs.
        QTRY_VERIFY_WITH_TIMEOUT(processState(program) == 0 || processState(program) == 'Z', 10000);
    }
};

STALLSCOPE_TEST_MAIN(TestRecordCli)
#include "tst_record_cli.moc"
