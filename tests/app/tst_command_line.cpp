// The `stallscope` executable as a user runs it: --info prints the summary headless and exits 0,
// bad files exit non-zero with a one-line message naming the file; --version, --help; the batch
// modes --insights [--json], --convert and --export-chrome on the real GPU recording and on real
// torch.profiler traces.
#include "format/sqlite_database.h"
#include "tests/support/small_session.h"
#include "tests/support/stallscope_process.h"
#include "tests/support/test_suite.h"
#include "tests/support/write_file.h"
#include "tests/views/tiny_session.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

class CommandLineTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    using Run = stallscope::testing::StallscopeRun;
    using Display = stallscope::testing::Display;

    static QString sourcePath(const char* relative) {
        return QStringLiteral(STALLSCOPE_SOURCE_DIR "/") + QLatin1String(relative);
    }

    // Converted traces are cached: keep the cache inside the test's folder.
    Run run(const QStringList& arguments, Display display = Display::None) {
        return stallscope::testing::runStallscope(arguments, m_dir.filePath("cache"), display);
    }

    // Empty when the write failed (which failed the test).
    QString writeFile(const QString& name, const QByteArray& bytes) {
        return stallscope::testing::writeFile(m_dir, name, bytes);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void infoPrintsSummary() {
        const QString path = m_dir.filePath(QStringLiteral("run.stallscope"));
        QString error;
        QVERIFY2(tiny::write(path, &error), qPrintable(error));
        const Run result = run({QStringLiteral("--info"), path});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QVERIFY2(result.out.contains(QString::fromLatin1(tiny::kCommand)), qPrintable(result.out));
        QVERIFY2(result.out.contains(QString::fromLatin1(tiny::kHost)), qPrintable(result.out));
        QVERIFY2(result.out.contains(QString::fromLatin1(tiny::kGpu)), qPrintable(result.out));
        QVERIFY2(result.out.contains(QStringLiteral("complete")), qPrintable(result.out));
        QVERIFY2(result.err.isEmpty(), qPrintable(result.err));
        // Option after the file works too.
        QCOMPARE(run({path, QStringLiteral("--info")}).out, result.out);
    }

    // The ranks of one job (issue 16): several files, or their folder, open as one run.
    void severalSessionsAreOneRun() {
        QDir().mkpath(m_dir.filePath(QStringLiteral("ddp")));
        QStringList ranks;
        for (int rank : {1, 0}) {
            const QString path = m_dir.filePath(QStringLiteral("ddp/rank%1.stallscope").arg(rank));
            QString error;
            QVERIFY2(tiny::write(path, &error), qPrintable(error));
            stallscope::format::Database db;
            std::string message;
            QVERIFY(db.open(path.toStdString(), stallscope::format::Database::Mode::ReadWrite,
                            &message));
            QVERIFY(db.exec("UPDATE processes SET pid = " + std::to_string(4242 + rank) +
                                "; INSERT INTO process_ranks (process_id, rank, world_size, "
                                "launcher) VALUES (1, " +
                                std::to_string(rank) + ", 2, 'torchrun')",
                            &message));
            ranks << path;
        }
        const Run files = run({QStringLiteral("--info"), ranks[0], ranks[1]});
        QVERIFY2(files.exitCode == 0, qPrintable(files.err));
        QVERIFY2(files.out.contains(QStringLiteral("2 (rank 0 … 1), torchrun")),
                 qPrintable(files.out));
        QVERIFY2(files.out.contains(QRegularExpression(QStringLiteral("Processes\\W+2\\b"))),
                 qPrintable(files.out));
        const Run folder = run({QStringLiteral("--info"), m_dir.filePath(QStringLiteral("ddp"))});
        QVERIFY2(folder.exitCode == 0, qPrintable(folder.err));
        QVERIFY2(folder.out.contains(QStringLiteral("2 (rank 0 … 1), torchrun")),
                 qPrintable(folder.out));
        // An output that is one of the inputs is refused, and the input stays as it was.
        const QByteArray before = [&] {
            QFile file(ranks[1]);
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        }();
        const Run clobber = run(
            {QStringLiteral("--report"), ranks[1], QStringLiteral("--force"), ranks[0], ranks[1]});
        QVERIFY(clobber.exitCode != 0);
        QVERIFY2(clobber.err.contains(ranks[1]), qPrintable(clobber.err));
        QFile after(ranks[1]);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), before);
    }

    void infoWarnsAboutUnfinishedRecording() {
        const QString path = m_dir.filePath(QStringLiteral("killed.stallscope"));
        QString error;
        QVERIFY2(tiny::write(path, &error, "recording"), qPrintable(error));
        const Run result = run({QStringLiteral("--info"), path});
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.err.startsWith(QStringLiteral("stallscope: warning: ")),
                 qPrintable(result.err));
    }

    void infoFailsOnBadFile_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("create");
        QTest::newRow("missing") << QStringLiteral("missing.stallscope") << QByteArray() << false;
        QTest::newRow("zero bytes") << QStringLiteral("empty.stallscope") << QByteArray() << true;
        QTest::newRow("not SQLite")
            << QStringLiteral("text.stallscope") << QByteArray("hello\n").repeated(500) << true;
    }
    void infoFailsOnBadFile() {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(bool, create);
        const QString path = create ? writeFile(name, bytes) : m_dir.filePath(name);
        QVERIFY(!path.isEmpty());
        const Run result = run({QStringLiteral("--info"), path});
        QVERIFY(result.exitCode > 0);
        QVERIFY(result.out.isEmpty());
        const QString message = result.err.trimmed();
        QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message)); // one line
        QVERIFY2(message.startsWith(QStringLiteral("stallscope: ") + path + QStringLiteral(": ")),
                 qPrintable(message));
    }

    void infoNeedsAFile() {
        const Run result = run({QStringLiteral("--info")});
        QVERIFY(result.exitCode > 0);
        QVERIFY2(result.err.startsWith(QStringLiteral("stallscope: ")), qPrintable(result.err));
    }

    void insightsJsonNameTheGuiltyLine() {
        const Run result = run({QStringLiteral("--insights"), QStringLiteral("--json"),
                                sourcePath("resources/sample.stallscope")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(result.out.toUtf8(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const QJsonObject root = document.object();
        QVERIFY(root.contains(QStringLiteral("summary")));
        const QJsonObject top = root.value(QStringLiteral("insights")).toArray().at(0).toObject();
        QCOMPARE(top.value(QStringLiteral("rule")).toString(), QStringLiteral("in-loop-sync"));
        // The loop's calls: the first step, slow with lazy module loading, is warm-up.
        QCOMPARE(top.value(QStringLiteral("count")).toInt(), 299);
        const QJsonObject site = top.value(QStringLiteral("site")).toObject();
        QVERIFY(site.value(QStringLiteral("file")).toString().endsWith("sample_train.py"));
        QCOMPARE(site.value(QStringLiteral("line")).toInt(), 41); // losses.append(... loss.item())
        QCOMPARE(site.value(QStringLiteral("function")).toString(), QStringLiteral("main"));
    }

    void insightsTextOnATrace() {
        const Run result =
            run({QStringLiteral("--insights"), sourcePath("tests/interop/data/cpu_loop.json.gz")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QVERIFY2(result.out.contains(
                     QStringLiteral("pageable-copy: In-loop blocking copy to pageable memory")) &&
                     result.out.contains(QStringLiteral("make_traces.py · infer_cpu()")),
                 qPrintable(result.out));
        QVERIFY2(result.out.contains(QStringLiteral("Evidence: pageable-copy, in-loop-sync")),
                 qPrintable(result.out));
    }

    // --window on the small session (starts at 1 µs; GPU work 1.5–23 µs, kernels from 3 µs; range
    // "forward" 1.6–4.8 µs): the active window by default, a range, a time range in the text.
    void insightsWindow() {
        const QString path = m_dir.filePath(QStringLiteral("window.stallscope"));
        QVERIFY(stallscope::testing::writeSmallSession(path.toStdString()));
        auto summaryOf = [](const Run& result) {
            return QJsonDocument::fromJson(result.out.toUtf8())
                .object()
                .value(QStringLiteral("summary"))
                .toObject();
        };
        const Run active = run({QStringLiteral("--insights"), QStringLiteral("--json"), path});
        QVERIFY2(active.exitCode == 0, qPrintable(active.err));
        QJsonObject summary = summaryOf(active);
        QCOMPARE(summary.value(QStringLiteral("window"))
                     .toObject()
                     .value(QStringLiteral("label"))
                     .toString(),
                 QStringLiteral("active (first kernel to last GPU work)"));
        QCOMPARE(summary.value(QStringLiteral("startup_ns")).toInteger(), qint64(2'000));

        const Run range = run({QStringLiteral("--insights"), QStringLiteral("--json"),
                               QStringLiteral("--window"), QStringLiteral("range:forward"), path});
        QVERIFY2(range.exitCode == 0, qPrintable(range.err));
        summary = summaryOf(range);
        const QJsonObject window = summary.value(QStringLiteral("window")).toObject();
        QCOMPARE(window.value(QStringLiteral("start_ns")).toInteger(), qint64(1600));
        QCOMPARE(window.value(QStringLiteral("end_ns")).toInteger(), qint64(4800));
        QCOMPARE(window.value(QStringLiteral("label")).toString(),
                 QStringLiteral("range \"forward\""));
        QCOMPARE(summary.value(QStringLiteral("startup_ns")).toInteger(), qint64(600));

        const Run time =
            run({QStringLiteral("--insights"), QStringLiteral("--window=2us:10us"), path});
        QVERIFY2(time.exitCode == 0, qPrintable(time.err));
        QVERIFY2(time.out.contains(QStringLiteral("\nWindow: time range 2 µs – 10 µs (8 µs)\n"
                                                  "Start-up: 2 µs before the window")),
                 qPrintable(time.out));
    }

    void convertWritesASession() {
        const QString out = m_dir.filePath(QStringLiteral("converted.stallscope"));
        const Run result =
            run({QStringLiteral("--convert"), sourcePath("tests/interop/data/item_loop.json.gz"),
                 QStringLiteral("-o"), out});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QVERIFY(QFile::exists(out));
        const Run info = run({QStringLiteral("--info"), out});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.contains(QStringLiteral("NVIDIA H200")), qPrintable(info.out));
    }

    // An imported trace's summary names the trace, not the session in the import cache;
    // --clear-cache then empties the cache, and leaves other files in it alone.
    void infoOnATraceNamesTheTraceAndClearCacheEmptiesTheCache() {
        const QString trace = sourcePath("tests/interop/data/cpu_loop.json.gz");
        const Run info = run({QStringLiteral("--info"), trace});
        QVERIFY2(info.exitCode == 0, qPrintable(info.err));
        auto row = [&](const QString& label) {
            const QRegularExpression line(QStringLiteral("^%1: +(.*)$").arg(label),
                                          QRegularExpression::MultilineOption);
            return line.match(info.out).captured(1);
        };
        QCOMPARE(row(QStringLiteral("File")), trace);
        const QString cache = m_dir.filePath(QStringLiteral("cache"));
        QVERIFY2(row(QStringLiteral("Import cache")).startsWith(cache + QLatin1Char('/')),
                 qPrintable(info.out));
        const QString notOurs = writeFile(QStringLiteral("cache/notes.txt"), "keep me");
        QVERIFY(!notOurs.isEmpty());
        auto cachedSessions = [&] {
            return QDir(cache).entryList({QStringLiteral("*.stallscope")}, QDir::Files).size();
        };
        const auto cachedBefore = cachedSessions();
        QVERIFY(cachedBefore >= 1);

        const Run cleared = run({QStringLiteral("--clear-cache")});
        QVERIFY2(cleared.exitCode == 0, qPrintable(cleared.err));
        QVERIFY2(
            cleared.out.contains(QStringLiteral("removed %1 cached session").arg(cachedBefore)),
            qPrintable(cleared.out));
        QCOMPARE(cachedSessions(), 0);
        QVERIFY(QFile::exists(notOurs));
        const Run again = run({QStringLiteral("--clear-cache")});
        QVERIFY2(again.out.contains(QStringLiteral("removed 0 cached sessions")),
                 qPrintable(again.out));
    }

    void convertRejectsWhatIsNotATrace() {
        const QString notJson = writeFile(QStringLiteral("notes.json"), "step,loss\n1,0.5\n");
        QVERIFY(!notJson.isEmpty());
        const Run result = run({QStringLiteral("--convert"), notJson, QStringLiteral("-o"),
                                m_dir.filePath(QStringLiteral("never.stallscope"))});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(
            result.err.startsWith(QStringLiteral("stallscope: ") + notJson + ": malformed JSON"),
            qPrintable(result.err));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("never.stallscope"))));
        const Run noOutput = run({QStringLiteral("--convert"), notJson});
        QCOMPARE(noOutput.exitCode, 2);
    }

    void exportChromeWritesATrace() {
        const QString out = m_dir.filePath(QStringLiteral("sample.json"));
        const Run result = run({QStringLiteral("--export-chrome"), out,
                                sourcePath("resources/sample-cuda.stallscope")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonDocument document = QJsonDocument::fromJson(file.readAll());
        QVERIFY(document.object().value(QStringLiteral("traceEvents")).toArray().size() > 100);
    }

    void reportWritesAPdfWithoutADisplay() {
        const QString out = m_dir.filePath(QStringLiteral("report.pdf"));
        const Run result =
            run({QStringLiteral("--report"), out, sourcePath("resources/sample.stallscope")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray pdf = file.readAll();
        QVERIFY(pdf.startsWith("%PDF-"));
        // Summary and seven findings, the timeline picture and the tables: two A4 pages.
        QVERIFY2(pdf.count("/Type /Page\n") >= 2, qPrintable(QString::number(pdf.size())));
        const QString bad = writeFile(QStringLiteral("bad.stallscope"), "not a session");
        QVERIFY(!bad.isEmpty());
        const Run failed =
            run({QStringLiteral("--report"), m_dir.filePath(QStringLiteral("bad.pdf")), bad});
        QCOMPARE(failed.exitCode, 1);
        QVERIFY2(failed.err.startsWith(QStringLiteral("stallscope: ") + bad),
                 qPrintable(failed.err));
    }

    // OUT.html: the same report as one self-contained HTML file; --page-size letter for a PDF.
    void reportWritesHtmlAndLetter() {
        const QString html = m_dir.filePath(QStringLiteral("report.html"));
        const Run result =
            run({QStringLiteral("--report"), html, sourcePath("resources/sample-cuda.stallscope")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QFile file(html);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray page = file.readAll();
        QVERIFY(page.startsWith("<!DOCTYPE html>"));
        QVERIFY(page.contains("<nav class=\"toc\">"));
        QVERIFY(page.contains("data:image/png;base64,"));
        const QString pdf = m_dir.filePath(QStringLiteral("letter.pdf"));
        const Run letter =
            run({QStringLiteral("--report"), pdf, QStringLiteral("--page-size"),
                 QStringLiteral("letter"), sourcePath("resources/sample-cuda.stallscope")});
        QVERIFY2(letter.exitCode == 0, qPrintable(letter.err));
        QFile written(pdf);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QVERIFY(written.readAll().contains("/MediaBox [0 0 612"));
    }

    void version() {
        const Run result = run({QStringLiteral("--version")});
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.out.startsWith(QStringLiteral("stallscope ")), qPrintable(result.out));
    }

    void help() {
        const Run result = run({QStringLiteral("--help")});
        QCOMPARE(result.exitCode, 0);
        QVERIFY(result.out.contains(QStringLiteral("--info")));
        QVERIFY(result.out.contains(QStringLiteral("FILE")));
        QVERIFY(result.out.contains(QStringLiteral("--color-scheme")));
        QVERIFY(result.out.contains(QStringLiteral("--remap")));
        QVERIFY(result.out.contains(QStringLiteral("--force")));
        QVERIFY(result.out.contains(QStringLiteral("--summary")));
        QVERIFY(result.out.contains(QStringLiteral("--window <SPEC>")));
        QVERIFY(result.out.contains(QStringLiteral("steps:A-B")));
        // The README's pictures are stallscope-screenshots' business.
        QVERIFY(!result.out.contains(QStringLiteral("--screenshot")));
    }

    // The CI gate: --insights --fail-on exits 3 at or below the top finding's severity and 0
    // above it (the CUDA sample's top finding is MEDIUM, the Python sample's HIGH); --compare of a
    // run with itself exits 0 whatever --fail-on-new says, and writes SARIF and JUnit beside;
    // against a run with sync sites the small session does not have, they are new and it exits 3.
    void gateExitCodes() {
        const QString cudaSample = sourcePath("resources/sample-cuda.stallscope");
        Run result = run({QStringLiteral("--insights"), QStringLiteral("--fail-on"),
                          QStringLiteral("medium"), cudaSample});
        QCOMPARE(result.exitCode, 3);
        QVERIFY2(result.err.contains(QStringLiteral("findings of severity MEDIUM or above")),
                 qPrintable(result.err));
        result = run({QStringLiteral("--insights"), QStringLiteral("--fail-on"),
                      QStringLiteral("high"), cudaSample});
        QCOMPARE(result.exitCode, 0);
        const QString sample = sourcePath("resources/sample.stallscope");
        result = run({QStringLiteral("--insights"), QStringLiteral("--fail-on"),
                      QStringLiteral("high"), sample});
        QCOMPARE(result.exitCode, 3);

        const QString sarif = m_dir.filePath(QStringLiteral("same.sarif"));
        const QString junit = m_dir.filePath(QStringLiteral("same.xml"));
        result = run({QStringLiteral("--compare"), sample, sample, QStringLiteral("--fail-on-new"),
                      QStringLiteral("low"), QStringLiteral("--sarif"), sarif,
                      QStringLiteral("--junit"), junit});
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.out.contains(QStringLiteral("SAME")), qPrintable(result.out));
        QVERIFY(!result.out.contains(QStringLiteral("FIXED")));
        QVERIFY(QFile::exists(sarif) && QFile::exists(junit));
        // An existing report is not replaced without --force, and that is refused before any
        // work (nothing on stdout); an input is never a report, --force or not.
        result =
            run({QStringLiteral("--compare"), sample, sample, QStringLiteral("--sarif"), sarif});
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(QStringLiteral("--force")), qPrintable(result.err));
        QVERIFY(result.out.isEmpty());
        result = run({QStringLiteral("--insights"), QStringLiteral("--force"),
                      QStringLiteral("--junit"), sample, sample});
        QCOMPARE(result.exitCode, 2);
        QVERIFY(result.out.isEmpty());

        const QString base = m_dir.filePath(QStringLiteral("base.stallscope"));
        QVERIFY(stallscope::testing::writeSmallSession(base.toStdString()));
        result = run({QStringLiteral("--compare"), QStringLiteral("--json"), base, sample});
        QCOMPARE(result.exitCode, 0);
        const QJsonObject json = QJsonDocument::fromJson(result.out.toUtf8()).object();
        QCOMPARE(json[QStringLiteral("format")].toString(), QStringLiteral("stallscope-compare"));
        QVERIFY(!json[QStringLiteral("sites")].toArray().isEmpty());
        result = run({QStringLiteral("--compare"), base, sample, QStringLiteral("--fail-on-new"),
                      QStringLiteral("low")});
        QCOMPARE(result.exitCode, 3);
        QVERIFY2(result.out.contains(QStringLiteral("NEW")), qPrintable(result.out));
    }

    // Bad usage exits 2 with one line saying what was wanted, before any window opens.
    void badUsage_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        const QString file = sourcePath("resources/sample.stallscope");
        QTest::newRow("compare-with and two files")
            << QStringList{QStringLiteral("--compare-with"), file, file, file}
            << QStringLiteral("--compare-with takes one FILE");
        QTest::newRow("color scheme")
            << QStringList{QStringLiteral("--color-scheme"), QStringLiteral("purple"), file}
            << QStringLiteral("--color-scheme wants light or dark");
        QTest::newRow("remap") << QStringList{QStringLiteral("--remap"), QStringLiteral("nope"),
                                              file}
                               << QStringLiteral("--remap wants OLD=NEW, got nope");
        QTest::newRow("convert with a file")
            << QStringList{QStringLiteral("--convert"), file, QStringLiteral("-o"),
                           m_dir.filePath(QStringLiteral("x.stallscope")), file}
            << QStringLiteral("--convert takes no FILE");
        QTest::newRow("clear cache with a file")
            << QStringList{QStringLiteral("--clear-cache"), file}
            << QStringLiteral("--clear-cache takes no FILE");
        QTest::newRow("page size without a report")
            << QStringList{QStringLiteral("--page-size"), QStringLiteral("letter"),
                           QStringLiteral("--info"), file}
            << QStringLiteral("--page-size goes with --report");
        QTest::newRow("bad page size")
            << QStringList{QStringLiteral("--report"), m_dir.filePath(QStringLiteral("x.pdf")),
                           QStringLiteral("--page-size"), QStringLiteral("a5"), file}
            << QStringLiteral("--page-size wants a4 or letter");
        QTest::newRow("report without a file")
            << QStringList{QStringLiteral("--report"), m_dir.filePath(QStringLiteral("x.pdf"))}
            << QStringLiteral("--report needs a FILE");
        const QString small = m_dir.filePath(QStringLiteral("usage.stallscope"));
        QVERIFY(stallscope::testing::writeSmallSession(small.toStdString()));
        QTest::newRow("unknown range")
            << QStringList{QStringLiteral("--insights"), QStringLiteral("--window"),
                           QStringLiteral("range:nope"), small}
            << QStringLiteral("--window: no range named \"nope\"; the session's "
                              "ranges include \"step 0\", \"forward\"");
        QTest::newRow("window end before start")
            << QStringList{QStringLiteral("--insights"), QStringLiteral("--json"),
                           QStringLiteral("--window"), QStringLiteral("50us:10us"), small}
            << QStringLiteral("--window: the end (10 µs) must come after the start (50 µs) in "
                              "\"50us:10us\"");
        QTest::newRow("summary of two files")
            << QStringList{QStringLiteral("--summary"), small, small}
            << QStringLiteral("--summary takes one run folder or session file");
        QTest::newRow("compare with one file")
            << QStringList{QStringLiteral("--compare"), small}
            << QStringLiteral("--compare needs two files, BEFORE and AFTER");
        QTest::newRow("fail-on without insights")
            << QStringList{QStringLiteral("--info"), QStringLiteral("--fail-on"),
                           QStringLiteral("high"), small}
            << QStringLiteral("--fail-on goes with --insights");
        QTest::newRow("fail-on-new without compare")
            << QStringList{QStringLiteral("--insights"), QStringLiteral("--fail-on-new"),
                           QStringLiteral("high"), small}
            << QStringLiteral("--fail-on-new goes with --compare");
        QTest::newRow("fail-on level")
            << QStringList{QStringLiteral("--insights"), QStringLiteral("--fail-on"),
                           QStringLiteral("urgent"), small}
            << QStringLiteral("--fail-on wants high, medium or low, got urgent");
        QTest::newRow("sarif without a mode")
            << QStringList{QStringLiteral("--info"), QStringLiteral("--sarif"),
                           m_dir.filePath(QStringLiteral("x.sarif")), small}
            << QStringLiteral("--sarif goes with --insights or --compare");
        QTest::newRow("window without insights")
            << QStringList{QStringLiteral("--info"), QStringLiteral("--window"),
                           QStringLiteral("all"), small}
            << QStringLiteral("--window goes with --insights");
        QTest::newRow("compare-with in a batch mode")
            << QStringList{QStringLiteral("--info"), QStringLiteral("--compare-with"), small, small}
            << QStringLiteral("--compare-with goes with the window (no batch mode)");
        QTest::newRow("compare-with without FILE")
            << QStringList{QStringLiteral("--compare-with"), small}
            << QStringLiteral("--compare-with needs the FILE to compare with AFTER");
    }
    void badUsage() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const Run result = run(arguments, Display::Offscreen);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(QStringLiteral("stallscope: ") + message),
                 qPrintable(result.err));
        QVERIFY(result.out.isEmpty());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(CommandLineTest)
#include "tst_command_line.moc"
