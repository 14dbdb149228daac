// Hostile torch.profiler traces (issue 13): each crafted here, each refused with one error naming
// the file — never a crash, a hang or unbounded memory — and no session or import cache left.
#include "format/session_tables.h"
#include "model/interop/kineto_input_stream.h"
#include "model/interop/kineto_sax_handler.h"
#include "tests/interop/interop_support.h"
#include "tests/support/gzip.h"
#include "tests/support/test_suite.h"
#include "tests/support/write_file.h"

#include <QDir>
#include <QProcess>
#include <QProcessEnvironment>

#include <sys/resource.h>

#include <algorithm>
#include <vector>

using namespace interop;
using stallscope::testing::gzip;

namespace {

// One event of each kind the importer maps; `%1` is spliced in as the root object's first member.
const char* kTrace = R"({%1"traceEvents": [
 {"ph": "X", "cat": "python_function", "name": "train.py(3): step", "pid": 7, "tid": 7, "ts": 100, "dur": 50},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 7, "tid": 7, "ts": 120, "dur": 10, "args": {"correlation": 5}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 101, "dur": 18, "args": {"device": 0, "stream": 7, "grid": [2, 3, 4]}}
]})";

QByteArray trace(const QByteArray& rootMember = {}) {
    return QString::fromLatin1(kTrace).arg(QString::fromLatin1(rootMember)).toLatin1();
}

// A trace whose only event is `event` (plus one known event, so the file is a Kineto trace).
QByteArray traceWithEvent(const QByteArray& event) {
    return R"({"traceEvents": [)" + event +
           R"(, {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 7, "ts": 1, "dur": 1}]})";
}

// `prefix`, then `repeats` MiB of `fill`, then `suffix`, as concatenated gzip members (which
// gzip readers join): a bomb of hundreds of MiB made in milliseconds. Empty when gzip failed.
QByteArray gzipBomb(const QByteArray& prefix, char fill, int repeats, const QByteArray& suffix) {
    const QByteArray mebibyte = gzip(QByteArray(1 << 20, fill));
    QByteArray out = gzip(prefix);
    const QByteArray end = gzip(suffix);
    if (mebibyte.isEmpty() || out.isEmpty() || end.isEmpty())
        return {};
    for (int i = 0; i < repeats; ++i)
        out += mebibyte;
    return out + end;
}

int64_t peakRssMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024; // KiB on Linux
}

} // namespace

class TestKinetoHostile : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    std::string write(const QString& name, const QByteArray& bytes) {
        return stallscope::testing::writeFile(m_dir, name, bytes).toStdString();
    }
    void expectError(const std::string& path, const std::string& expected) {
        expectImportError(m_dir, path, expected);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // A Python line number of 20 digits is no line number: the name is kept whole (it threw
    // std::out_of_range from the explicit-sync stack parser and aborted).
    void pythonLinesBeyondInt64() {
        const QByteArray sync =
            R"({"ph": "X", "cat": "sync", "name": "stream synchronize", "pid": 7, "tid": 7, "ts": 200, "dur": 5, "args": {"kind": 1, "stack": ["train.py:99999999999999999999: f", "train.py:42: g"]}})";
        const QByteArray frame =
            R"({"ph": "X", "cat": "python_function", "name": "model.py(99999999999999999999): h", "pid": 7, "tid": 7, "ts": 190, "dur": 50})";
        QTemporaryDir dir;
        auto imported = importTrace(dir, write("lines.json", traceWithEvent(sync + ", " + frame)));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const HostLane& lane = imported->session->hostLanes.front();
        QCOMPARE(lane.syncs.size(), size_t(1));
        const auto stack = imported->database.stack(lane.syncs.stackId[0]);
        QCOMPARE(stack.size(), size_t(2));
        QCOMPARE(stack[0].function, std::string("train.py:99999999999999999999: f"));
        QVERIFY(stack[0].file.empty());
        QCOMPARE(stack[1].file, std::string("train.py"));
        QCOMPARE(stack[1].line, int64_t(42));
    }

    // A "sync" event's stack holds up to 4096 entries; one more is refused (memory per entry).
    void stackEntryLimit() {
        auto syncWithStack = [](size_t entries) {
            QByteArray stack = "\"[native] f\"";
            for (size_t i = 1; i < entries; ++i)
                stack += ", \"[native] f\"";
            return traceWithEvent(
                R"({"ph": "X", "cat": "sync", "name": "stream synchronize", "pid": 7, "tid": 7, "ts": 200, "dur": 5, "args": {"kind": 1, "stack": [)" +
                stack + "]}}");
        };
        QTemporaryDir dir;
        auto atLimit = importTrace(dir, write("stack4096.json", syncWithStack(kMaxStackEntries)));
        QVERIFY2(atLimit->ok(), atLimit->error.c_str());
        const HostLane& lane = atLimit->session->hostLanes.front();
        // A trace may list 4096 entries; a session keeps the innermost kMaxStackDepth.
        QCOMPARE(atLimit->database.stack(lane.syncs.stackId[0]).size(),
                 size_t(stallscope::format::kMaxStackDepth));
        expectError(write("stack4097.json", syncWithStack(kMaxStackEntries + 1)),
                    "a \"stack\" of more than 4096 entries (the limit)");
    }

    // Depth 64 (the root object is level 1) imports; 65 and a million are refused.
    void deepNesting() {
        auto nested = [](int levels) {
            return "\"deep\": " + QByteArray(levels, '[') + QByteArray(levels, ']') + ", ";
        };
        QTemporaryDir dir;
        auto atLimit = importTrace(dir, write("depth64.json", trace(nested(63))));
        QVERIFY2(atLimit->ok(), atLimit->error.c_str());
        QCOMPARE(atLimit->session->counts.kernels, int64_t(1));
        expectError(write("depth65.json", trace(nested(64))),
                    "JSON nested more than 64 levels deep (the limit) at byte 73");
        const QByteArray deep = gzip(trace(nested(1000000)));
        QVERIFY(!deep.isEmpty());
        expectError(write("deep.json.gz", deep), "JSON nested more than 64 levels deep");
    }

    // A bad CRC ends the import with zlib's reason. The failed read used to leave inflated bytes
    // where the end marker belongs: inside a string spanning the 1 MiB read chunk, the parser then
    // read the same byte for ever.
    void gzipWithBadCrc() {
        const QByteArray padding = "\"padding\": \"" + QByteArray(3 << 19, 'a') + "\", ";
        QByteArray bytes = gzip(trace(padding));
        QVERIFY(!bytes.isEmpty());
        bytes[bytes.size() - 8] = static_cast<char>(bytes[bytes.size() - 8] ^ 0xff); // CRC32
        const std::string path = write("bad-crc.json.gz", bytes);
        QVERIFY(!path.empty());
        expectError(path, "corrupt gzip data: incorrect data check");

        // The stream itself ends: at most the file's text is read before its end marker.
        KinetoInputStream stream;
        std::string error;
        QVERIFY2(stream.open(path, &error), error.c_str());
        int64_t reads = 0;
        while (stream.Peek() != '\0' && reads <= int64_t(2) << 20) {
            stream.Take();
            ++reads;
        }
        QCOMPARE(stream.Peek(), '\0');
        QCOMPARE(reads, int64_t(1) << 20); // the first chunk; the failed read gave nothing
        QCOMPARE(stream.readError(), std::string("corrupt gzip data: incorrect data check"));

        // Through the opener, as the GUI and --info open it: no converted session cached.
        const QString cache = m_dir.filePath("cache");
        qputenv("STALLSCOPE_IMPORT_CACHE", cache.toUtf8());
        const LoadResult loaded = KinetoImporter::load(path);
        qunsetenv("STALLSCOPE_IMPORT_CACHE");
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error.find(path + ": corrupt gzip data") == 0, loaded.error.c_str());
        QCOMPARE(QDir(cache).entryList(QDir::Files | QDir::Hidden).size(), 0);
    }

    void gzipTruncatedOrWithBadHeader() {
        const QByteArray bytes = gzip(trace());
        QVERIFY(!bytes.isEmpty());
        expectError(write("cut.json.gz", bytes.left(bytes.size() - 4)),
                    "compressed data ends early (truncated .gz file)");
        QByteArray badMethod = bytes;
        badMethod[2] = 7; // compression method: only 8 (deflate) exists
        expectError(write("bad-header.json.gz", badMethod), "corrupt gzip data: unknown");
    }

    // A 512 MiB name in a 0.5 MB .gz: refused once it passes 1 MiB, before it is held whole.
    void hugeStringIsRefusedBeforeAllocation() {
        const QByteArray head =
            "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"";
        const QByteArray bomb = gzipBomb(head, 'a', 512, "\", \"ts\": 1, \"dur\": 1}]}");
        QVERIFY(!bomb.isEmpty());
        expectError(write("string-bomb.json.gz", bomb), jsonValueTooLongError());
        QVERIFY2(peakRssMiB() < 500, qPrintable(QString::number(peakRssMiB())));
    }

    // 1 MiB is the longest string accepted (in a field the importer ignores); one byte more is not.
    void stringLengthLimit() {
        auto withString = [](size_t length) {
            return trace("\"unused\": \"" + QByteArray(static_cast<int>(length), 'x') + "\", ");
        };
        QTemporaryDir dir;
        auto atLimit = importTrace(dir, write("1mib.json", withString(kMaxJsonValueBytes)));
        QVERIFY2(atLimit->ok(), atLimit->error.c_str());
        expectError(write("1mib1.json", withString(kMaxJsonValueBytes + 1)),
                    jsonValueTooLongError());
    }

    // Names are kept up to 64 KiB; longer ones are cut there and say so.
    void longNamesAreCut() {
        const QByteArray exact(static_cast<int>(kMaxNameBytes), 'k');
        const QByteArray longer(static_cast<int>(kMaxNameBytes) + 1, 'l');
        auto kernel = [](const QByteArray& name, int ts) {
            return "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + name +
                   "\", \"pid\": 0, \"tid\": 7, \"ts\": " + QByteArray::number(ts) +
                   ", \"dur\": 1}";
        };
        QTemporaryDir dir;
        auto imported =
            importTrace(dir, write("names.json",
                                   traceWithEvent(kernel(exact, 10) + ", " + kernel(longer, 20))));
        QVERIFY2(imported->ok(), imported->error.c_str());
        QCOMPARE(imported->session->counts.kernels, int64_t(2));
        const Session& session = *imported->session;
        auto kernelName = [&](int64_t row) {
            return session.string(
                static_cast<uint32_t>(imported->database.kernelDetails(row)->nameId));
        };
        QCOMPARE(kernelName(1), exact.toStdString());
        QCOMPARE(kernelName(2), std::string(kMaxNameBytes, 'l') + " [... cut from 65537 bytes]");
    }

    // 200 MiB of blanks in a 0.2 MB .gz: ended at 256 times the file size + 64 MiB.
    void inflationBomb() {
        const QByteArray bomb = gzipBomb(R"({"traceEvents": [)", ' ', 200, "]}");
        QVERIFY(!bomb.isEmpty());
        expectError(write("blank-bomb.json.gz", bomb),
                    "the .gz inflates to more than 256 times its size");
    }

    // Some PyTorch versions write raw control characters in names; JSON (and RapidJSON) forbids
    // them. Every control byte is read as a space (outside strings a tab or newline is whitespace
    // either way); those other than tab, newline and carriage return are counted in the warning.
    // The escaped quote and backslash stay as they are.
    void rawControlCharactersReadAsSpaces() {
        const QByteArray kernel = "{\"ph\":\t\"X\", \"cat\": \"kernel\",\n \"name\": "
                                  "\"a\x01z \\\"q\\\" \\\\\nb\x1f\", \"pid\": 0, \"tid\": 7, "
                                  "\"ts\": 10, \"dur\": 1}";
        QTemporaryDir dir;
        auto imported = importTrace(dir, write("control.json", traceWithEvent(kernel)));
        QVERIFY2(imported->ok(), imported->error.c_str());
        QCOMPARE(imported->session->counts.kernels, int64_t(1));
        QCOMPARE(imported->import.stats.controlCharacters, int64_t(2)); // 0x01 and 0x1f
        const Session& session = *imported->session;
        QCOMPARE(session.string(static_cast<uint32_t>(imported->database.kernelDetails(1)->nameId)),
                 std::string("a z \"q\" \\ b "));
        QVERIFY2(
            session.warning.find("2 raw control characters (not tab or newline) read as spaces") !=
                std::string::npos,
            session.warning.c_str());
    }

    // A NUL byte outside any string still ends the JSON there: an error, not a partial trace.
    // Every control byte reads as a space (docs/session-format.md), NUL too: outside a string it
    // is whitespace, inside a name a space, counted in the import's warning (issue 40).
    void nulReadsAsASpace() {
        expectError(write("nul.json", QByteArray("{\"traceEvents\": [\0]}", 20)),
                    "no GPU work and no CUDA calls among its 0 events");
        // A file of zeros is no longer "empty".
        expectError(write("zeros.json", QByteArray(1000, '\0')),
                    "no JSON value, not a trace: 1000 bytes of whitespace, 1000 of them control "
                    "bytes such as NUL");
        QByteArray kernel = R"({"ph": "X", "cat": "kernel", "name": "k@n", "pid": 0, "tid": 7,)"
                            R"( "ts": 10, "dur": 1})";
        kernel[kernel.indexOf('@')] = '\0';
        QTemporaryDir dir;
        auto imported = importTrace(dir, write("nul-name.json", traceWithEvent(kernel)));
        QVERIFY2(imported->ok(), imported->error.c_str());
        QCOMPARE(imported->session->string(
                     static_cast<uint32_t>(imported->database.kernelDetails(1)->nameId)),
                 std::string("k n"));
        QVERIFY2(imported->session->warning.find("1 raw control characters") != std::string::npos,
                 imported->session->warning.c_str());
    }

    // A quoted number is read as the number (issue 40: 144 of 216 kernels were dropped with exit
    // 0); what is not a number leaves its event out, and the warning counts it.
    void quotedTimes() {
        auto kernel = [](const char* ts, const char* dur) {
            return QByteArray(
                       R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )") +
                   ts + R"(, "dur": )" + dur + "}";
        };
        QTemporaryDir dir;
        auto imported =
            importTrace(dir, write("quoted.json", traceWithEvent(kernel("\"10.5\"", "\" 2 \"") +
                                                                 ", " + kernel("20", "1") + ", " +
                                                                 kernel("\"soon\"", "1"))));
        QVERIFY2(imported->ok(), imported->error.c_str());
        QCOMPARE(imported->session->counts.kernels, int64_t(2));
        std::vector<int64_t> durations;
        for (const int64_t row : {1, 2})
            if (const auto kernel = imported->database.kernelDetails(row))
                durations.push_back(kernel->endNs - kernel->startNs);
        std::sort(durations.begin(), durations.end());
        QCOMPARE(durations, (std::vector<int64_t>{1000, 2000})); // " 2 " µs read as 2 µs
        QVERIFY2(imported->session->warning.find(
                     "1 complete (X) events without a numeric \"ts\" not read") !=
                     std::string::npos,
                 imported->session->warning.c_str());
    }

    void numbersOutOfRange() {
        const struct {
            const char* field;
            const char* expected;
        } cases[] = {
            {R"("ts": 1e300)", R"("ts" 1e300 is out of range (beyond 4611686018427387 µs))"},
            {R"("ts": 1e400)", "Number too big to be stored in double"},
            {R"("ts": 99999999999999999999)", R"("ts" 99999999999999999999 is out of range)"},
            {R"("ts": 4611686018427387.905)", R"("ts" 4611686018427387.905 is out of range)"},
            {R"("dur": -1e300)", R"("dur" -1e300 is out of range)"},
            {R"("pid": 99999999999999999999)", "number 99999999999999999999 is out of range"},
            {R"("pid": -9223372036854775809)", "number -9223372036854775809 is out of range"},
            {R"("args": {"grid": [1, 3000000000]})", "number 3000000000 is out of range"},
            {R"("args": {"correlation": 1e19})", "number 1e19 is out of range"},
            {R"("ts": NaN)", "Invalid value"},
            {R"("dur": Infinity)", "Invalid value"},
            {R"("ts": -Infinity)", "Invalid value"},
        };
        int index = 0;
        for (const auto& c : cases) {
            const QByteArray event =
                R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": 1, )" +
                QByteArray(c.field) + "}";
            expectError(write(QString("number%1.json").arg(index++), traceWithEvent(event)),
                        c.expected);
            if (QTest::currentTestFailed())
                qWarning() << c.field;
        }
        // Both sides of the limits.
        using H = KinetoSaxHandler;
        QVERIFY(H::microsToNanos("4611686018427387.904") == kMaxTraceTimeNs);
        QVERIFY(H::microsToNanos("-4611686018427387.904") == -kMaxTraceTimeNs);
        QVERIFY(H::microsToNanos("-4611686018427387.905") == std::nullopt);
        QVERIFY(H::microsToNanos("1.5e3") == int64_t(1500000));
        QVERIFY(H::microsToNanos("0.0005") == int64_t(1));
        QVERIFY(H::parseInteger("9223372036854775807") == INT64_MAX);
        QVERIFY(H::parseInteger("-9223372036854775807") == -INT64_MAX);
        QVERIFY(H::parseInteger("9223372036854775808") == std::nullopt);
        QVERIFY(H::parseInteger("12.9") == int64_t(12));
    }

    // A negative duration counts as none: the event is an instant, not an error.
    void negativeDuration() {
        QTemporaryDir dir;
        auto imported = importTrace(
            dir,
            write(
                "negative.json",
                traceWithEvent(
                    R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 7, "tid": 7, "ts": 50, "dur": -20})")));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const HostLane& lane = imported->session->hostLanes.front();
        QCOMPARE(lane.syncs.size(), size_t(1));
        QCOMPARE(lane.syncs.start[0], int64_t(50000));
        QCOMPARE(lane.syncs.end[0], int64_t(50000));
    }

#ifdef STALLSCOPE_EXECUTABLE
    // `stallscope --info` on the crafted files: a non-zero exit and the message on stderr.
    void infoCommandRefuses() {
        const QStringList files = {QStringLiteral("bad-crc.json.gz"),
                                   QStringLiteral("deep.json.gz"),
                                   QStringLiteral("string-bomb.json.gz")};
        for (const QString& name : files) {
            const QString path = m_dir.filePath(name);
            QVERIFY2(QFile::exists(path), qPrintable(path)); // written by the cases above
            QProcess process;
            QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
            environment.insert(QStringLiteral("STALLSCOPE_IMPORT_CACHE"), m_dir.filePath("cli"));
            process.setProcessEnvironment(environment);
            process.start(QStringLiteral(STALLSCOPE_EXECUTABLE), {QStringLiteral("--info"), path});
            QVERIFY(process.waitForFinished(60000));
            QCOMPARE(process.exitStatus(), QProcess::NormalExit);
            QVERIFY(process.exitCode() != 0);
            const QString err = QString::fromUtf8(process.readAllStandardError());
            QVERIFY2(err.contains(path + ": "), qPrintable(err));
            QCOMPARE(QDir(m_dir.filePath("cli")).entryList(QDir::Files | QDir::Hidden).size(), 0);
        }
    }
#endif
};

STALLSCOPE_TEST_GUILESS_MAIN(TestKinetoHostile)
#include "test_kineto_hostile.moc"
