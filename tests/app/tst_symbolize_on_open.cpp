// Opening a session whose native frames are unresolved but whose binaries exist on this machine
// resolves them in the background (LLVM), writes them into the session and reloads it. The frame
// here is a real return address inside this test executable, recorded as the recorder would.
#include "app/background_work.h"
#include "app/main_window.h"
#include "format/session_writer.h"
#include "model/jobs/job_tracker.h"
#include "model/session/session.h"
#include "model/session/session_database.h"

#include <QSignalSpy>
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

// One process, thread, stream sync whose stack is one native frame: `modulePath` at `address`.
void writeSession(const std::string& path, const std::string& modulePath, int64_t loadBias,
                  int64_t address) {
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
    const int64_t frameId = writer->addFrame(frame);
    const int64_t frames[] = {frameId};
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
    void resolvesFramesWhoseBinaryIsHere() {
        if (!app::symbolizerAvailable())
            QSKIP("SKIP: built without LLVM's symbolizer");
        char self[PATH_MAX];
        QVERIFY(realpath("/proc/self/exe", self));
        const int64_t bias = mainProgramLoadBias();
        QVERIFY(bias >= 0);
        // A return address lands inside the caller: 4 bytes into the function is inside it.
        const int64_t address = reinterpret_cast<intptr_t>(&stallscopeKnownCallSite) + 4;
        QTemporaryDir dir;
        const std::string path = dir.filePath("unresolved.stallscope").toStdString();
        writeSession(path, self, bias, address);

        OpenedWindow opened(path);
        QVERIFY(opened.symbolized.wait(60000));
        QCOMPARE(opened.symbolized.at(0).at(0).toLongLong(), qint64(1));
        // The window reloads the session it just improved.
        QTRY_COMPARE_WITH_TIMEOUT(opened.loaded.count(), 2, 30000);

        model::SessionDatabase database;
        std::string error;
        QVERIFY2(database.open(path, &error), error.c_str());
        const auto frames = database.stack(1);
        QCOMPARE(frames.size(), size_t(1));
        QVERIFY(frames[0].symbolized);
        QCOMPARE(frames[0].function, std::string("stallscopeKnownCallSite"));
        QVERIFY2(QString::fromStdString(frames[0].file).endsWith("tst_symbolize_on_open.cpp"),
                 frames[0].file.c_str());
    }

    void leavesSessionsAloneWhenBinariesAreMissing() {
        if (!app::symbolizerAvailable())
            QSKIP("SKIP: built without LLVM's symbolizer");
        QTemporaryDir dir;
        const std::string path = dir.filePath("elsewhere.stallscope").toStdString();
        writeSession(path, "/nonexistent/libtorch_cuda.so", 0x7f0000000000, 0x7f0000001234);
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
        model::SessionDatabase database;
        std::string error;
        QVERIFY2(database.open(path, &error), error.c_str());
        QVERIFY(!database.stack(1).at(0).symbolized);
        QVERIFY(database.diagnostics().empty()); // nothing was written
    }
};

QTEST_MAIN(TestSymbolizeOnOpen)
#include "tst_symbolize_on_open.moc"
