// The Chrome export read back (RapidJSON) on the recorded CUDA sample: kernel names demangled
// with the mangled symbol in args, launch and sync-wait flows with both ends inside events of
// the right lanes, and process/thread names and sort indexes in the timeline's lane order.
#include "model/interop/chrome_trace_export.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "model/session/session_summary.h"
#include "model/session/waited_work.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <rapidjson/document.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace stallscope;

namespace {

struct Slice {
    std::string cat, name;
    double ts = 0, dur = 0;
};
using Lane = std::pair<int64_t, int64_t>; // pid, tid

bool inside(const std::vector<Slice>& slices, double ts, const std::set<std::string>& cats) {
    for (const Slice& s : slices)
        if (cats.count(s.cat) && ts >= s.ts && ts <= s.ts + s.dur)
            return true;
    return false;
}

} // namespace

class TestChromeExportFlows : public QObject {
    Q_OBJECT
private slots:
    void roundTrip() {
        QTemporaryDir dir;
        const std::string sessionPath = STALLSCOPE_SOURCE_DIR "/resources/sample-cuda.stallscope";
        auto loaded = model::SessionLoader::load(sessionPath);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const model::Session& session = *loaded.session;
        model::SessionDatabase database;
        std::string error;
        QVERIFY(database.open(sessionPath, &error));
        const std::string out = dir.filePath(QStringLiteral("trace.json")).toStdString();
        QVERIFY2(model::exportChromeTrace(session, database, out, {}, &error), error.c_str());

        std::stringstream text;
        text << std::ifstream(out).rdbuf();
        rapidjson::Document doc;
        doc.Parse(text.str().c_str());
        QVERIFY(!doc.HasParseError());
        const auto& events = doc["traceEvents"].GetArray();

        std::map<Lane, std::vector<Slice>> slices;
        std::map<std::string, std::map<int64_t, std::vector<std::pair<Lane, double>>>> starts,
            finishes; // cat -> id -> (lane, ts)
        std::map<int64_t, std::string> processNames;
        std::map<int64_t, int64_t> processSort;
        std::map<Lane, std::string> threadNames;
        std::map<Lane, int64_t> threadSort;
        int kernels = 0;
        for (const auto& e : events) {
            const std::string ph = e["ph"].GetString();
            const Lane lane{e["pid"].GetInt64(), e["tid"].GetInt64()};
            if (ph == "X") {
                Slice s{e["cat"].GetString(), e["name"].GetString(), e["ts"].GetDouble(),
                        e["dur"].GetDouble()};
                if (s.cat == "kernel") {
                    ++kernels;
                    QVERIFY2(s.name.rfind("_Z", 0) != 0, s.name.c_str()); // demangled
                    QCOMPARE(s.name, std::string("spin(float*, int, int)"));
                    QVERIFY(e["args"].HasMember("mangled"));
                    QCOMPARE(std::string(e["args"]["mangled"].GetString()),
                             std::string("_Z4spinPfii"));
                }
                slices[lane].push_back(std::move(s));
            } else if (ph == "s" || ph == "f") {
                auto& map = ph == "s" ? starts : finishes;
                map[e["cat"].GetString()][e["id"].GetInt64()].emplace_back(lane,
                                                                           e["ts"].GetDouble());
            } else if (ph == "M") {
                const std::string name = e["name"].GetString();
                if (name == "process_name")
                    processNames[lane.first] = e["args"]["name"].GetString();
                else if (name == "thread_name")
                    threadNames[lane] = e["args"]["name"].GetString();
                else if (name == "process_sort_index")
                    processSort[lane.first] = e["args"]["sort_index"].GetInt64();
                else if (name == "thread_sort_index")
                    threadSort[lane] = e["args"]["sort_index"].GetInt64();
            }
        }
        QCOMPARE(kernels, int(session.counts.kernels));

        // Every flow has both ends, the start in a host slice and the end in GPU work.
        const std::set<std::string> gpuCats = {"kernel", "gpu_memcpy", "gpu_memset"};
        for (const char* cat : {"ac2g", "sync_wait"}) {
            QVERIFY2(!starts[cat].empty(), cat);
            QCOMPARE(starts[cat].size(), finishes[cat].size());
            for (const auto& [id, ends] : starts[cat]) {
                QCOMPARE(ends.size(), size_t(1));
                QVERIFY(finishes[cat].count(id));
                const auto& [fromLane, fromTs] = ends.front();
                QVERIFY(inside(slices[fromLane], fromTs,
                               std::string(cat) == "ac2g"
                                   ? std::set<std::string>{"cuda_runtime", "cuda_driver"}
                                   : std::set<std::string>{"sync"}));
                for (const auto& [toLane, toTs] : finishes[cat][id])
                    QVERIFY(inside(slices[toLane], toTs, gpuCats));
            }
        }
        // One sync-wait flow per sync that waited for recorded work (model/session/waited_work.h).
        size_t waits = 0;
        for (size_t l = 0; l < session.hostLanes.size(); ++l)
            for (uint32_t i = 0; i < session.hostLanes[l].syncs.size(); ++i)
                waits += model::waitedWork(session, int32_t(l), i).isValid() ? 1 : 0;
        QVERIFY(waits > 0);
        QCOMPARE(starts["sync_wait"].size(), waits);

        // Names and order: every lane with slices is named and sorted; the CPU process comes
        // before its GPU, as on the timeline.
        for (const auto& [lane, list] : slices) {
            if (list.front().cat == "stallscope_process")
                continue;
            QVERIFY(processNames.count(lane.first));
            QVERIFY(processSort.count(lane.first));
            QVERIFY(threadNames.count(lane));
            QVERIFY(threadSort.count(lane));
        }
        const int64_t cpuPid = session.processes.front().pid;
        for (const auto& [pid, name] : processNames)
            if (pid != cpuPid) {
                QVERIFY2(name.rfind("GPU ", 0) == 0, name.c_str());
                QVERIFY(processSort[cpuPid] < processSort[pid]);
            }
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestChromeExportFlows)
#include "test_chrome_export_flows.moc"
