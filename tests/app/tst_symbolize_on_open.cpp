// Opening a session whose native frames are unresolved but whose binaries exist on this machine
// resolves them in the background (LLVM) into a cached copy, which the window shows instead; the
// session file itself is never written (issue 13), no local source file is copied in (a crafted
// frame naming a secret file gets nothing), and File ▸ Save Symbolized Copy keeps the copy. The
// frame here is a real return address inside this test executable, recorded as the recorder would.
#include "app/background_work.h"
#include "app/main_window.h"
#include "format/session_writer.h"
#include "model/jobs/job_tracker.h"
#include "model/session/session.h"
#include "model/session/session_database.h"
#include "tests/support/sqlite_edit.h"
#include "tests/support/test_suite.h"
#include "views/panels/analysis_panels.h"
#include "views/panels/source_editor.h"
#include "views/panels/source_view.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <climits>
#include <cstdlib>
#include <link.h>

using namespace stallscope;

// A function whose address the session records; never inlined so it has its own symbol.
extern "C" __attribute__((noinline, used)) int stallscopeKnownCallSite(int value) {
    return value * 3 + 1;
}

namespace {

int64_t mainProgramLoadBias() {
    int64_t bias = -1;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            if (info->dlpi_name && info->dlpi_name[0] == '\0') { // the executable itself
                *static_cast<int64_t*>(data) = static_cast<int64_t>(info->dlpi_addr);
                return 1;
            }
            return 0;
        },
        &bias);
    return bias;
}

QByteArray fileBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray fileHash(const std::string& path) {
    return QCryptographicHash::hash(fileBytes(QString::fromStdString(path)),
                                    QCryptographicHash::Sha256);
}

// One process, thread, stream sync whose stack is one native frame: `modulePath` at `address`,
// and, when `pythonFile` is given, a Python frame in that file (a user frame by its path).
void writeSession(const std::string& path, const std::string& modulePath, int64_t loadBias,
                  int64_t address, const std::string& pythonFile = {}) {
    std::string error;
    auto writer = format::SessionWriter::create(path, &error);
    QVERIFY2(writer, error.c_str());
    const int64_t process = writer->addProcess({77, "host", "./app", 0, 1000000, 0});
    const int64_t thread = writer->addThread({process, 77, "main"});
    const int64_t module = writer->addModule(
        {process, modulePath, loadBias, loadBias, loadBias + (int64_t(1) << 40), "", 0});
    format::FrameRow frame;
    frame.address = address;
    frame.moduleId = module;
    std::vector<int64_t> frames = {writer->addFrame(frame)};
    if (!pythonFile.empty()) {
        format::FrameRow python;
        python.kind = format::FrameKind::Python;
        python.function = "steal";
        python.file = pythonFile;
        python.line = 1;
        frames.push_back(writer->addFrame(python));
    }
    format::SyncRow sync;
    sync.threadId = thread;
    sync.kind = format::SyncKind::Device;
    sync.startNs = 1000;
    sync.endNs = 5000;
    sync.correlationId = 1;
    sync.stackId = writer->addStack(42, frames);
    writer->addSync(sync);
    QVERIFY(writer->finish(format::kStatusComplete));
}

// A session whose one native frame lies in this test executable: resolvable here.
void writeResolvableSession(const std::string& path, const std::string& pythonFile = {}) {
    char self[PATH_MAX];
    QVERIFY(realpath("/proc/self/exe", self));
    const int64_t bias = mainProgramLoadBias();
    QVERIFY(bias >= 0);
    // A return address lands inside the caller: 4 bytes into the function is inside it.
    const int64_t address = reinterpret_cast<intptr_t>(&stallscopeKnownCallSite) + 4;
    writeSession(path, self, bias, address, pythonFile);
}

// A main window (error dialogs off) opening `path`, with spies on its load and symbolize signals.
struct OpenedWindow {
    explicit OpenedWindow(const std::string& path) {
        window.setErrorDialogsEnabled(false);
        window.openFile(QString::fromStdString(path));
    }

    app::MainWindow window;
    QSignalSpy loaded{&window, &app::MainWindow::sessionLoaded};
    QSignalSpy symbolized{&window, &app::MainWindow::symbolizedOnOpen};
};

} // namespace

class TestSymbolizeOnOpen : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // the cache of symbolized copies is a test one
        QDir(cacheFolder()).removeRecursively();
    }

    void cleanupTestCase() { QDir(cacheFolder()).removeRecursively(); }

    void resolvesFramesIntoACopy() {
        if (!app::symbolizerAvailable())
            QSKIP("SKIP: built without LLVM's symbolizer");
        QTemporaryDir dir;
        const std::string path = dir.filePath("unresolved.stallscope").toStdString();
        writeResolvableSession(path);
        const QByteArray before = fileHash(path);

        OpenedWindow opened(path);
        QVERIFY(opened.symbolized.wait(60000));
        QCOMPARE(opened.symbolized.at(0).at(0).toLongLong(), qint64(1));
        // The window loads the symbolized copy in the session's place.
        QTRY_COMPARE_WITH_TIMEOUT(opened.loaded.count(), 2, 30000);
        const QString copy = opened.window.symbolizedCopy();
        QVERIFY(copy.startsWith(cacheFolder()));
        QCOMPARE(QString::fromStdString(opened.window.session()->path), copy);
        QCOMPARE(opened.window.currentFile(), QString::fromStdString(path));
        QVERIFY(opened.window.windowTitle().contains(QStringLiteral("symbolized copy")));
        QCOMPARE(fileHash(path), before); // the session itself is never written
        expectSymbolized(copy.toStdString());

        // File ▸ Save Symbolized Copy: where the user says, complete, nothing else left there.
        const QString saved = dir.filePath(QStringLiteral("saved.stallscope"));
        QVERIFY(opened.window.saveSymbolizedCopy(saved));
        QCOMPARE(fileBytes(saved), fileBytes(copy));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), qsizetype(2));
        expectSymbolized(saved.toStdString());

        // Opened again, the session reuses its copy.
        OpenedWindow again(path);
        QTRY_COMPARE_WITH_TIMEOUT(again.loaded.count(), 2, 30000);
        QCOMPARE(again.window.symbolizedCopy(), copy);
        QCOMPARE(fileHash(path), before);
    }

    void leavesSessionsAloneWhenBinariesAreMissing() {
        if (!app::symbolizerAvailable())
            QSKIP("SKIP: built without LLVM's symbolizer");
        QTemporaryDir dir;
        const std::string path = dir.filePath("elsewhere.stallscope").toStdString();
        writeSession(path, "/nonexistent/libtorch_cuda.so", 0x7f0000000000, 0x7f0000001234);
        const QByteArray before = fileHash(path);
        OpenedWindow opened(path);
        QVERIFY(opened.loaded.wait(30000));
        // The background check ran (it starts on load); once its task has ended, every signal it
        // sent is queued: deliver them, and none says frames were resolved.
        auto* symbolizations =
            opened.window.findChild<model::JobTracker*>(QStringLiteral("symbolizations"));
        QVERIFY(symbolizations);
        symbolizations->waitForDone();
        QCoreApplication::sendPostedEvents();
        QCOMPARE(opened.symbolized.count(), 0);
        QCOMPARE(opened.loaded.count(), 1);
        QVERIFY(opened.window.symbolizedCopy().isEmpty());
        QCOMPARE(fileHash(path), before);
    }

    // A crafted frame names a private file as a user frame: opening (and the symbolization it
    // starts) leaves the session byte-identical and the secret appears nowhere.
    void exfiltrationAttemptReadsNoLocalFile() {
        if (!app::symbolizerAvailable())
            QSKIP("SKIP: built without LLVM's symbolizer");
        QTemporaryDir dir;
        const QString secretPath = dir.filePath(QStringLiteral("private/id_ed25519.py"));
        const QByteArray secret = "STALLSCOPE-TEST-SECRET-7f3a9c\n";
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("private"))));
        QFile secretFile(secretPath);
        QVERIFY(secretFile.open(QIODevice::WriteOnly));
        QCOMPARE(secretFile.write(secret), qint64(secret.size()));
        secretFile.close();
        const std::string path = dir.filePath("crafted.stallscope").toStdString();
        writeResolvableSession(path, secretPath.toStdString());
        const QByteArray before = fileHash(path);

        OpenedWindow opened(path);
        QVERIFY(opened.symbolized.wait(60000));
        QTRY_COMPARE_WITH_TIMEOUT(opened.loaded.count(), 2, 30000);
        QCOMPARE(fileHash(path), before);
        const QString copy = opened.window.symbolizedCopy();
        QVERIFY(!copy.isEmpty());
        QVERIFY(!fileBytes(copy).contains(secret.trimmed()));
        model::SessionDatabase database;
        std::string error;
        QVERIFY2(database.open(copy.toStdString(), &error), error.c_str());
        QVERIFY(database.sourcePaths().empty());
        QCOMPARE(database.stack(1).at(1).file, secretPath.toStdString()); // the frame is there

        // The source view does not show a file just because the session names it.
        views::AnalysisPanels* panels = opened.window.panels();
        QVERIFY(!panels->openSource(secretPath, 1));
        QVERIFY(panels->sourceView()->isSourceMissing());
        QVERIFY(!panels->sourceView()->editor()->toPlainText().contains(secret.trimmed()));
    }

    // A trigger on the table the symbolizer updates: refused on open, so it never fires.
    void triggerInSessionNeverFires() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("trigger.stallscope").toStdString();
        writeResolvableSession(path);
        testing::execSql(path, "CREATE TRIGGER leak AFTER UPDATE ON frames BEGIN "
                               "INSERT INTO diagnostics(at_ns, severity, message) "
                               "VALUES (0, 'x', 'fired'); END");
        const QByteArray before = fileHash(path);
        app::MainWindow window;
        window.setErrorDialogsEnabled(false);
        QSignalSpy failed(&window, &app::MainWindow::loadFailed);
        window.openFile(QString::fromStdString(path));
        QVERIFY(failed.wait(30000));
        const QString error = failed.at(0).at(0).toString();
        QVERIFY2(error.startsWith(QString::fromStdString(path)), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("foreign schema: a trigger 'leak' on 'frames'")),
                 qPrintable(error));
        auto* symbolizations =
            window.findChild<model::JobTracker*>(QStringLiteral("symbolizations"));
        QVERIFY(symbolizations && !symbolizations->isRunning());
        QCOMPARE(fileHash(path), before);
    }

private:
    static QString cacheFolder() {
        return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) +
               QStringLiteral("/symbolized");
    }

    // The copy's one native frame resolved, and no source embedded (this file exists here and
    // the frame is a user frame: the recorder's own finalize would have embedded it).
    static void expectSymbolized(const std::string& copy) {
        model::SessionDatabase database;
        std::string error;
        QVERIFY2(database.open(copy, &error), error.c_str());
        const auto frames = database.stack(1);
        QVERIFY(!frames.empty());
        QVERIFY(frames[0].symbolized);
        QCOMPARE(frames[0].function, std::string("stallscopeKnownCallSite"));
        QVERIFY2(QString::fromStdString(frames[0].file).endsWith("tst_symbolize_on_open.cpp"),
                 frames[0].file.c_str());
        QVERIFY(database.sourcePaths().empty());
    }
};

STALLSCOPE_TEST_MAIN(TestSymbolizeOnOpen)
#include "tst_symbolize_on_open.moc"
