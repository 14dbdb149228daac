// format/output_file.h: an output never replaces an input (by device and inode, whatever the
// spelling), replaces an existing file only when allowed, and a failed write leaves neither a
// partial file nor its temporary behind. format/terminal_text.h: control characters escaped.
#include "format/output_file.h"
#include "format/sqlite_database.h"
#include "format/terminal_text.h"
#include "tests/support/test_suite.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>

using stallscope::format::checkOutputPath;
using stallscope::format::OutputFile;
using stallscope::format::OutputPolicy;
using stallscope::format::terminalSafe;
using stallscope::format::writeOutputFile;

namespace {

QByteArray contentOf(const std::string& path) {
    QFile file(QString::fromStdString(path));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

// Every entry of `dir`, hidden ones (a temporary file) included.
QStringList entriesOf(const QTemporaryDir& dir) {
    return QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

} // namespace

class TestOutputFile : public QObject {
    Q_OBJECT
private slots:
    void refusesAnInputWhateverItsSpelling_data() {
        QTest::addColumn<QString>("spelling");
        QTest::newRow("same path") << QStringLiteral("input.bin");
        QTest::newRow("dot slash") << QStringLiteral("./input.bin");
        QTest::newRow("hard link") << QStringLiteral("hard.bin");
        QTest::newRow("symbolic link") << QStringLiteral("soft.bin");
    }
    void refusesAnInputWhateverItsSpelling() {
        QFETCH(QString, spelling);
        QTemporaryDir dir;
        const std::string input = dir.filePath(QStringLiteral("input.bin")).toStdString();
        std::string error;
        QVERIFY2(writeOutputFile(input, "original", {}, &error), error.c_str());
        QCOMPARE(link(input.c_str(), dir.filePath(QStringLiteral("hard.bin")).toUtf8()), 0);
        QCOMPARE(symlink(input.c_str(), dir.filePath(QStringLiteral("soft.bin")).toUtf8()), 0);
        const std::string output = dir.filePath(spelling).toStdString();
        OutputPolicy policy;
        policy.replaceExisting = true; // even then
        policy.inputs = {input};
        QVERIFY(!writeOutputFile(output, "replaced", policy, &error));
        QCOMPARE(QString::fromStdString(error),
                 QString::fromStdString(output + ": is the input " + input +
                                        "; refusing to overwrite it"));
        QCOMPARE(contentOf(input), QByteArray("original"));
        QCOMPARE(entriesOf(dir).size(), 3);
    }

    void replacesAnExistingFileOnlyWhenAllowed() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("out.txt")).toStdString();
        std::string error;
        QVERIFY2(writeOutputFile(path, "first", {}, &error), error.c_str());
        QCOMPARE(contentOf(path), QByteArray("first"));
        OutputPolicy keep;
        keep.replaceHint = "add --force to replace it";
        QVERIFY(!writeOutputFile(path, "second", keep, &error));
        QCOMPARE(error, path + ": already exists; add --force to replace it");
        QCOMPARE(contentOf(path), QByteArray("first"));
        OutputPolicy replace;
        replace.replaceExisting = true;
        QVERIFY2(writeOutputFile(path, "second", replace, &error), error.c_str());
        QCOMPARE(contentOf(path), QByteArray("second"));
        QCOMPARE(entriesOf(dir), QStringList{QStringLiteral("out.txt")});
    }

    // Appearing between the check and the rename is caught too (no silent replacement).
    void aTargetCreatedMeanwhileIsKept() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("race.txt")).toStdString();
        OutputFile file;
        std::string error;
        QVERIFY2(file.create(path, {}, &error), error.c_str());
        QCOMPARE(write(file.descriptor(), "mine", 4), ssize_t(4));
        QFile other(QString::fromStdString(path));
        QVERIFY(other.open(QIODevice::WriteOnly));
        other.write("theirs");
        other.close();
        QVERIFY(!file.commit(&error));
        QCOMPARE(error, path + ": already exists");
        QCOMPARE(contentOf(path), QByteArray("theirs"));
        QCOMPARE(entriesOf(dir), QStringList{QStringLiteral("race.txt")});
    }

    void nothingLeftUnlessCommitted() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("never.txt")).toStdString();
        {
            OutputFile file;
            std::string error;
            QVERIFY2(file.create(path, {}, &error), error.c_str());
            QVERIFY(QFile::exists(QString::fromStdString(file.temporaryPath())));
            QCOMPARE(QFileInfo(QString::fromStdString(file.temporaryPath())).path(), dir.path());
        }
        QVERIFY(entriesOf(dir).isEmpty());
    }

    void missingFolderNamesTheFileAndTheReason() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("no/such/out.txt")).toStdString();
        std::string error;
        QVERIFY(!writeOutputFile(path, "x", {}, &error));
        QCOMPARE(error, path + ": cannot write: No such file or directory");
    }

    void refusesWhatIsNotAFile() {
        QTemporaryDir dir;
        OutputPolicy replace;
        replace.replaceExisting = true;
        QCOMPARE(checkOutputPath(dir.path().toStdString(), replace),
                 dir.path().toStdString() + ": exists and is not a regular file");
        QCOMPARE(checkOutputPath("/dev/null", replace),
                 std::string("/dev/null: exists and is not a regular file"));
    }

    // A real write error without mounting anything: past RLIMIT_FSIZE (SIGXFSZ ignored) write()
    // fails with EFBIG, as a full disk fails with ENOSPC.
    void writeErrorLeavesNothing() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("big.bin")).toStdString();
        rlimit saved{};
        QCOMPARE(getrlimit(RLIMIT_FSIZE, &saved), 0);
        const auto previous = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limited = saved;
        limited.rlim_cur = 4096;
        QCOMPARE(setrlimit(RLIMIT_FSIZE, &limited), 0);
        std::string error;
        const bool written = writeOutputFile(path, std::string(10'000, 'x'), {}, &error);
        setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, previous);
        QVERIFY(!written);
        QCOMPARE(error, path + ": cannot write: File too large");
        QVERIFY(entriesOf(dir).isEmpty());
    }

    // What the umask gives a new file (0640 under 027), not the temporary file's 0600.
    void newFilesGetTheUsualPermissions() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("mode.txt")).toStdString();
        const mode_t mask = umask(027);
        std::string error;
        const bool written = writeOutputFile(path, "x", {}, &error);
        umask(mask);
        QVERIFY2(written, error.c_str());
        struct stat status {};
        QCOMPARE(stat(path.c_str(), &status), 0);
        QCOMPARE(status.st_mode & 0777, mode_t(0640));
    }

    // Issue 40: `--export-chrome y.stallscope-wal --force y.stallscope` replaced the input's WAL.
    void anInputsSideFilesAreTheInput_data() {
        QTest::addColumn<QString>("suffix");
        QTest::addColumn<bool>("exists");
        for (const char* suffix : stallscope::format::kSqliteSideFileSuffixes) {
            QTest::newRow(suffix) << QString::fromLatin1(suffix) << false;
            QTest::newRow(qPrintable(QStringLiteral("%1, existing").arg(suffix)))
                << QString::fromLatin1(suffix) << true;
        }
    }
    void anInputsSideFilesAreTheInput() {
        QFETCH(QString, suffix);
        QFETCH(bool, exists);
        QTemporaryDir dir;
        const std::string input = dir.filePath(QStringLiteral("y.stallscope")).toStdString();
        std::string error;
        QVERIFY2(writeOutputFile(input, "session", {}, &error), error.c_str());
        const std::string side = input + suffix.toStdString();
        if (exists)
            QVERIFY2(writeOutputFile(side, "side", {}, &error), error.c_str());
        OutputPolicy policy;
        policy.replaceExisting = true;
        policy.inputs = {dir.filePath(QStringLiteral("./y.stallscope")).toStdString()};
        const std::string spelled = dir.filePath(QStringLiteral("../%1/y.stallscope%2")
                                                     .arg(QFileInfo(dir.path()).fileName(), suffix))
                                        .toStdString();
        QVERIFY(!writeOutputFile(spelled, "export", policy, &error));
        QVERIFY2(error.find(": is a file SQLite keeps beside the input") != std::string::npos,
                 error.c_str());
        QCOMPARE(contentOf(side), exists ? QByteArray("side") : QByteArray("<missing>"));
        // Another name beside it is an ordinary output.
        QVERIFY2(writeOutputFile(input + "-walnut", "export", policy, &error), error.c_str());
    }

    void aDanglingLinkIsNamed() {
        QTemporaryDir dir;
        const std::string link = dir.filePath(QStringLiteral("out.json")).toStdString();
        QCOMPARE(symlink(dir.filePath(QStringLiteral("missing/x.json")).toUtf8().constData(),
                         link.c_str()),
                 0);
        std::string error;
        QVERIFY(!writeOutputFile(link, "x", {}, &error));
        QCOMPARE(error, link + ": is a symbolic link to a file that does not exist; refusing to "
                               "write through it");
    }

    // A writer killed by SIGTERM (Ctrl+C, `timeout`) removes its temporary file and SQLite's
    // files beside it, then dies of the signal.
    void aSignalRemovesTheTemporaries() {
        QTemporaryDir dir;
        const std::string target = dir.filePath(QStringLiteral("out.session")).toStdString();
        int ready[2];
        QCOMPARE(pipe(ready), 0);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            std::signal(SIGTERM, SIG_DFL); // as in a program: QTest's handler is not taken over
            stallscope::format::removeTemporaryOutputsOnSignals();
            static OutputFile output; // never destroyed: only the handler may clean up
            std::string error;
            if (!output.create(target, {}, &error))
                _exit(2);
            FILE* journal = std::fopen((output.temporaryPath() + "-journal").c_str(), "w");
            if (!journal || std::fputs("journal", journal) < 0 || std::fclose(journal) != 0)
                _exit(3);
            const char byte = 1;
            if (write(ready[1], &byte, 1) != 1)
                _exit(4);
            pause();
            _exit(0);
        }
        char byte = 0;
        QCOMPARE(read(ready[0], &byte, 1), ssize_t(1));
        QCOMPARE(entriesOf(dir).size(), 2); // the temporary file and its journal
        kill(child, SIGTERM);
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        close(ready[0]);
        close(ready[1]);
        QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
        QCOMPARE(entriesOf(dir), QStringList());
    }

    // What a writer killed by SIGKILL left (no code ran) is removed by the next writer of the
    // same target, by the pid in its name; a running writer's is not.
    void staleTemporariesOfTheTargetGo() {
        QTemporaryDir dir;
        const pid_t gone = fork();
        if (gone == 0)
            _exit(0);
        QVERIFY(gone > 0);
        QCOMPARE(waitpid(gone, nullptr, 0), gone);
        const QString stale = QStringLiteral(".out.json.tmp-%1-AbC123").arg(gone);
        const QString running = QStringLiteral(".out.json.tmp-%1-XyZ789").arg(getpid());
        const QString otherTarget = QStringLiteral(".other.json.tmp-%1-AbC123").arg(gone);
        std::string error;
        for (const QString& name : {stale, stale + "-journal", running, otherTarget})
            QVERIFY2(writeOutputFile(dir.filePath(name).toStdString(), "x", {}, &error),
                     error.c_str());
        QVERIFY2(writeOutputFile(dir.filePath(QStringLiteral("out.json")).toStdString(), "{}", {},
                                 &error),
                 error.c_str());
        QStringList expected{running, otherTarget, QStringLiteral("out.json")};
        expected.sort();
        QStringList left = entriesOf(dir);
        left.sort();
        QCOMPARE(left, expected);
    }

    void clippedAndShownText() {
        using stallscope::format::clippedText;
        using stallscope::format::shownLine;
        QCOMPARE(clippedText("abcdef", 6), std::string("abcdef"));
        QCOMPARE(clippedText("abcdefg", 6), std::string("abcdef… (7 bytes)"));
        QCOMPARE(clippedText("abc", 6, 300000000), std::string("abc… (300000000 bytes)"));
        QCOMPARE(clippedText("aµb", 2), std::string("a… (4 bytes)")); // not inside the µ
        QCOMPARE(shownLine("ls\nDuration: 0 s"), std::string("ls\\x0aDuration: 0 s"));
        QCOMPARE(shownLine(std::string(5000, 'x'), 2048),
                 std::string(2048, 'x') + "… (5000 bytes)");
        const std::string kept = clippedText(std::string(9000, 'z'), 4096); // as loaded
        QCOMPARE(shownLine(kept), kept);
    }

    void terminalText_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("keepNewlines");
        QTest::addColumn<QByteArray>("shown");
        QTest::newRow("plain") << QByteArray("kernel<float>(a, b)\tx") << true
                               << QByteArray("kernel<float>(a, b)\tx");
        QTest::newRow("title escape")
            << QByteArray("x\x1b]0;pwned\x07y") << true << QByteArray("x\\x1b]0;pwned\\x07y");
        QTest::newRow("carriage return, DEL")
            << QByteArray("a\rb\x7f") << true << QByteArray("a\\x0db\\x7f");
        QTest::newRow("first and last C0")
            << QByteArray("\x01|\x1f", 3) << true << QByteArray("\\x01|\\x1f");
        QTest::newRow("NUL") << QByteArray("a\0b", 3) << true << QByteArray("a\\x00b");
        QTest::newRow("newline kept") << QByteArray("a\nb") << true << QByteArray("a\nb");
        QTest::newRow("newline escaped") << QByteArray("a\nb") << false << QByteArray("a\\x0ab");
        QTest::newRow("C1 CSI and last C1") << QByteArray("\xc2\x9b"
                                                          "31m\xc2\x9f")
                                            << true << QByteArray("\\u009b31m\\u009f");
        QTest::newRow("first after C1 stays")
            << QByteArray("\xc2\xa0\xc2\x80") << true << QByteArray("\xc2\xa0\\u0080");
        QTest::newRow("UTF-8 stays")
            << QByteArray("1.5 µs · 🚀") << true << QByteArray("1.5 µs · 🚀");
        QTest::newRow("raw 8-bit CSI") << QByteArray("\x9b"
                                                     "2J")
                                       << true << QByteArray("\\x9b2J");
        QTest::newRow("truncated sequence")
            << QByteArray("ab\xe2\x82") << true << QByteArray("ab\\xe2\\x82");
        QTest::newRow("overlong ESC") << QByteArray("\xc0\x9b") << true << QByteArray("\\xc0\\x9b");
        QTest::newRow("surrogate")
            << QByteArray("\xed\xa0\x80") << true << QByteArray("\\xed\\xa0\\x80");
    }
    void terminalText() {
        QFETCH(QByteArray, text);
        QFETCH(bool, keepNewlines);
        QFETCH(QByteArray, shown);
        const std::string safe =
            terminalSafe(std::string_view(text.constData(), size_t(text.size())), keepNewlines);
        QCOMPARE(QByteArray::fromStdString(safe), shown);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestOutputFile)
#include "test_output_file.moc"
