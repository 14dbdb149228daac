// Imports the real torch.profiler traces of data/ (made by data/make_traces.py on an H200,
// PyTorch 2.11, CUDA 13.0): syncs, their kinds and the Python functions they come from, the
// def-line marking of Kineto frames, GPU lanes, ranges, multi-rank folders, and — with the
// insight engine — that the expected rules fire at the expected functions.
#include "format/module_class.h"
#include "tests/interop/interop_support.h"

#include "model/analysis/analysis_window.h"
#include "model/analysis/insight_engine.h"
#include "model/session/python_frame_name.h"
#include "tests/support/test_suite.h"

#include <algorithm>

#include <QDir>
#include <QFile>

using namespace interop;
using stallscope::format::SyncKind;

namespace {
constexpr int kSteps = 12; // STEPS in make_traces.py
std::string key(SyncKind kind, const char* function) {
    return std::to_string(static_cast<int>(kind)) + "@" + function;
}
bool carries(const Insight& insight, InsightRule rule) {
    return std::find(insight.rules.begin(), insight.rules.end(), rule) != insight.rules.end();
}
// The finding at `function` that carries `rule`'s evidence.
const Insight* findInsight(const InsightReport& report, InsightRule rule,
                           const std::string& function) {
    for (const Insight& insight : report.insights)
        if (carries(insight, rule) && insight.site.function == function)
            return &insight;
    return nullptr;
}
int countRule(const InsightReport& report, InsightRule rule) {
    int n = 0;
    for (const Insight& insight : report.insights)
        n += carries(insight, rule);
    return n;
}
} // namespace

class TestKinetoImport : public QObject {
    Q_OBJECT
private slots:
    void itemLoop() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath("item_loop.json.gz"));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const auto sites = syncsBySite(*imported->session, imported->database);
        // .item() = cudaMemcpyAsync to pinned memory + cudaStreamSynchronize: the copy does not
        // block, the stream sync does, once per step, in train_item.
        QVERIFY2(sites.at(key(SyncKind::Stream, "train_item")) == kSteps,
                 qPrintable(describe(sites)));
        QVERIFY2(!sites.count(key(SyncKind::PageableCopy, "train_item")),
                 qPrintable(describe(sites)));
        // The innermost frame is the built-in behind .item(), its address stripped.
        const HostLane* main = nullptr;
        for (const HostLane& lane : imported->session->hostLanes)
            if (!lane.syncs.empty())
                main = &lane;
        QVERIFY(main);
        const auto stack = imported->database.stack(main->syncs.stackId[0]);
        QVERIFY(stack.size() >= 3);
        QCOMPARE(stack.front().function, std::string("<built-in method item of Tensor object>"));
        QCOMPARE(stack.front().isUser, std::optional<bool>(false));
        // GPU side: one device, kernels and the 12 DtoH copies to pinned memory on stream 7.
        const Session& s = *imported->session;
        QCOMPARE(s.devices.size(), size_t(1));
        QCOMPARE(s.devices[0].name, std::string("NVIDIA H200"));
        QCOMPARE(s.devices[0].smCount, int64_t(132));
        QCOMPARE(s.counts.memcpys, int64_t(kSteps));
        QCOMPARE(s.counts.kernels, int64_t(216));
        // Less the cudaDeviceGetAttribute before the first launch: outside the device window.
        QCOMPARE(s.counts.apiCalls, int64_t(242 + 24 - 1));
        QCOMPARE(s.metaValue("import_window"), std::string("device activity"));
        QCOMPARE(s.metaValue("import_window_dropped_rows"), std::string("2")); // it and zero_grad
        // user_annotation + gpu_user_annotation, less a zero_grad before the first GPU work
        QCOMPARE(s.counts.ranges, int64_t(24 + 12 - 1));
        QCOMPARE(s.metaValue("import_format"), std::string("kineto"));
        QVERIFY(s.metaValue("import_ignored_categories").find("cpu_op=1068") != std::string::npos);
    }

    void defLineFrames() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath("item_loop.json.gz"));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const HostLane* lane = nullptr;
        for (const HostLane& l : imported->session->hostLanes)
            if (!l.syncs.empty())
                lane = &l;
        QVERIFY(lane);
        const FrameInfo frame = userFrame(imported->database, lane->syncs.stackId[0]);
        QCOMPARE(frame.function, std::string("train_item"));
        QCOMPARE(frame.file, std::string("make_traces.py"));
        QCOMPARE(frame.line, int64_t(30)); // the def line of train_item in make_traces.py
        QVERIFY(isDefLineFrame(frame));
        QCOMPARE(frameChipLabel(frame), std::string("make_traces.py · train_item()"));
        FrameInfo exact = frame;
        exact.column = 0;
        QCOMPARE(frameChipLabel(exact), std::string("make_traces.py:30 · train_item()"));
        QVERIFY(!stallscope::format::isUserPythonFile("torch/nn/modules/module.py"));
        QVERIFY(!stallscope::format::isUserPythonFile("typing.py"));
        QVERIFY(!stallscope::format::isUserPythonFile("/usr/lib/python3.12/site-packages/x/y.py"));
        QVERIFY(stallscope::format::isUserPythonFile("/home/me/train.py"));
        QVERIFY(stallscope::format::isUserPythonFile("models/net.py"));
    }

    void syncLoop() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath("sync_loop.json.gz"));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const auto sites = syncsBySite(*imported->session, imported->database);
        // torch.cuda.synchronize() -> torch/cuda/__init__.py (not user code) -> train_sync.
        QVERIFY2(sites.at(key(SyncKind::Device, "train_sync")) == kSteps,
                 qPrintable(describe(sites)));
        QVERIFY2(sites.size() == 2 && sites.at(key(SyncKind::Device, "main")) == 2,
                 qPrintable(describe(sites)));
    }

    void cleanLoop() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath("clean_loop.json.gz"));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const auto sites = syncsBySite(*imported->session, imported->database);
        // One read after the loop, plus the profiler's own synchronize calls in main.
        QVERIFY2(sites.at(key(SyncKind::Stream, "train_clean")) == 1, qPrintable(describe(sites)));
        QVERIFY2(sites.size() == 2, qPrintable(describe(sites)));
    }

    void cpuLoop() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath("cpu_loop.json.gz"));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const auto sites = syncsBySite(*imported->session, imported->database);
        // .cpu() = cudaMemcpyAsync into pageable memory (blocks: PageableCopy) + a stream sync.
        QVERIFY2(sites.at(key(SyncKind::PageableCopy, "infer_cpu")) == kSteps,
                 qPrintable(describe(sites)));
        QVERIFY2(sites.at(key(SyncKind::Stream, "infer_cpu")) == kSteps,
                 qPrintable(describe(sites)));
        int pageable = 0;
        for (const StreamLane& lane : imported->session->streamLanes)
            for (size_t i = 0; i < lane.memcpys.size(); ++i)
                pageable += lane.memcpys.dstKind[i] == 1 && lane.memcpys.copyKind[i] == 2 &&
                            lane.memcpys.bytes[i] == 4194304;
        QCOMPARE(pageable, kSteps);
    }

    void eventLoopWithCudaSyncEvents() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, dataPath("event_loop.json.gz"));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const auto sites = syncsBySite(*imported->session, imported->database);
        QVERIFY2(sites.at(key(SyncKind::Event, "wait_event")) == kSteps,
                 qPrintable(describe(sites)));
        // cuda_sync events are present in this trace: they add the waited event id, and are
        // not counted a second time.
        QCOMPARE(imported->session->counts.syncs, int64_t(kSteps + 2));
        const auto events = imported->database.cudaEvents();
        (void)events;
    }

    void insightsFireAtTheRightFunctions() {
        enum Expect { No, Yes };
        struct Case {
            const char* file;
            const char* function;
            Expect inLoop;
            bool pageable;
            const char* library = ""; // the label's library frame, when the sync is in one
            bool siteFinding = true;  // the loop's site is a finding of kSteps calls
        } cases[] = {
            // A tiny model: each .item() / synchronize() saves ~8 µs of a ~2.8 ms step (the
            // host's Python is the bottleneck), under the in-loop rule's 5 % of the period.
            {"item_loop.json.gz", "train_item", No, false},
            // torch.cuda.synchronize(): the user's function, the library function that synced.
            {"sync_loop.json.gz", "train_sync", No, false,
             " → torch/cuda/__init__.py · synchronize()"},
            // Each .cpu() is two syncs at one site (the pageable copy, then a stream sync with
            // no launch between them): the engine counts them as one call per step.
            {"cpu_loop.json.gz", "infer_cpu", Yes, true},
            // One read after the loop: too cheap to be simulated.
            {"clean_loop.json.gz", "train_clean", No, false, "", false},
        };
        for (const Case& c : cases) {
            QTemporaryDir dir;
            auto imported = importTrace(dir, dataPath(c.file));
            QVERIFY2(imported->ok(), imported->error.c_str());
            // The whole trace: the loops' first and last reads lie outside the active window.
            stallscope::model::AnalysisOptions options;
            options.window = stallscope::model::sessionWindow(*imported->session);
            const InsightReport report =
                InsightEngine::analyze(*imported->session, imported->database, options);
            QString all;
            for (const Insight& insight : report.insights)
                all += QString::fromStdString(std::string(ruleId(insight.rule)) + "@" +
                                              insight.site.function + " ");
            const Insight* inLoop = findInsight(report, InsightRule::InLoopSync, c.function);
            QVERIFY2((inLoop != nullptr) == (c.inLoop == Yes),
                     qPrintable(QString(c.file) + ": " + all));
            // Every loop's site is one finding, counted per call.
            const Insight* site = findInsight(report, InsightRule::SyncAttribution, c.function);
            if (!c.siteFinding) {
                QVERIFY2(!site, qPrintable(all));
                continue;
            }
            QVERIFY2(site, qPrintable(QString(c.file) + ": " + all));
            QCOMPARE(site->count, int64_t(kSteps));
            QCOMPARE(site->site.file, std::string("make_traces.py"));
            // Kineto records the def line only: the label must not pretend otherwise.
            QVERIFY(site->site.lineIsDefinition);
            QCOMPARE(site->site.label(),
                     std::string("make_traces.py · ") + c.function + "()" + c.library);
            const Insight* pageable = findInsight(report, InsightRule::PageableCopy, c.function);
            QVERIFY2((pageable != nullptr) == c.pageable, qPrintable(QString(c.file) + ": " + all));
            if (pageable)
                QCOMPARE(pageable->bytes, int64_t(kSteps) * 4194304);
            if (c.inLoop == No)
                QVERIFY2(countRule(report, InsightRule::InLoopSync) == 0, qPrintable(all));
        }
    }

    void multiRankFolder() {
        QTemporaryDir traces;
        QVERIFY(QFile::copy(QString::fromStdString(dataPath("item_loop.json.gz")),
                            traces.filePath("rank0.json.gz")));
        QVERIFY(QFile::copy(QString::fromStdString(dataPath("cpu_loop.json.gz")),
                            traces.filePath("rank1.json.gz")));
        QFile note(traces.filePath("README.txt")); // not a trace: skipped
        QVERIFY(note.open(QIODevice::WriteOnly));
        note.close();
        QVERIFY(KinetoImporter::looksLikeTrace(traces.path().toStdString()));
        QTemporaryDir out;
        auto imported = importTrace(out, traces.path().toStdString());
        QVERIFY2(imported->ok(), imported->error.c_str());
        const Session& s = *imported->session;
        QCOMPARE(s.processes.size(), size_t(2));
        QCOMPARE(s.devices.size(), size_t(2));
        QCOMPARE(s.counts.syncs, int64_t((kSteps + 2) + (2 * kSteps + 2)));
        QCOMPARE(imported->import.stats.files, int64_t(2));
    }

    void loadThroughTheCache() {
        QTemporaryDir cache;
        qputenv("STALLSCOPE_IMPORT_CACHE", cache.path().toUtf8());
        const std::string trace = dataPath("sync_loop.json.gz");
        const std::string cached = KinetoImporter::cachePathFor(trace);
        QVERIFY(QString::fromStdString(cached).startsWith(cache.path()));
        SessionOpener opener;
        registerKinetoImporter(opener);
        QCOMPARE(opener.importerFor(trace).name, std::string("torch.profiler trace"));
        QCOMPARE(opener.inputsOf(trace), std::vector<std::string>{trace});
        LoadResult first = opener.open(trace);
        QVERIFY2(first.ok(), first.error.c_str());
        QCOMPARE(first.session->path, cached);
        QVERIFY(QFile::exists(QString::fromStdString(cached)));
        LoadResult second = KinetoImporter::load(trace); // reuses the converted file
        QVERIFY2(second.ok(), second.error.c_str());
        QCOMPARE(second.session->counts.total(), first.session->counts.total());
        qunsetenv("STALLSCOPE_IMPORT_CACHE");
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestKinetoImport)
#include "test_kineto_import.moc"
