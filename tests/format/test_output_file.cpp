// format/output_file.h: an output never replaces an input (by device and inode, whatever the
// spelling), replaces an existing file only when allowed, and a failed write leaves neither a
// partial file nor its temporary behind. format/terminal_text.h: control characters escaped.
#include "format/output_file.h"
#include "format/terminal_text.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
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

QTEST_GUILESS_MAIN(TestOutputFile)
#include "test_output_file.moc"
