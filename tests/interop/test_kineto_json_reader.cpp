// KinetoJsonReader against RapidJSON's reader (with the importer's flags), the reference it
// replaces: on every input both must make the same handler calls in the same order, accept and
// refuse the same texts, and stop at the same byte. Inputs: hand-written edge cases (numbers,
// escapes, surrogates, literals, NUL bytes, structure), the real traces and the fuzz corpus, and
// thousands of deterministic mutations of a small trace — each read in chunks of 1, 3, 7 and 64
// bytes as well as whole, so every token also lies across the buffer's end.
#include "model/interop/kineto_json_reader.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"
#include "tests/support/write_file.h"

#include <rapidjson/reader.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace stallscope::model;

namespace {

// Writes every call as text; returns false at call number `stopAt` (counting from 1).
class RecordingHandler {
public:
    explicit RecordingHandler(size_t stopAt = 0) : m_stopAt(stopAt) {}

    bool Null() { return add("null"); }
    bool Bool(bool value) { return add(value ? "true" : "false"); }
    bool Int(int) { return add("unexpected int"); }
    bool Uint(unsigned) { return add("unexpected uint"); }
    bool Int64(int64_t) { return add("unexpected int64"); }
    bool Uint64(uint64_t) { return add("unexpected uint64"); }
    bool Double(double) { return add("unexpected double"); }
    bool RawNumber(const char* text, unsigned length, bool) {
        return add("number " + std::string(text, length));
    }
    bool String(const char* text, unsigned length, bool) {
        return add("string " + std::to_string(length) + ":" + std::string(text, length));
    }
    bool Key(const char* text, unsigned length, bool) {
        return add("key " + std::to_string(length) + ":" + std::string(text, length));
    }
    bool StartObject() { return add("{"); }
    bool EndObject(unsigned members) { return add("} " + std::to_string(members)); }
    bool StartArray() { return add("["); }
    bool EndArray(unsigned elements) { return add("] " + std::to_string(elements)); }

    const std::string& log() const { return m_log; }
    size_t calls() const { return m_calls; }

private:
    bool add(const std::string& call) {
        m_log += call;
        m_log += '\n';
        return ++m_calls != m_stopAt;
    }

    size_t m_stopAt;
    size_t m_calls = 0;
    std::string m_log;
};

// Chunk sizes the stream reads in: every token of a small input lies across the buffer's end.
const std::vector<size_t> kEveryChunkSize = {1, 3, 7, 64, kInputChunkBytes};

struct Reading {
    std::string log;
    size_t calls = 0;
    bool malformed = false;
    bool stopped = false;
    size_t tell = 0; // where reading stopped (a malformed text: not compared)
};

// Nothing when `path` cannot be opened (which fails the test).
std::optional<Reading> readWithRapidJson(const std::string& path, size_t stopAt) {
    KinetoInputStream stream;
    std::string error;
    if (!stream.open(path, &error)) {
        STALLSCOPE_FAIL("cannot open %s: %s", path.c_str(), error.c_str());
        return std::nullopt;
    }
    RecordingHandler handler(stopAt);
    rapidjson::Reader reader;
    const rapidjson::ParseResult result =
        reader.Parse<rapidjson::kParseNumbersAsStringsFlag>(stream, handler);
    Reading reading{handler.log(), handler.calls()};
    reading.stopped = result.Code() == rapidjson::kParseErrorTermination;
    reading.malformed = result.IsError() && !reading.stopped;
    reading.tell = stream.Tell();
    return reading;
}

// Nothing when `path` cannot be opened or is too long or deep to read (which fails the test: no
// test input is).
std::optional<Reading> readWithKinetoReader(const std::string& path, size_t chunkBytes,
                                            size_t stopAt) {
    KinetoInputStream stream(chunkBytes);
    std::string error;
    if (!stream.open(path, &error)) {
        STALLSCOPE_FAIL("cannot open %s: %s", path.c_str(), error.c_str());
        return std::nullopt;
    }
    RecordingHandler handler(stopAt);
    const JsonReadStatus status = KinetoJsonReader<RecordingHandler>(stream, handler).read();
    if (status == JsonReadStatus::TooLong || status == JsonReadStatus::TooDeep) {
        STALLSCOPE_FAIL("%s: read as too %s, which no test input is", path.c_str(),
                        status == JsonReadStatus::TooLong ? "long" : "deep");
        return std::nullopt;
    }
    Reading reading{handler.log(), handler.calls()};
    reading.stopped = status == JsonReadStatus::Stopped;
    reading.malformed = status == JsonReadStatus::Malformed;
    reading.tell = stream.Tell();
    return reading;
}

} // namespace

class TestKinetoJsonReader : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    int m_files = 0;
    int m_compared = 0;

    // Empty when the write failed (which failed the test).
    std::string write(const QByteArray& bytes) {
        const QString name = QString("input%1.json").arg(m_files++);
        return stallscope::testing::writeFile(m_dir, name, bytes).toStdString();
    }

    // Both readers on `path`: whole, in small chunks, and stopped by the handler half-way.
    void expectSameReading(const std::string& path, const QByteArray& shown,
                           const std::vector<size_t>& chunkSizes = kEveryChunkSize) {
        QVERIFY2(!path.empty(), "no input: its write failed");
        const std::optional<Reading> expected = readWithRapidJson(path, 0);
        QVERIFY(expected);
        for (const size_t chunk : chunkSizes) {
            const std::optional<Reading> actual = readWithKinetoReader(path, chunk, 0);
            QVERIFY(actual);
            const QByteArray context = shown.left(200).toPercentEncoding(" {}[]\":,") + " chunk " +
                                       QByteArray::number(qulonglong(chunk));
            QVERIFY2(actual->log == expected->log, context.constData());
            QVERIFY2(actual->malformed == expected->malformed, context.constData());
            if (!expected->malformed)
                QVERIFY2(actual->tell == expected->tell, context.constData());
        }
        if (expected->calls > 1) { // the handler stops the reading: same call, same byte
            const size_t stopAt = (expected->calls + 1) / 2;
            const std::optional<Reading> reference = readWithRapidJson(path, stopAt);
            const std::optional<Reading> stopped = readWithKinetoReader(path, 7, stopAt);
            QVERIFY(reference && stopped);
            QVERIFY2(stopped->stopped && reference->stopped, shown.left(200).constData());
            QCOMPARE(stopped->tell, reference->tell);
            QCOMPARE(stopped->log, reference->log);
        }
        ++m_compared;
    }

    void expectSame(const QByteArray& text) { expectSameReading(write(text), text); }

private slots:
    void numbers() {
        for (const char* number : {"0",
                                   "-0",
                                   "7",
                                   "-7",
                                   "01",
                                   "-01",
                                   "00",
                                   "1.",
                                   "1.5",
                                   "-1.25",
                                   ".5",
                                   "-",
                                   "+1",
                                   "1e5",
                                   "1E+5",
                                   "1e-5",
                                   "1e",
                                   "1e+",
                                   "1e-",
                                   "1.e3",
                                   "0.0",
                                   "1.5.3",
                                   "1-2",
                                   "1ee3",
                                   "-a",
                                   "18446744073709551615",
                                   "18446744073709551616",
                                   "-9223372036854775809",
                                   "123456789012345678901234567890",
                                   "1e308",
                                   "1e309",
                                   "1.5e308",
                                   "-1e400",
                                   "1e-400",
                                   "0.0000001e314",
                                   "0.0000001e315",
                                   "1e0000000000000000000000000000001",
                                   "0.000000000000000000000000000001e330",
                                   "4455362852106.801",
                                   "99.999999999",
                                   "NaN",
                                   "Infinity",
                                   "-Infinity",
                                   "1x",
                                   "2 3"}) {
            expectSame(R"({"n": )" + QByteArray(number) + "}");
            expectSame(QByteArray("[") + number + ", 1]");
            expectSame(QByteArray(number));
        }
        QByteArray digits(400, '9'); // too big for a double, as an integer
        expectSame("[" + digits + "]");
        expectSame("[0." + digits + "]");
        expectSame("[1." + digits + "e308]");
    }

    void strings() {
        // Ordinary literals: moc reads this file too, and not raw strings with backslashes.
        for (const char* text : {"\"plain\"",
                                 "\"\"",
                                 "\"a\\\"b\"",
                                 "\"\\\\\"",
                                 "\"\\/\\b\\f\\n\\r\\t\"",
                                 "\"\\x\"",
                                 "\"\\u00e9\\u4e2d\"",
                                 "\"\\u0000z\"",
                                 "\"\\uD83D\\uDE00\"",
                                 "\"\\uD83D\"",
                                 "\"\\uD83Dx\"",
                                 "\"\\uD83D\\u0041\"",
                                 "\"\\uDE00\"",
                                 "\"\\u12G4\"",
                                 "\"\\u12\"",
                                 "\"\\u\"",
                                 "\"\\",
                                 "\"unterminated",
                                 "\"\xc3\xa9 \xe4\xb8\xad\"",
                                 "\"\xff\xfe\"",
                                 "\"a\tb\"",
                                 "\"a\x01z\""}) {
            expectSame(text);
            expectSame(QByteArray("{") + text + ": " + text + "}");
            expectSame(QByteArray("[") + text + "," + text + "]");
        }
        expectSame(QByteArray("\"a\0b\"", 5)); // a NUL byte inside a string
        expectSame("\"" + QByteArray(5000, 'x') + "\\n" + QByteArray(5000, 'y') + "\"");
    }

    void literalsAndStructure() {
        for (const char* text : {"true",
                                 "false",
                                 "null",
                                 "tru",
                                 "nul",
                                 "fals",
                                 "nulll",
                                 "True",
                                 "{}",
                                 "[]",
                                 "{ }",
                                 "[ ]",
                                 "  {\"a\": 1}  ",
                                 "{\"a\":1,}",
                                 "[1,]",
                                 "[,1]",
                                 "{\"a\" 1}",
                                 "{\"a\":}",
                                 "{1: 2}",
                                 "[1 2]",
                                 "{\"a\": 1 \"b\": 2}",
                                 "[[[]], [{}], {\"x\": [1, {\"y\": null}]}]",
                                 "{\"a\": [true, false, null]}",
                                 "",
                                 "   ",
                                 "{} {}",
                                 "[] x",
                                 "{\"a\": 1}}",
                                 "\xEF\xBB\xBF{}",
                                 "[\n1,\t2\r]",
                                 "{\"a\": 1",
                                 "[1, 2",
                                 "{\"a\"",
                                 "{\"a\":"}) {
            expectSame(text);
        }
        expectSame(QByteArray("{}\0 garbage", 11));            // a NUL after the value ends it
        expectSame(QByteArray("{\"traceEvents\": [\0]}", 20)); // ... but not inside it
        expectSame(QByteArray(200, '[') + QByteArray(200, ']'));
    }

    void realTracesAndCorpus() {
        QStringList files;
        for (const char* folder : {"/tests/interop/data", "/tests/fuzz/corpus/fuzz_kineto",
                                   "/tests/fuzz/regressions/fuzz_kineto"}) {
            const QDir dir(QString(STALLSCOPE_SOURCE_DIR) + folder);
            for (const QString& name : dir.entryList({"*.json", "*.json.gz", "empty"}))
                files << dir.filePath(name);
        }
        QVERIFY(files.size() >= 15);
        for (const QString& file : files)
            expectSameReading(file.toStdString(), file.toUtf8(), {7, 64, kInputChunkBytes});
    }

    // Single-byte deletions, insertions and replacements at random places of a small trace that
    // has every kind of token, and cuts at random lengths.
    void mutations() {
        const QByteArray base =
            "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU "
            "\\\"0\\\"\", "
            "\"totalGlobalMem\": 150109880320}],\n \"traceEvents\": [\n"
            "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\\u00e9\\n\", \"pid\": 0, "
            "\"tid\": 7, "
            "\"ts\": 4455362852116.301, \"dur\": 5.632, \"args\": {\"grid\": [16, 1, 1], \"x\": "
            "-1.5e-3, "
            "\"ok\": true, \"no\": false, \"none\": null}},\n"
            "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
            "396, "
            "\"tid\": 396, \"ts\": 1e3, \"dur\": 0, \"args\": {\"correlation\": 100, "
            "\"s\": \"\\uD83D\\uDE00\\\\\"}}\n ], \"traceName\": \"t\"}";
        expectSame(base);
        const QByteArray interesting("\"\\{}[],:.-+eE0u \x00\x80", 18);
        std::mt19937 random(20261126);
        for (int i = 0; i < 1500; ++i) {
            QByteArray text = base;
            const int at = static_cast<int>(random() % static_cast<unsigned>(text.size()));
            const char byte = interesting[static_cast<int>(random() % interesting.size())];
            switch (random() % 4) {
            case 0:
                text.remove(at, 1);
                break;
            case 1:
                text.insert(at, byte);
                break;
            case 2:
                text[at] = byte;
                break;
            default:
                text.truncate(at);
                break;
            }
            expectSameReading(write(text), text, {3, 64});
            if (QTest::currentTestFailed())
                return;
        }
        qInfo("%d inputs compared", m_compared);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestKinetoJsonReader)
#include "test_kineto_json_reader.moc"
