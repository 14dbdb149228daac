// Where a sync is attributed (SyncSites): the user's line and the library line that synced,
// Python frames classed by their paths when the session has no is_user verdicts, one site per
// fix (a line's syncs, the next statements that repeat them), and syncs without a stack — moved
// to the thread that made them, never user findings.
#include "format/session_meta.h"
#include "model/analysis/insight_json.h"
#include "model/analysis/sync_sites.h"
#include "model/session/session_database.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/test_suite.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using format::FrameKind;
using format::SyncKind;
using model::FrameInfo;
using model::SourceSite;
using model::SyncSites;
using testing::InsightFixture;

namespace {

const char* const kApplyFunc =
    "/venv/lib/python3.12/site-packages/lightning_fabric/utilities/apply_func.py";
const char* const kTorchCuda = "/usr/lib/python3/dist-packages/torch/cuda/__init__.py";

FrameInfo pythonFrame(const std::string& file, int64_t line, const std::string& function) {
    FrameInfo frame;
    frame.kind = FrameKind::Python;
    frame.file = file;
    frame.line = line;
    frame.function = function;
    return frame;
}

FrameInfo nativeFrame(const std::string& file, int64_t line, const std::string& function,
                      std::optional<bool> isUser = {}) {
    FrameInfo frame;
    frame.address = 0x401000 + line;
    frame.file = file;
    frame.line = line;
    frame.function = function;
    frame.isUser = isUser;
    return frame;
}

// A syncs row as the recorder writes a CUPTI synchronization record that no callback matched:
// on the main thread, without a stack and without an API call of its own.
void recordOnlySync(InsightFixture& f, SyncKind kind, int64_t start, int64_t end,
                    int64_t correlation) {
    f.writer().addSync({f.thread, kind, start, end, correlation, {}, {}, {}});
}

const model::SyncSiteStats* siteLabelled(const model::InsightReport& report,
                                         const std::string& label) {
    for (const model::SyncSiteStats& stats : report.sites)
        if (stats.site.label() == label)
            return &stats;
    return nullptr;
}

} // namespace

class TestSyncSites : public QObject {
    Q_OBJECT
private slots:
    void userLineAndLibraryLine();
    void toolkitHeadersAreNotTheUsersLine();
    void inlinedCallerIsTheUsersLine();
    void onlyLibraryFrames();
    void nativeUserFrames();
    void verdictBeatsPath();
    void labels();
    void oneLineIsOneSite();
    void nextStatementsOfOneFix();
    void stacklessSyncsJoinTheirCall();
    void stacklessSyncsOfUnstackedSessions();

private:
    QTemporaryDir m_dir;
};

void TestSyncSites::userLineAndLibraryLine() {
    const std::unordered_map<int64_t, model::ModuleLocation> modules;
    // A --no-symbolize session: no is_user verdicts, Python frames classed by their paths.
    const FrameInfo libtorch = nativeFrame("", 0, "");
    const FrameInfo synchronize = pythonFrame(kTorchCuda, 1040, "synchronize");
    const FrameInfo step = pythonFrame("/home/u/train.py", 34, "main");
    const FrameInfo outer = pythonFrame("/home/u/train.py", 60, "<module>");
    // torch.cuda.synchronize() in the user's loop lands on the user's line.
    SourceSite site = SyncSites::resolve({libtorch, synchronize, step, outer}, modules);
    QCOMPARE(site.file, std::string("/home/u/train.py"));
    QCOMPARE(site.line, int64_t(34));
    QCOMPARE(site.function, std::string("main"));
    QCOMPARE(site.language, model::SourceLanguage::Python);
    QCOMPARE(site.library.file, std::string(kTorchCuda));
    QCOMPARE(site.library.line, int64_t(1040));
    QCOMPARE(site.library.function, std::string("synchronize"));
    // Several library frames inside the user's: the innermost one is the line that synced.
    const FrameInfo apply = pythonFrame(kApplyFunc, 134, "move_data_to_device");
    const FrameInfo fit = pythonFrame(
        "/venv/lib/python3.12/site-packages/lightning/pytorch/trainer/trainer.py", 538, "fit");
    site = SyncSites::resolve({libtorch, apply, fit, step}, modules);
    QCOMPARE(site.line, int64_t(34));
    QCOMPARE(site.library.line, int64_t(134));
    QCOMPARE(site.library.function, std::string("move_data_to_device"));
    // Library frames outside the user's frame (the interpreter's runpy) are not the sync's.
    const FrameInfo runpy = pythonFrame("<frozen runpy>", 88, "_run_code");
    site = SyncSites::resolve({libtorch, step, runpy}, modules);
    QCOMPARE(site.line, int64_t(34));
    QVERIFY(site.library.empty());
    // The user's line synced itself (.item() is a C method: no Python frame inside).
    site = SyncSites::resolve({libtorch, step, outer}, modules);
    QVERIFY(site.library.empty());
}

// Issue 39: cuda_runtime.h's inline template (cudaMemcpyToSymbol<float [64]>) is compiled into the
// user's binary, so the symbolizer marks it user code; the site is the user's call below it.
void TestSyncSites::toolkitHeadersAreNotTheUsersLine() {
    const std::unordered_map<int64_t, model::ModuleLocation> modules;
    const FrameInfo wrapper =
        nativeFrame("/usr/local/cuda-13.0/targets/x86_64-linux/include/cuda_runtime.h", 1450,
                    "cudaMemcpyToSymbol<float [64]>", true);
    const FrameInfo call = nativeFrame("/home/u/src/main.cu", 88, "upload", true);
    const SourceSite site = SyncSites::resolve({wrapper, call}, modules);
    QCOMPARE(site.file, std::string("/home/u/src/main.cu"));
    QCOMPARE(site.line, int64_t(88));
    for (const char* header : {"/usr/local/cuda/include/cuda_runtime.h", "/opt/cuda/include/x.h",
                               "/usr/local/cuda-12.4/targets/sbsa-linux/include/crt/host_runtime.h",
                               "/usr/include/cuda_runtime_api.h"})
        QVERIFY2(format::isCudaToolkitHeader(header), header);
    for (const char* own : {"/home/u/src/main.cu", "/home/u/cuda_utils/include/helpers.h",
                            "/usr/include/stdio.h", "cuda_kernels.cu"})
        QVERIFY2(!format::isCudaToolkitHeader(own), own);
}

// cuda_runtime.h's template inlined into main(): the frame's own row names the header, and only
// its inline chain (frame_inlines) has main's line, which is the site. A chain row of a frame
// that is not in the stack changes nothing.
void TestSyncSites::inlinedCallerIsTheUsersLine() {
    InsightFixture f(m_dir.filePath("inlined.stallscope").toStdString());
    const std::string header = "/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime.h";
    const int64_t wrapper = f.nativeFrame(header, 1038, "cudaMemcpyToSymbol<float [64]>");
    const int64_t start = f.nativeFrame("", 0, "__libc_start_main");
    const int64_t elsewhere = f.nativeFrame("/home/u/src/other.cu", 5, "helper");
    f.setInlineChain(wrapper, {{"cudaMemcpyToSymbol<float [64]>", header, 1038},
                               {"main", "/home/u/src/main.cu", 61}});
    f.setInlineChain(elsewhere, {{"helper", "/home/u/src/other.cu", 5}, {"run", "x.cu", 9}});
    const int64_t stack = f.stackOf({f.driverFrame(), wrapper, start});
    f.sync(SyncKind::Stream, 10'000, 90'000, stack, f.stream);
    const auto loaded = f.load({wrapper});
    QVERIFY(loaded.ok());
    const std::vector<FrameInfo> frames = loaded.database->stack(stack);
    QCOMPARE(frames.size(), size_t(4));
    QCOMPARE(frames[1].function, std::string("cudaMemcpyToSymbol<float [64]>"));
    QCOMPARE(frames[1].inlineDepth, int64_t(0));
    QCOMPARE(frames[2].function, std::string("main"));
    QCOMPARE(frames[2].line, int64_t(61));
    QCOMPARE(frames[2].inlineDepth, int64_t(1));
    QCOMPARE(frames[2].address, frames[1].address);
    QVERIFY(frames[2].isUserCode());
    QCOMPARE(frames[3].function, std::string("__libc_start_main"));
    const model::InsightReport report = loaded.analyze();
    QCOMPARE(report.sites.size(), size_t(1));
    QCOMPARE(report.sites.front().site.label(), std::string("main.cu:61 in main"));
}

void TestSyncSites::onlyLibraryFrames() {
    const std::unordered_map<int64_t, model::ModuleLocation> modules;
    // The DataLoader's pin-memory thread runs library code only: its innermost Python frame.
    const FrameInfo pin =
        pythonFrame("/venv/lib/python3.12/site-packages/torch/utils/data/_utils/pin_memory.py", 33,
                    "_pin_memory_loop");
    const FrameInfo thread = pythonFrame("/usr/lib/python3.12/threading.py", 1010, "run");
    const SourceSite site = SyncSites::resolve({nativeFrame("", 0, ""), pin, thread}, modules);
    QCOMPARE(site.line, int64_t(33));
    QCOMPARE(site.function, std::string("_pin_memory_loop"));
    QVERIFY(site.library.empty());
}

void TestSyncSites::nativeUserFrames() {
    const std::unordered_map<int64_t, model::ModuleLocation> modules;
    const FrameInfo runtime =
        nativeFrame("/usr/local/cuda/include/cuda_runtime.h", 200, "cudaStreamSynchronize", false);
    const FrameInfo ops = nativeFrame("/home/u/ext/ops.cpp", 42, "fusedStep", true);
    const FrameInfo module = pythonFrame(
        "/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", 1750, "_call_impl");
    const FrameInfo step = pythonFrame("/home/u/train.py", 90, "train_step");
    // An is_user native frame with a file inside the Python user frame is the site.
    SourceSite site = SyncSites::resolve({runtime, ops, module, step}, modules);
    QCOMPARE(site.label(), std::string("ops.cpp:42 in fusedStep"));
    QCOMPARE(site.language, model::SourceLanguage::Native);
    QVERIFY(site.library.empty());
    // Without a file it is not (nothing to open): the Python user frame, with the library frame.
    const FrameInfo opsNoFile = nativeFrame("", 0, "fusedStep", true);
    site = SyncSites::resolve({runtime, opsNoFile, module, step}, modules);
    QCOMPARE(site.line, int64_t(90));
    QCOMPARE(site.library.function, std::string("_call_impl"));
    // A native program: the is_user frame, never a native non-user frame inside it.
    const FrameInfo main = nativeFrame("/home/u/app/main.cpp", 12, "main", true);
    site = SyncSites::resolve({runtime, main}, modules);
    QCOMPARE(site.label(), std::string("main.cpp:12 in main"));
}

void TestSyncSites::verdictBeatsPath() {
    const std::unordered_map<int64_t, model::ModuleLocation> modules;
    // The Kineto importer decides relative paths itself: its verdicts win over the path rule.
    FrameInfo library = pythonFrame("/home/u/vendored/helpers.py", 7, "helper");
    library.isUser = false;
    FrameInfo user = pythonFrame("/venv/lib/python3.12/site-packages/mypkg/loop.py", 20, "loop");
    user.isUser = true;
    const SourceSite site = SyncSites::resolve({nativeFrame("", 0, ""), library, user}, modules);
    QCOMPARE(site.line, int64_t(20));
    QCOMPARE(site.library.line, int64_t(7));
}

void TestSyncSites::labels() {
    SourceSite site{"/home/u/train.py", 34, "main", model::SourceLanguage::Python};
    QCOMPARE(site.label(), std::string("train.py:34 in main"));
    site.library = {kApplyFunc, 134, "move_data_to_device"};
    QCOMPARE(site.label(),
             std::string("train.py:34 in main → lightning_fabric/utilities/apply_func.py:134"));
    site.library = {"/usr/lib/python3.12/concurrent/futures/thread.py", 58, "run"};
    QCOMPARE(site.label(), std::string("train.py:34 in main → concurrent/futures/thread.py:58"));
    // Def lines (imported torch.profiler traces) name functions, on both sides.
    site.lineIsDefinition = true;
    site.library = {"torch/cuda/__init__.py", 1020, "synchronize"};
    QCOMPARE(site.label(),
             std::string("train.py · main() → torch/cuda/__init__.py · synchronize()"));
}

void TestSyncSites::oneLineIsOneSite() {
    InsightFixture f(m_dir.filePath("library.stallscope").toStdString());
    auto python = [&f](const std::string& file, int64_t line, const std::string& function) {
        format::FrameRow row;
        row.kind = FrameKind::Python;
        row.file = file;
        row.line = line;
        row.function = function;
        return f.writer().addFrame(row);
    };
    const int64_t user = python("/home/u/train.py", 34, "main");
    const int64_t log = python(kApplyFunc, 134, "move_data_to_device");
    const int64_t scalars = python(kApplyFunc, 120, "convert_tensors_to_scalars");
    // The same user line through two library lines (print(tensor) syncs in several of torch's
    // formatting lines) and directly: one change to the line removes them all, so one site,
    // named by the library line with the most syncs.
    const int64_t viaLogA = f.stackOf({f.driverFrame(0x10), log, user});
    const int64_t viaLogB = f.stackOf({f.driverFrame(0x20), log, user});
    const int64_t viaScalars = f.stackOf({f.driverFrame(0x30), scalars, user});
    const int64_t direct = f.stackOf({f.driverFrame(0x40), user});
    f.sync(SyncKind::Stream, 10'000, 10'400, viaLogA, f.stream);
    f.sync(SyncKind::Stream, 20'000, 20'300, viaLogB, f.stream);
    f.sync(SyncKind::Device, 30'000, 30'200, viaScalars, f.stream);
    f.sync(SyncKind::Stream, 40'000, 40'100, direct, f.stream);
    const model::InsightReport report = f.load().analyze();
    QVERIFY(f.ok());
    QCOMPARE(report.sites.size(), size_t(1));
    const model::SyncSiteStats& site = report.sites.front();
    QCOMPARE(site.site.label(), std::string("train.py:34 in main → "
                                            "lightning_fabric/utilities/apply_func.py:134"));
    QCOMPARE(site.count, int64_t(4));
    QCOMPARE(site.blockedNs, int64_t(1'000));
    QCOMPARE(site.countByKind[static_cast<size_t>(SyncKind::Stream)], int64_t(3));
    QCOMPARE(site.countByKind[static_cast<size_t>(SyncKind::Device)], int64_t(1));
    QVERIFY(site.joinedLines.empty());
    QVERIFY(site.isUserFinding());
    const QJsonObject library = model::insightReportToJsonObject(report)["sites"]
                                    .toArray()[0]
                                    .toObject()["site"]
                                    .toObject()["library"]
                                    .toObject();
    QCOMPARE(library["file"].toString(), QString(kApplyFunc));
    QCOMPARE(library["line"].toInteger(), 134);
}

// The next statements of a function that sync the same way as often are the same pattern
// written twice, which one change removes (InsightThresholds::fixGroup): both sides of the line
// gap (2 joins, 3 does not), of the count difference (5 % joins, 10 % does not), another kind and
// another function.
void TestSyncSites::nextStatementsOfOneFix() {
    InsightFixture f(m_dir.filePath("statements.stallscope").toStdString());
    int64_t t = 10'000;
    // `count` syncs of `kind` at train.py:`line` in `function`, each blocking `blockedNs`.
    auto syncs = [&](int64_t line, int count, SyncKind kind = SyncKind::Stream,
                     const char* function = "step", int64_t blockedNs = 1'000) {
        const int64_t stack = f.pythonStack("/home/u/train.py", line, function);
        for (int i = 0; i < count; ++i, t += 10'000)
            f.sync(kind, t, t + blockedNs, stack, f.stream);
    };
    syncs(10, 20);                          // a run: 10,
    syncs(11, 20);                          //   11 (the next line),
    syncs(13, 20);                          //   13 (two lines on)
    syncs(16, 20);                          // three lines on: a site of its own
    syncs(17, 20, SyncKind::Device);        // another kind: its own
    syncs(18, 20, SyncKind::Stream, "log"); // another function: its own
    syncs(30, 20);                          // a run: 30,
    syncs(31, 21);                          //   31 (5 % more)
    syncs(40, 20);                          // 40,
    syncs(41, 22);                          // 41: 10 % more, its own
    const model::InsightReport report = f.load().analyze();
    QVERIFY(f.ok());
    auto site = [&](int64_t line) -> const model::SyncSiteStats* {
        for (const model::SyncSiteStats& stats : report.sites)
            if (stats.site.line == line)
                return &stats;
        return nullptr;
    };
    QCOMPARE(report.sites.size(), size_t(7));
    QVERIFY(site(10) && site(16) && site(17) && site(18) && site(30) && site(40) && site(41));
    using Joined = model::SyncSiteStats::JoinedLine;
    QCOMPARE(site(10)->joinedLines, std::vector<Joined>({{11, 20, 20'000}, {13, 20, 20'000}}));
    QCOMPARE(site(10)->count, int64_t(60));
    QCOMPARE(site(10)->blockedNs, int64_t(60'000));
    QCOMPARE(site(30)->joinedLines, std::vector<Joined>({{31, 21, 21'000}}));
    QCOMPARE(site(30)->count, int64_t(41));
    for (int64_t line : {16, 17, 18, 40, 41}) {
        QVERIFY(site(line)->joinedLines.empty());
        QCOMPARE(site(line)->count, int64_t(line == 41 ? 22 : 20));
    }
    // JSON: each joined line with its part.
    for (const QJsonValue& value : model::insightReportToJsonObject(report)["sites"].toArray()) {
        const QJsonObject object = value.toObject();
        const QJsonArray lines = object["joined_lines"].toArray();
        const int64_t line = object["site"].toObject()["line"].toInteger();
        QCOMPARE(lines.size(), line == 10 ? 2 : line == 30 ? 1 : 0);
        QCOMPARE(object.contains("joined_lines"), !lines.isEmpty());
        if (line != 10)
            continue;
        QCOMPARE(lines[1].toObject()["line"].toInteger(), 13);
        QCOMPARE(lines[1].toObject()["count"].toInteger(), 20);
        QCOMPARE(lines[1].toObject()["blocked_ns"].toInteger(), 20'000);
    }
    // Every sync still has a site: the sites' counts add up to the syncs.
    int64_t total = 0;
    for (const model::SyncSiteStats& stats : report.sites)
        total += stats.count;
    QCOMPARE(total, int64_t(20 * 10 + 1 + 2));
}

void TestSyncSites::stacklessSyncsJoinTheirCall() {
    InsightFixture f(m_dir.filePath("stackless.stallscope").toStdString());
    f.writer().setMeta(format::meta::kRecorderStacks, "1");
    const int64_t pinThread = f.addThread(4243);
    // PyTorch's pin-memory thread: cudaHostAlloc (an API record, no callback, no stack) made a
    // CUPTI synchronization record that the recorder wrote on the process's main thread.
    const int64_t hostAlloc = f.writer().internString("cudaHostAlloc");
    f.writer().addApiCall(
        {pinThread, format::ApiDomain::Runtime, 9, hostAlloc, 100'000, 160'000, 9001, 0});
    recordOnlySync(f, SyncKind::Device, 110'000, 150'000, 9001);
    // A record no API call of its process correlates to (the call's record was not kept); the
    // same correlation id in another process is another call.
    recordOnlySync(f, SyncKind::Device, 300'000, 300'500, 9002);
    const int64_t otherProcess =
        f.writer().addProcess({4300, "box", "python other.py", 0, 1'000'000, 0});
    const int64_t otherThread = f.writer().addThread({otherProcess, 4300, "python"});
    f.writer().addApiCall(
        {otherThread, format::ApiDomain::Runtime, 9, hostAlloc, 290'000, 310'000, 9002, 0});
    // A sync call of the program's whose stack is missing.
    f.sync(SyncKind::Stream, 400'000, 400'700, std::nullopt, f.stream);
    // A stack of driver frames only: the driver synchronized by itself.
    f.sync(SyncKind::Device, 500'000, 500'900, f.stackOf({f.driverFrame(), f.driverFrame(0x99)}),
           f.stream);
    // And a user's line, the only user finding.
    f.sync(SyncKind::Stream, 600'000, 600'100, f.pythonStack("/home/u/train.py", 9, "main"),
           f.stream);
    const testing::LoadedFixture loaded = f.load();
    QVERIFY(loaded.ok());
    const model::Session& session = *loaded.session;

    // The pinning sync moved to the pin-memory thread; the others stay on the main thread.
    QCOMPARE(session.hostLanes.size(), size_t(3));
    QVERIFY(session.hostLanes[2].syncs.empty()); // the other process's thread
    const model::HostLane& main = session.hostLanes[0];
    const model::HostLane& pin = session.hostLanes[1];
    QCOMPARE(session.threads[pin.threadIndex].tid, int64_t(4243));
    QCOMPARE(pin.syncs.size(), size_t(1));
    QCOMPARE(pin.syncs.start[0], int64_t(110'000));
    QCOMPARE(pin.syncs.correlationId[0], uint32_t(9001));
    QCOMPARE(main.syncs.size(), size_t(4));
    QVERIFY(main.syncs.isSorted());
    QCOMPARE(main.syncs.start[0], int64_t(300'000));
    QCOMPARE(main.syncs.end[3], int64_t(600'100));
    QCOMPARE(session.counts.syncs, int64_t(5));

    const model::InsightReport report = loaded.analyze();
    QCOMPARE(report.sites.size(), size_t(4));
    const model::SyncSiteStats* viaAlloc =
        siteLabelled(report, "<driver-internal> in cudaHostAlloc");
    const model::SyncSiteStats* noCall = siteLabelled(report, "<driver-internal>");
    const model::SyncSiteStats* noStack = siteLabelled(report, "<unknown> (<no stack>)");
    const model::SyncSiteStats* user = siteLabelled(report, "train.py:9 in main");
    QVERIFY(viaAlloc && noCall && noStack && user);
    QCOMPARE(viaAlloc->count, int64_t(1));
    QCOMPARE(viaAlloc->blockedNs, int64_t(40'000));
    QVERIFY(viaAlloc->driverInternal && !viaAlloc->isUserFinding());
    // The orphan record and the driver-only stack share the plain <driver-internal> site.
    QCOMPARE(noCall->count, int64_t(2));
    QVERIFY(noCall->driverInternal && !noCall->noStack && !noCall->isUserFinding());
    QVERIFY(noStack->noStack && !noStack->driverInternal && !noStack->isUserFinding());
    QVERIFY(!user->driverInternal && !user->noStack && user->isUserFinding());
}

void TestSyncSites::stacklessSyncsOfUnstackedSessions() {
    // Recorded without stacks (or imported): nothing says a stackless sync was the driver's.
    InsightFixture f(m_dir.filePath("unstacked.stallscope").toStdString());
    recordOnlySync(f, SyncKind::Stream, 10'000, 12'000, 77);
    const model::InsightReport report = f.load().analyze();
    QVERIFY(f.ok());
    QCOMPARE(report.sites.size(), size_t(1));
    QCOMPARE(report.sites[0].site.function, std::string("<no stack>"));
    QVERIFY(report.sites[0].noStack && !report.sites[0].driverInternal);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSyncSites)
#include "test_sync_sites.moc"
