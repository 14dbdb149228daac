// Kineto dialects (issue 15): traces written by PyTorch 1.8-1.10 (capitalized categories:
// Kernel, Runtime, Memcpy, Memset, Operator) import like current ones, and a trace with no GPU
// work and no CUDA calls is an error, never an empty session. Each fixture is written by the test.
#include "model/interop/kineto_begin_end.h"
#include "tests/interop/interop_support.h"

#include "model/session/session_summary.h"
#include "tests/support/test_suite.h"

#include <QDir>
#include <QFile>

#include <map>

using namespace interop;

namespace {

std::string writeTrace(const QTemporaryDir& dir, const char* name, const QByteArray& json) {
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size())
        return {};
    return path.toStdString();
}

// One training step as PyTorch 1.8 wrote it: an operator, a kernel launch and its kernel, a
// device-to-pageable copy with its runtime call, a memset, and a stream synchronize. `categories`
// names the five categories in the trace's spelling: operator, runtime, kernel, memcpy, memset.
QByteArray legacyStep(const QStringList& categories) {
    const QString op = categories[0], runtime = categories[1], kernel = categories[2],
                  memcpy = categories[3], memset = categories[4];
    return QString::fromUtf8(R"json({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "%1", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 1000, "dur": 40,
   "args": {"Input dims": [[64, 64], [64, 64]], "external id": 1}},
  {"ph": "X", "cat": "%2", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1010, "dur": 8,
   "args": {"cbid": 211, "correlation": 101, "external id": 1}},
  {"ph": "X", "cat": "%3", "name": "volta_sgemm_64x64_nn", "pid": 0, "tid": "stream 7",
   "ts": 1020, "dur": 30, "args": {"queued": 0, "device": 0, "context": 1, "stream": 7,
   "correlation": 101, "external id": 1, "registers per thread": 72, "shared memory": 8192,
   "grid": [4, 4, 1], "block": [256, 1, 1]}},
  {"ph": "X", "cat": "%2", "name": "cudaMemcpyAsync", "pid": 7, "tid": 7, "ts": 1060, "dur": 50,
   "args": {"cbid": 41, "correlation": 102, "external id": 2}},
  {"ph": "X", "cat": "%4", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0,
   "tid": "stream 7", "ts": 1070, "dur": 20, "args": {"device": 0, "context": 1, "stream": 7,
   "correlation": 102, "external id": 2, "bytes": 16384, "memory bandwidth (GB/s)": 0.8}},
  {"ph": "X", "cat": "%2", "name": "cudaMemsetAsync", "pid": 7, "tid": 7, "ts": 1120, "dur": 5,
   "args": {"cbid": 51, "correlation": 103, "external id": 3}},
  {"ph": "X", "cat": "%5", "name": "Memset (Device)", "pid": 0, "tid": "stream 7", "ts": 1130,
   "dur": 2, "args": {"device": 0, "context": 1, "stream": 7, "correlation": 103,
   "external id": 3, "bytes": 4096}},
  {"ph": "X", "cat": "%2", "name": "cudaStreamSynchronize", "pid": 7, "tid": 7, "ts": 1140,
   "dur": 12, "args": {"cbid": 131, "correlation": 104, "external id": 4}}
]})json")
        .arg(op, runtime, kernel, memcpy, memset)
        .toUtf8();
}

// The value --info shows for `label` ("Imported", "GPUs"); empty when it has no such row.
std::string summaryValue(const Session& session, const std::string& label) {
    for (const auto& [row, value] : SessionSummary::of(session).rows)
        if (row == label)
            return value;
    return {};
}

} // namespace

class TestKinetoDialects : public QObject {
    Q_OBJECT
private slots:
    // Both sides of the aliasing: the old capitalized spelling, an all-caps spelling, and the
    // current names all give the same session.
    void legacyCategoriesImportLikeCurrentOnes_data() {
        QTest::addColumn<QStringList>("categories");
        QTest::newRow("PyTorch 1.8")
            << QStringList{"Operator", "Runtime", "Kernel", "Memcpy", "Memset"};
        QTest::newRow("upper case")
            << QStringList{"OPERATOR", "RUNTIME", "KERNEL", "MEMCPY", "MEMSET"};
        QTest::newRow("current") << QStringList{"cpu_op", "cuda_runtime", "kernel", "gpu_memcpy",
                                                "gpu_memset"};
    }
    void legacyCategoriesImportLikeCurrentOnes() {
        QFETCH(QStringList, categories);
        QTemporaryDir dir;
        const std::string trace = writeTrace(dir, "step.json", legacyStep(categories));
        auto imported = importTrace(dir, trace);
        QVERIFY2(imported->ok(), imported->error.c_str());
        const Session& s = *imported->session;
        QCOMPARE(s.counts.kernels, 1);
        QCOMPARE(s.counts.memcpys, 1);
        QCOMPARE(s.counts.memsets, 1);
        QCOMPARE(s.counts.apiCalls, 4);
        QVERIFY(s.metaValue("import_unknown_categories").empty());
        // The launch and its kernel are linked by correlation; the copy still lands on its stream.
        QCOMPARE(s.streamLanes.size(), size_t(1));
        QCOMPARE(s.streamLanes[0].kernels.correlationId[0], uint32_t(101));
        // --info says what was read and what was not used.
        const std::string importLine = summaryValue(s, "Imported");
        const std::string expected =
            "8 trace events read; not used: " + categories[0].toStdString() + "=1";
        QCOMPARE(importLine, expected);
    }

    // A run's folder: every profiler trace once, other JSON skipped with a reason each.
    void folderImportsEachTraceOnce() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("run"));
        const QStringList current{"cpu_op", "cuda_runtime", "kernel", "gpu_memcpy", "gpu_memset"};
        QByteArray rank1 = legacyStep(current);
        rank1.replace("\"pid\": 7", "\"pid\": 8");
        writeTrace(dir, "run/rank0.json", legacyStep(current));
        writeTrace(dir, "run/rank0_copy.json", legacyStep(current));
        writeTrace(dir, "run/rank1.json", rank1);
        writeTrace(dir, "run/config.json", R"({"lr": 0.1, "epochs": 3})");
        writeTrace(dir, "run/train_et.json", R"({"schema": "1.0.2-chakra", "nodes": []})");
        auto imported = importTrace(dir, dir.filePath("run").toStdString());
        QVERIFY2(imported->ok(), imported->error.c_str());
        QCOMPARE(imported->session->counts.kernels, 2); // rank0 and rank1, the copy once
        QCOMPARE(imported->session->metaValue("import_files"), std::string("2"));
        const std::string& warning = imported->session->warning;
        for (const char* expected :
             {"config.json: not a profiler trace", "train_et.json: not a profiler trace",
              "rank0_copy.json: the same content as rank0.json"})
            QVERIFY2(warning.find(expected) != std::string::npos, warning.c_str());
        QVERIFY2(warning.find("rank1.json") == std::string::npos, warning.c_str());

        QVERIFY(QDir(dir.path()).mkdir("empty"));
        writeTrace(dir, "empty/config.json", R"({"lr": 0.1})");
        expectImportError(dir, dir.filePath("empty").toStdString(),
                          "folder holds no profiler traces (skipped config.json: not a profiler "
                          "trace");
    }

    // Begin/end pairs (other tools' traces) become complete events, nested per thread; an end
    // without its begin and a begin never ended are counted in the warning. Instant events and
    // flows are read and left out by name ("kernel (ph i)").
    void beginEndPairsBecomeSpans() {
        QTemporaryDir dir;
        const std::string trace = writeTrace(dir, "begin_end.json", R"({"traceEvents": [
  {"ph": "B", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 10,
   "args": {"correlation": 1}},
  {"ph": "E", "pid": 7, "tid": 7, "ts": 14},
  {"ph": "B", "cat": "kernel", "name": "k_outer", "pid": 0, "tid": 3, "ts": 20,
   "args": {"device": 0, "stream": 3, "correlation": 1}},
  {"ph": "B", "cat": "kernel", "name": "k_inner", "pid": 0, "tid": 3, "ts": 25,
   "args": {"device": 0, "stream": 3}},
  {"ph": "E", "pid": 0, "tid": 3, "ts": 27},
  {"ph": "E", "pid": 0, "tid": 3, "ts": 60},
  {"ph": "B", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 7, "tid": 7,
   "ts": 30, "args": {"correlation": 2}},
  {"ph": "E", "pid": 7, "tid": 7, "ts": 61},
  {"ph": "E", "pid": 7, "tid": 8, "ts": 62},
  {"ph": "i", "cat": "kernel", "name": "marker", "pid": 0, "tid": 3, "ts": 40, "s": "t"},
  {"ph": "B", "cat": "cuda_runtime", "name": "cudaMalloc", "pid": 7, "tid": 7, "ts": 70}
]})");
        auto imported = importTrace(dir, trace);
        QVERIFY2(imported->ok(), imported->error.c_str());
        const Session& s = *imported->session;
        QCOMPARE(s.counts.kernels, 2);
        QCOMPARE(s.counts.apiCalls, 2);
        QCOMPARE(s.counts.syncs, 1);
        const auto& kernels = s.streamLanes.at(0).kernels;
        std::map<int64_t, int64_t> durationByStart; // first and last of the nested pair
        for (size_t i = 0; i < kernels.size(); ++i)
            durationByStart[kernels.start[i]] = kernels.end[i] - kernels.start[i];
        const int64_t base = s.startNs; // the launch at 10 µs: the window starts there
        QCOMPARE(durationByStart.at(base + 20000 - 10000), int64_t(40000));
        QCOMPARE(durationByStart.at(base + 25000 - 10000), int64_t(2000));
        QCOMPARE(imported->import.stats.unpairedBeginEnd, int64_t(2));
        QVERIFY2(s.warning.find("2 begin/end (B/E) events without their pair skipped") !=
                     std::string::npos,
                 s.warning.c_str());
        // No deviceProperties: the device is "GPU 0", not a made-up model or "sm_00".
        QCOMPARE(summaryValue(s, "GPUs"), std::string("GPU 0 (model not recorded)"));
        QVERIFY(s.devices.at(0).name.empty());
        QVERIFY2(s.metaValue("import_ignored_categories").find("kernel (ph i)=1") !=
                     std::string::npos,
                 s.metaValue("import_ignored_categories").c_str());
    }

    // Begins waiting for their end hold at most kMaxOpenBeginBytes: one more is refused and
    // counted, and the pairing goes on with those held (the last held one ends first).
    void openBeginsAreBounded() {
        struct Collected final : KinetoEventSink {
            std::vector<KinetoEvent> events;
            void onDeviceProperties(const KinetoDeviceProperties&) override {}
            void onRank(int64_t) override {}
            bool onEvent(const KinetoEvent& event) override {
                events.push_back(event);
                return true;
            }
        } sink;
        KinetoBeginEndPairs pairs(sink);
        KinetoEvent begin;
        begin.ph = 'B';
        begin.hasTs = begin.pidIsNumber = begin.tidIsNumber = true;
        begin.name.assign(kMaxNameBytes, 'n');
        const int64_t held = int64_t(kMaxOpenBeginBytes / (sizeof(KinetoEvent) + kMaxNameBytes));
        for (int64_t i = 0; i <= held; ++i) { // one more than fits
            begin.tsNs = i;
            QVERIFY(pairs.onEvent(begin));
        }
        QCOMPARE(pairs.unpaired(), held + 1); // `held` open, one refused
        KinetoEvent end;
        end.ph = 'E';
        end.hasTs = end.pidIsNumber = end.tidIsNumber = true;
        end.tsNs = 1000000;
        QVERIFY(pairs.onEvent(end));
        QCOMPARE(sink.events.size(), size_t(1));
        QCOMPARE(sink.events[0].ph, 'X');
        QCOMPARE(sink.events[0].tsNs, held - 1);
        QCOMPARE(sink.events[0].durNs, 1000000 - (held - 1));
        QCOMPARE(pairs.unpaired(), held); // held - 1 still open, one refused
    }

    // Nothing to show is an error naming what the trace did hold, not an empty session.
    void traceWithoutCudaEventsIsAnError() {
        QTemporaryDir dir;
        const std::string trace = writeTrace(dir, "cpu_only.json", R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
  {"ph": "X", "cat": "python_function", "name": "train.py(3): main", "pid": 1, "tid": 1,
   "ts": 1, "dur": 50, "args": {"Python id": 1, "Python parent id": 0}}
]})");
        expectImportError(dir, trace, "no GPU work and no CUDA calls among its 2 events");
        expectImportError(dir, trace, "cpu_op 1");
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestKinetoDialects)
#include "test_kineto_dialects.moc"
