// Outputs of the `stallscope` batch commands are safe (issue 13): an output that is an input
// (any spelling, hard or symbolic link) is refused and the input stays byte for byte; an existing
// output is replaced only with --force; a write error (file size limit, full disk, missing folder)
// exits non-zero naming the file and the system's reason, and leaves neither the output nor a
// temporary file. Text from a file reaches the terminal with its control characters escaped.
#include "tests/support/sqlite_edit.h"
#include "tests/support/stallscope_process.h"
#include "tests/support/test_suite.h"
#include "tests/support/write_file.h"
#include "tests/views/tiny_session.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

using stallscope::testing::readFile;
using Run = stallscope::testing::StallscopeRun;

namespace {

// A torch.profiler trace small enough to write here: one step, a kernel and the sync on it.
const char* kTrace = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU X"}],
"traceEvents": [
 {"ph": "X", "cat": "python_function", "name": "train.py(3): step", "pid": 7, "tid": 7, "ts": 100, "dur": 50},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 101, "dur": 2, "args": {"cbid": 211, "correlation": 4}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 7, "tid": 7, "ts": 120, "dur": 10, "args": {"cbid": 131, "correlation": 5}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 104, "dur": 18, "args": {"device": 0, "stream": 7, "correlation": 4}}
]})";

// Temporary files a writer left beside its target.
QStringList leftovers(const QString& folder) {
    return QDir(folder).entryList({QStringLiteral(".*.tmp-*")}, QDir::Files | QDir::Hidden);
}

} // namespace

class OutputSafetyTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_session;
    QString m_trace;

    Run run(const QStringList& arguments, std::function<void()> inChild = {}) {
        return stallscope::testing::runStallscope(arguments, m_dir.filePath("cache"),
                                                  stallscope::testing::Display::None, inChild);
    }

    // The command `name` writing `out` from the test's session (its trace for convert).
    QStringList command(const QString& name, const QString& out, bool force = false) const {
        QStringList arguments =
            name == QLatin1String("convert")
                ? QStringList{QStringLiteral("--convert"), m_trace, QStringLiteral("-o"), out}
                : QStringList{QStringLiteral("--") + name, out, m_session};
        if (force)
            arguments << QStringLiteral("--force");
        return arguments;
    }
    QString inputOf(const QString& name) const {
        return name == QLatin1String("convert") ? m_trace : m_session;
    }

    static void addCommands() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("magic"); // how the command's output starts
        QTest::newRow("export-chrome") << QStringLiteral("export-chrome") << QByteArray("{");
        QTest::newRow("report") << QStringLiteral("report") << QByteArray("%PDF-");
        QTest::newRow("convert") << QStringLiteral("convert") << QByteArray("SQLite format 3");
    }

    // A write error: exit 1, one line naming `out` and containing `reason`, nothing written.
    static void expectWriteError(const Run& result, const QString& out, const QString& reason) {
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(
            result.err.startsWith(QStringLiteral("stallscope: ") + out + QStringLiteral(": ")) &&
                result.err.contains(reason),
            qPrintable(result.err));
        QVERIFY2(!result.out.contains(QStringLiteral("wrote")), qPrintable(result.out));
        QVERIFY(!QFile::exists(out));
        QCOMPARE(leftovers(QFileInfo(out).path()), QStringList());
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_session = m_dir.filePath(QStringLiteral("s.stallscope"));
        QString error;
        QVERIFY2(tiny::write(m_session, &error), qPrintable(error));
        m_trace = stallscope::testing::writeFile(m_dir, QStringLiteral("t.json"), kTrace);
        QVERIFY(!m_trace.isEmpty());
    }

    // The reported cases, and other spellings of the input with --force.
    void inPlaceOutputsAreRefused_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("spelling");
        QTest::addColumn<bool>("force");
        for (const char* name : {"export-chrome", "report", "convert"}) {
            QTest::addRow("%s same path", name) << name << "same" << false;
            QTest::addRow("%s same path, --force", name) << name << "same" << true;
            QTest::addRow("%s ./name, --force", name) << name << "dot" << true;
            QTest::addRow("%s hard link, --force", name) << name << "hard link" << true;
            QTest::addRow("%s symbolic link, --force", name) << name << "symlink" << true;
        }
    }
    void inPlaceOutputsAreRefused() {
        QFETCH(QString, name);
        QFETCH(QString, spelling);
        QFETCH(bool, force);
        const QString input = inputOf(name);
        QString out = input;
        if (spelling == QLatin1String("dot"))
            out = QFileInfo(input).path() + QStringLiteral("/./") + QFileInfo(input).fileName();
        if (spelling == QLatin1String("hard link") || spelling == QLatin1String("symlink")) {
            out = m_dir.filePath(QStringLiteral("alias-") + QFileInfo(input).fileName());
            QFile::remove(out);
            const int made = spelling == QLatin1String("symlink")
                                 ? symlink(input.toUtf8().constData(), out.toUtf8().constData())
                                 : link(input.toUtf8().constData(), out.toUtf8().constData());
            QCOMPARE(made, 0);
        }
        const QByteArray before = readFile(input);
        QVERIFY(!before.isEmpty());
        const Run result = run(command(name, out, force));
        QCOMPARE(result.exitCode, 2);
        QCOMPARE(result.err, QStringLiteral("stallscope: %1: is the input %2; refusing to "
                                            "overwrite it\n")
                                 .arg(out, input));
        QVERIFY(result.out.isEmpty());
        QCOMPARE(readFile(input), before);
        QCOMPARE(leftovers(m_dir.path()), QStringList());
    }

    void existingOutputNeedsForce_data() { addCommands(); }
    void existingOutputNeedsForce() {
        QFETCH(QString, name);
        QFETCH(QByteArray, magic);
        const QString out = m_dir.filePath(name + QStringLiteral(".existing"));
        const QString existing =
            stallscope::testing::writeFile(m_dir, QFileInfo(out).fileName(), "keep me");
        QVERIFY(!existing.isEmpty());
        const Run kept = run(command(name, out));
        QCOMPARE(kept.exitCode, 2);
        QCOMPARE(
            kept.err,
            QStringLiteral("stallscope: %1: already exists; add --force to replace it\n").arg(out));
        QCOMPARE(readFile(out), QByteArray("keep me"));

        const Run replaced = run(command(name, out, true));
        QVERIFY2(replaced.exitCode == 0, qPrintable(replaced.err));
        QVERIFY2(replaced.out.startsWith(QStringLiteral("stallscope: wrote ") + out),
                 qPrintable(replaced.out));
        QVERIFY2(readFile(out).startsWith(magic), readFile(out).left(20).constData());
        QCOMPARE(leftovers(m_dir.path()), QStringList());
    }

    void forceGoesWithAnOutput() {
        const Run result = run({QStringLiteral("--info"), QStringLiteral("--force"), m_session});
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(QStringLiteral("--force goes with --convert")),
                 qPrintable(result.err));
    }

    // A real OS error without mounting anything: past RLIMIT_FSIZE (with SIGXFSZ ignored) write()
    // fails with EFBIG, where a full disk fails with ENOSPC.
    void fileSizeLimitLeavesNothing_data() { addCommands(); }
    void fileSizeLimitLeavesNothing() {
        QFETCH(QString, name);
        QTemporaryDir target;
        const QString out = target.filePath(QStringLiteral("out"));
        const Run result = run(command(name, out), [] {
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{1024, 1024};
            setrlimit(RLIMIT_FSIZE, &limit);
        });
        expectWriteError(result, out,
                         name == QLatin1String("convert")
                             ? QStringLiteral("cannot write the session")
                             : QStringLiteral("cannot write: File too large"));
        QVERIFY(
            QDir(target.path()).isEmpty(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot));
    }

    // A full disk for real, where this process may mount a tmpfs (root with CAP_SYS_ADMIN).
    void fullDiskLeavesNothing_data() { addCommands(); }
    void fullDiskLeavesNothing() {
        QFETCH(QString, name);
        QTemporaryDir target;
        const QByteArray folder = target.path().toUtf8();
        if (mount("tmpfs", folder.constData(), "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") != 0)
            QSKIP(qPrintable(QStringLiteral("cannot mount a tmpfs here: %1")
                                 .arg(QString::fromLocal8Bit(std::strerror(errno)))));
        // Full: a filler takes every block.
        QFile filler(target.filePath(QStringLiteral("filler")));
        QVERIFY(filler.open(QIODevice::WriteOnly | QIODevice::Unbuffered));
        while (filler.write(QByteArray(4096, 'x')) > 0) {
        }
        filler.close();
        const QString out = target.filePath(QStringLiteral("out"));
        const Run result = run(command(name, out));
        const QStringList entries =
            QDir(target.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
        umount2(folder.constData(), MNT_DETACH);
        expectWriteError(result, out,
                         name == QLatin1String("convert")
                             ? QStringLiteral("cannot write the session")
                             : QStringLiteral("No space left on device"));
        QCOMPARE(entries, QStringList{QStringLiteral("filler")});
    }

    void missingFolderIsAWriteError_data() { addCommands(); }
    void missingFolderIsAWriteError() {
        QFETCH(QString, name);
        const QString out = m_dir.filePath(QStringLiteral("no-such-folder/out"));
        expectWriteError(run(command(name, out)), out, QStringLiteral("No such file or directory"));
    }

    // Root writes into read-only folders, so only another user can see this error.
    void readOnlyFolderIsAWriteError() {
        if (geteuid() == 0)
            QSKIP("root may write into a read-only folder");
        QTemporaryDir target;
        QVERIFY(QFile::setPermissions(target.path(), QFile::ReadOwner | QFile::ExeOwner));
        const QString out = target.filePath(QStringLiteral("out.json"));
        const Run result = run(command(QStringLiteral("export-chrome"), out));
        QFile::setPermissions(target.path(),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        expectWriteError(result, out, QStringLiteral("cannot write: Permission denied"));
    }

    // A meta value that would retitle the terminal, kernel names and a file name with escapes.
    void terminalOutputIsSanitized() {
        const QString path = m_dir.filePath(QStringLiteral("hostile.stallscope"));
        QString error;
        QVERIFY2(tiny::write(path, &error), qPrintable(error));
        stallscope::testing::execSql(
            path.toStdString(),
            "UPDATE meta SET value = 'train.py ' || char(27) || ']0;pwned' || char(7) "
            "WHERE key = 'command';"
            "UPDATE processes SET command = 'train.py ' || char(27) || ']0;pwned' || char(7);"
            "UPDATE strings SET text = text || char(27) || '[2J' || char(155) || char(127);");
        const Run info = run({QStringLiteral("--info"), path});
        QVERIFY2(info.exitCode == 0, qPrintable(info.err));
        QVERIFY2(info.out.contains(QStringLiteral("train.py \\x1b]0;pwned\\x07")),
                 qPrintable(info.out));
        const Run insights = run({QStringLiteral("--insights"), path});
        QVERIFY2(insights.exitCode == 0, qPrintable(insights.err));
        for (const Run& result : {info, insights})
            for (const QString& text : {result.out, result.err})
                for (QChar control : {QChar(0x1b), QChar(0x07), QChar(0x9b), QChar(0x7f)})
                    QVERIFY2(!text.contains(control),
                             qPrintable(text.toUtf8().toPercentEncoding()));

        const QString named = m_dir.filePath(QStringLiteral("bad\x1b[31m.stallscope"));
        const Run missing = run({QStringLiteral("--info"), named});
        QVERIFY(missing.exitCode > 0);
        QVERIFY2(missing.err.startsWith(QStringLiteral("stallscope: ") + m_dir.path() +
                                        QStringLiteral("/bad\\x1b[31m.stallscope: ")),
                 qPrintable(missing.err));
        QVERIFY(!missing.err.contains(QChar(0x1b)));
    }

    // Issue 40: a meta value printed its own "Duration:" line, and a 300 MB one crashed the PDF
    // report. Each value is one line, cut with its size; both reports are written.
    void hugeAndMultiLineMetaStayOneShortLine() {
        const QString path = m_dir.filePath(QStringLiteral("huge-meta.stallscope"));
        QString error;
        QVERIFY2(tiny::write(path, &error), qPrintable(error));
        stallscope::testing::execSql(
            path.toStdString(),
            "UPDATE meta SET value = 'train.py' || char(10) || 'Duration: 0 s' || "
            "char(10) || replace(hex(zeroblob(10000000)), '0', 'x') WHERE key = 'command';"
            "UPDATE meta SET value = replace(hex(zeroblob(5000000)), '0', 'y') WHERE key = "
            "'host';");
        const Run info = run({QStringLiteral("--info"), path});
        QVERIFY2(info.exitCode == 0, qPrintable(info.err));
        const QStringList lines = info.out.split(u'\n');
        QCOMPARE(lines.filter(QRegularExpression(QStringLiteral("^\\s*Duration"))).size(), 1);
        const QStringList command = lines.filter(QStringLiteral("train.py"));
        QCOMPARE(command.size(), 1);
        QVERIFY2(command.front().contains(QStringLiteral("train.py\\x0aDuration: 0 s\\x0a")),
                 qPrintable(command.front().left(200)));
        QVERIFY2(command.front().endsWith(QStringLiteral("… (20000023 bytes)")),
                 qPrintable(command.front().right(80)));
        QVERIFY(info.out.size() < 20000); // not 30 MB
        for (const QString& report : {QStringLiteral("meta.pdf"), QStringLiteral("meta.html")}) {
            const QString out = m_dir.filePath(report);
            const Run written = run({QStringLiteral("--report"), out, path});
            QVERIFY2(written.exitCode == 0, qPrintable(written.err));
            QVERIFY(QFileInfo(out).size() < 5'000'000);
        }
    }

    // A name with a line feed printed a "Fix:" line of its own in --insights and --compare.
    void namesCannotPrintLinesOfTheirOwn() {
        const QString path = m_dir.filePath(QStringLiteral("lines.stallscope"));
        QFile::remove(path);
        QVERIFY(QFile::copy(QStringLiteral(STALLSCOPE_SOURCE_DIR "/resources/sample.stallscope"),
                            path));
        stallscope::testing::execSql(
            path.toStdString(), "UPDATE strings SET text = text || char(10) || 'Status: FAKE';"
                                "UPDATE frames SET function = function || char(10) || 'Fix: FAKE', "
                                "file = file || char(13) || char(10) || 'FAKE';");
        for (const QStringList& arguments :
             {QStringList{QStringLiteral("--insights"), path},
              QStringList{QStringLiteral("--compare"), path, path}}) {
            const Run result = run(arguments);
            QVERIFY2(result.exitCode == 0, qPrintable(result.err));
            QVERIFY2(result.out.contains(QStringLiteral("\\x0aFix: FAKE")) ||
                         result.out.contains(QStringLiteral("\\x0aStatus: FAKE")),
                     qPrintable(result.out.left(2000)));
            for (const QString& line : result.out.split(u'\n'))
                QVERIFY2(!line.trimmed().startsWith(QStringLiteral("Fix: FAKE")) &&
                             !line.trimmed().startsWith(QStringLiteral("FAKE")) &&
                             !line.trimmed().startsWith(QStringLiteral("Status: FAKE")),
                         qPrintable(line));
        }
    }

    // `--export-chrome z.stallscope-journal z.stallscope` needed no --force and broke the input.
    void anInputsSideFileIsNoOutput() {
        for (const char* suffix : {"-wal", "-shm", "-journal"}) {
            const QString out = m_session + QLatin1String(suffix);
            const Run result = run(command(QStringLiteral("export-chrome"), out, true));
            QCOMPARE(result.exitCode, 2); // refused before any work, as every bad output
            QVERIFY2(result.err.contains(out + QStringLiteral(": is a file SQLite keeps beside "
                                                              "the input ")),
                     qPrintable(result.err));
            QVERIFY(!QFile::exists(out));
        }
    }

    // `--sarif X --junit X --force` overwrote its own first report.
    void oneFileForBothCiReportsIsRefused() {
        const QString both = m_dir.filePath(QStringLiteral("ci.xml"));
        const Run result =
            run({QStringLiteral("--insights"), m_session, QStringLiteral("--sarif"), both,
                 QStringLiteral("--junit"), m_dir.filePath(QStringLiteral("./ci.xml")),
                 QStringLiteral("--force")});
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(QStringLiteral("named by both --sarif and --junit")),
                 qPrintable(result.err));
        QVERIFY(!QFile::exists(both));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(OutputSafetyTest)
#include "tst_output_safety.moc"
