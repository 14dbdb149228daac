// Bad input to the Kineto importer: each case fails with one line that names the file and the
// problem (byte offset for malformed JSON), leaves no session file behind, and never crashes.
#include "tests/interop/interop_support.h"
#include "tests/support/test_suite.h"
#include "tests/support/write_file.h"

#include <QDir>
#include <QFile>

using namespace interop;

namespace {

const char* kSmallTrace = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU X"}],
"traceEvents": [
 {"ph": "X", "cat": "python_function", "name": "train.py(3): step", "pid": 7, "tid": 7, "ts": 100.5, "dur": 50},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 7, "tid": 7, "ts": 120, "dur": 10.25, "args": {"cbid": 131, "correlation": 5}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 101, "dur": 18, "args": {"device": 0, "stream": 7, "correlation": 4, "grid": [2, 3, 4]}},
 {"ph": "X", "cat": "my_tool", "name": "other", "pid": 7, "tid": 7, "ts": 1, "dur": 1},
 {"ph": "X", "cat": "my_tool", "name": "other", "pid": 7, "tid": 7, "ts": 2, "dur": 1}
]})";

} // namespace

class TestKinetoErrors : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // Empty when the write failed (which failed the test).
    std::string write(const QString& name, const QByteArray& bytes) {
        return stallscope::testing::writeFile(m_dir, name, bytes).toStdString();
    }
    void expectError(const std::string& trace, const std::string& expected) {
        expectImportError(m_dir, trace, expected);
    }

private slots:
    void smallTraceImports() {
        QTemporaryDir dir;
        auto imported = importTrace(dir, write("small.json", kSmallTrace));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const Session& s = *imported->session;
        QCOMPARE(s.counts.syncs, int64_t(1));
        QCOMPARE(s.counts.kernels, int64_t(1));
        // Microseconds with decimals become exact nanoseconds.
        const HostLane& lane = s.hostLanes.front();
        QCOMPARE(lane.syncs.start[0], int64_t(120000));
        QCOMPARE(lane.syncs.end[0], int64_t(130250));
        QCOMPARE(s.devices[0].name, std::string("GPU X"));
        QCOMPARE(imported->database.kernelDetails(1)->grid[2], 4);
        // Unknown categories are skipped and counted.
        QCOMPARE(s.metaValue("import_unknown_categories"), std::string("my_tool=2"));
        QCOMPARE(s.metaValue("import_unknown_events"), std::string("2"));
        const auto stack = imported->database.stack(lane.syncs.stackId[0]);
        QCOMPARE(stack.size(), size_t(1));
        QCOMPARE(stack[0].function, std::string("step"));
        QCOMPARE(stack[0].isUser, std::optional<bool>(true));
    }

    void malformedJson() {
        const std::string path = write(
            "malformed.json", R"({"traceEvents": [{"ph": "X", "cat": "kernel" "name": "k"}]})");
        expectError(path, "malformed JSON at byte 45");
    }

    void trailingGarbage() {
        expectError(write("trailing.json", R"({"traceEvents": []} {"again": 1})"),
                    "malformed JSON at byte");
    }

    void truncatedJson() {
        const QByteArray text(kSmallTrace);
        expectError(write("truncated.json", text.left(text.size() / 2)), "truncated");
    }

    void truncatedGzip() {
        QFile real(QString::fromStdString(dataPath("item_loop.json.gz")));
        QVERIFY(real.open(QIODevice::ReadOnly));
        const QByteArray bytes = real.readAll();
        expectError(write("truncated.json.gz", bytes.left(bytes.size() / 2)), "truncated");
    }

    void notKineto() {
        expectError(write("object.json", R"({"a": 1})"),
                    "not a PyTorch profiler (Kineto) trace: no \"traceEvents\"");
        expectError(write("array.json", R"([{"ph": "X", "name": "x", "ts": 1, "dur": 2}])"),
                    "not a PyTorch profiler (Kineto) trace: the top-level JSON value is an array");
        expectError(write("events-not-array.json", R"({"traceEvents": {"x": 1}})"),
                    "\"traceEvents\" is not an array");
        expectError(write("scalar.json", R"({"traceEvents": 3})"),
                    "\"traceEvents\" is not an array");
        expectError(
            write(
                "chrome.json",
                R"({"traceEvents": [{"ph": "X", "cat": "blink", "name": "x", "ts": 1, "dur": 2}]})"),
            "none of its 1 events has a Kineto category");
        expectError(write("empty.json", ""), "empty file");
        expectError(write("binary.json.gz", QByteArray("\x1f\x8b\x08\x00garbage", 12)), "");
    }

    void missingInputs() {
        const std::string missing = m_dir.filePath("missing.json").toStdString();
        const KinetoImportResult result =
            KinetoImporter::convert(missing, m_dir.filePath("o.stallscope").toStdString());
        QVERIFY(!result.ok);
        QVERIFY2(result.error.find(missing) == 0 &&
                     result.error.find("no such file") != std::string::npos,
                 result.error.c_str());
        QTemporaryDir empty;
        const KinetoImportResult folder = KinetoImporter::convert(
            empty.path().toStdString(), m_dir.filePath("o.stallscope").toStdString());
        QVERIFY(!folder.ok);
        QVERIFY2(folder.error.find("no .json or .json.gz") != std::string::npos,
                 folder.error.c_str());
    }

    void cancellation() {
        std::atomic<bool> cancel{true};
        KinetoImportOptions options;
        options.cancel = &cancel;
        // The poll runs every 64 Ki events: a big enough trace is needed to reach it.
        QByteArray big = R"({"traceEvents": [)";
        for (int i = 0; i < 70000; ++i)
            big +=
                R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 1},)";
        big +=
            R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})";
        const std::string out = m_dir.filePath("cancelled.stallscope").toStdString();
        const std::string trace = write("big.json", big);
        QVERIFY(!trace.empty());
        const KinetoImportResult result = KinetoImporter::convert(trace, out, options);
        QVERIFY(!result.ok);
        QVERIFY(result.cancelled);
        QVERIFY(!QFile::exists(QString::fromStdString(out)));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestKinetoErrors)
#include "test_kineto_errors.moc"
