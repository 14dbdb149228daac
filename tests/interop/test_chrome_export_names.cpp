// Chrome export escaping: kernel, range and thread names with quotes, backslashes, control
// characters and non-ASCII text go out as JSON strings that a strict parser (RapidJSON) reads
// back byte for byte.
#include "format/session_writer.h"
#include "model/interop/chrome_trace_export.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <rapidjson/document.h>

#include <fstream>
#include <set>
#include <sstream>

using namespace stallscope;

namespace {

const std::vector<std::string>& awkwardNames() {
    static const std::vector<std::string> names = {"say \"hi\"",
                                                   "C:\\path\\kernel",
                                                   "tab\there\nnewline\rreturn",
                                                   "nul\x01"
                                                   "bell\x07"
                                                   "esc\x1b"
                                                   "unit\x1f",
                                                   "größe → 日本語 ✓",
                                                   "quote\\\"mix\\\\",
                                                   "plain_kernel"};
    return names;
}

// Loads the session at `sessionPath`, exports it to `out` and reads the JSON back into *text.
bool exportedText(const std::string& sessionPath, const std::string& out, std::string* text,
                  std::string* error) {
    auto loaded = model::SessionLoader::load(sessionPath);
    if (!loaded.ok()) {
        *error = loaded.error;
        return false;
    }
    model::SessionDatabase database;
    if (!database.open(sessionPath, error) ||
        !model::exportChromeTrace(*loaded.session, database, out, {}, error))
        return false;
    std::ifstream file(out, std::ios::binary);
    std::stringstream stream;
    stream << file.rdbuf();
    *text = stream.str();
    return true;
}

// The kernel names of an exported trace, in file order.
std::vector<std::string> exportedKernelNames(const std::string& json) {
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    std::vector<std::string> names;
    if (doc.HasParseError() || !doc.HasMember("traceEvents"))
        return names;
    for (const auto& event : doc["traceEvents"].GetArray())
        if (event.HasMember("cat") && std::string(event["cat"].GetString()) == "kernel")
            names.emplace_back(event["name"].GetString(), event["name"].GetStringLength());
    return names;
}

} // namespace

class TestChromeExportNames : public QObject {
    Q_OBJECT
private slots:
    // CUPTI records Itanium-mangled kernel names; the GUI and torch.profiler show them
    // demangled, and so does the export (Perfetto and HTA would otherwise list "_ZN2at6…").
    // A name that is not mangled stays as it is.
    void kernelNamesAreDemangledOnce() {
        QTemporaryDir dir;
        const std::string sessionPath = dir.filePath("mangled.stallscope").toStdString();
        std::string error;
        auto writer = format::SessionWriter::create(sessionPath, &error);
        QVERIFY2(writer, error.c_str());
        const int64_t process = writer->addProcess({1, "host", "cmd", 0, 1'000'000, 0});
        const int64_t device = writer->addDevice({process, 0, "GPU", "GPU-1", 9, 0, 1, 0});
        const int64_t stream = writer->addStream({device, 1, 7, false, 0});
        const int64_t mangled = writer->internString("_Z6kernelPfi");
        const int64_t plain = writer->internString("_Znot_a_mangled_name");
        for (int64_t i = 0; i < 3; ++i) {
            const int64_t name = i == 1 ? plain : mangled, start = 1'000 + i * 1'000;
            writer->addKernel({stream, name, start, start + 500, i, {1, 1, 1}, {1, 1, 1}, 1, 0, 0});
        }
        QVERIFY2(writer->finish("complete"), writer->lastError().c_str());
        std::string text;
        QVERIFY2(
            exportedText(sessionPath, dir.filePath("mangled.json").toStdString(), &text, &error),
            error.c_str());
        const std::vector<std::string> expected = {"kernel(float*, int)", "_Znot_a_mangled_name",
                                                   "kernel(float*, int)"};
        QCOMPARE(exportedKernelNames(text), expected);
    }

    // Issue 40: names with stray bytes or an encoded lone surrogate made the export invalid
    // UTF-8. Each such byte becomes U+FFFD; valid text beside it stays.
    void outputIsAlwaysValidUtf8() {
        QTemporaryDir dir;
        const std::string sessionPath = dir.filePath("bytes.stallscope").toStdString();
        std::string error;
        auto writer = format::SessionWriter::create(sessionPath, &error);
        QVERIFY2(writer, error.c_str());
        const int64_t process = writer->addProcess({1, "host", "cmd", 0, 1'000'000, 0});
        const int64_t device = writer->addDevice({process, 0, "GPU", "GPU-1", 9, 0, 1, 0});
        const int64_t stream = writer->addStream({device, 1, 7, false, 0});
        const std::vector<std::pair<std::string, std::string>> names = {
            {"stray\xff byte", "stray\xef\xbf\xbd byte"},
            {"lone \xed\xa0\x80 surrogate", "lone \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd surrogate"},
            {"cut \xe2\x82", "cut \xef\xbf\xbd\xef\xbf\xbd"},
            {"ok \xe2\x82\xac", "ok \xe2\x82\xac"}};
        int64_t t = 1'000;
        for (const auto& [name, shown] : names) {
            writer->addKernel(
                {stream, writer->internString(name), t, t + 100, t, {1, 1, 1}, {1, 1, 1}, 1, 0, 0});
            t += 1'000;
        }
        QVERIFY2(writer->finish("complete"), writer->lastError().c_str());
        std::string text;
        QVERIFY2(exportedText(sessionPath, dir.filePath("bytes.json").toStdString(), &text, &error),
                 error.c_str());
        rapidjson::Document doc;
        doc.Parse<rapidjson::kParseValidateEncodingFlag>(text.c_str());
        QVERIFY2(!doc.HasParseError(), qPrintable(QString("parse error %1 at offset %2")
                                                      .arg(int(doc.GetParseError()))
                                                      .arg(doc.GetErrorOffset())));
        std::vector<std::string> expected;
        for (const auto& [name, shown] : names)
            expected.push_back(shown);
        QCOMPARE(exportedKernelNames(text), expected);
    }

    void namesSurviveAStrictParser() {
        QTemporaryDir dir;
        const std::string sessionPath = dir.filePath("names.stallscope").toStdString();
        std::string error;
        auto writer = format::SessionWriter::create(sessionPath, &error);
        QVERIFY2(writer, error.c_str());
        const int64_t process = writer->addProcess({1, "host", "cmd", 0, 1'000'000, 0});
        const std::string threadName = "thread \"worker\"\t\\ ü";
        const int64_t thread = writer->addThread({process, 1, threadName});
        const int64_t device = writer->addDevice({process, 0, "GPU", "GPU-1", 9, 0, 1, 0});
        const int64_t stream = writer->addStream({device, 1, 7, false, 0});
        int64_t t = 1'000;
        for (const std::string& name : awkwardNames()) {
            const int64_t id = writer->internString(name);
            writer->addKernel({stream, id, t, t + 100, t, {1, 1, 1}, {1, 1, 1}, 1, 0, 0});
            writer->addRange({thread, format::RangeKind::NvtxPushPop, id, t, t + 200, 0});
            t += 1'000;
        }
        QVERIFY2(writer->finish("complete"), writer->lastError().c_str());

        std::string text;
        QVERIFY2(exportedText(sessionPath, dir.filePath("names.json").toStdString(), &text, &error),
                 error.c_str());
        rapidjson::Document doc;
        doc.Parse(text.c_str());
        QVERIFY2(!doc.HasParseError(), qPrintable(QString("parse error %1 at offset %2")
                                                      .arg(int(doc.GetParseError()))
                                                      .arg(doc.GetErrorOffset())));
        std::multiset<std::string> kernels, ranges;
        std::string exportedThread;
        for (const auto& event : doc["traceEvents"].GetArray()) {
            const std::string name(event["name"].GetString(), event["name"].GetStringLength());
            const std::string cat = event.HasMember("cat") ? event["cat"].GetString() : "";
            if (cat == "kernel")
                kernels.insert(name);
            else if (cat == "user_annotation")
                ranges.insert(name);
            else if (name == "thread_name" && event["tid"].GetInt64() == 1)
                exportedThread = event["args"]["name"].GetString();
        }
        const std::multiset<std::string> expected(awkwardNames().begin(), awkwardNames().end());
        QVERIFY(kernels == expected);
        QVERIFY(ranges == expected);
        const auto loaded = model::SessionLoader::load(sessionPath);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const std::string label = loaded.session->threadLabel(loaded.session->threads.at(0));
        QVERIFY(label.find(threadName) != std::string::npos);
        QCOMPARE(exportedThread, label);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestChromeExportNames)
#include "test_chrome_export_names.moc"
