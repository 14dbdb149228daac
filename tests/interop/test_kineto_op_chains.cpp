// Syncs of traces recorded without Python stacks (with_stack=False) are named by the CPU ops and
// the user annotation enclosing their CUDA call (kineto_op_chains.h): one site per chain, the
// same chain in every ProfilerStep one site; with Python stacks the function stays the site.
#include "model/analysis/sync_sites.h"
#include "model/interop/kineto_op_chains.h"
#include "tests/interop/interop_support.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <map>
#include <string>

using namespace interop;

namespace {

std::string traceEvent(const char* cat, const char* name, int ts, int dur,
                       const char* args = "{}") {
    return std::string(R"({"ph":"X","cat":")") + cat + R"(","name":")" + name +
           R"(","pid":1,"tid":7,"ts":)" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) +
           ",\"args\":" + args + "},";
}

std::string sync(int ts, int correlation) {
    const std::string args = "{\"correlation\":" + std::to_string(correlation) + "}";
    return traceEvent("cuda_runtime", "cudaStreamSynchronize", ts, 5, args.c_str());
}

// One optimizer step's `.item()`: the chain inside Optimizer.step, at `ts` within a step.
std::string itemInOptimizerStep(int ts, int correlation) {
    return traceEvent("user_annotation", "Optimizer.step#AdamW.step", ts, 40) +
           traceEvent("cpu_op", "aten::item", ts + 5, 20) +
           traceEvent("cpu_op", "aten::_local_scalar_dense", ts + 6, 18) +
           sync(ts + 7, correlation);
}

std::string trace(const std::string& events) {
    return R"({"traceEvents":[)" + events +
           R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,)"
           R"("args":{"device":0,"stream":7,"correlation":99}}]})";
}

std::string write(const QTemporaryDir& dir, const std::string& name, const std::string& text) {
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream(path) << text;
    return path;
}

// Site function (as SyncSites names it) -> number of syncs.
std::map<std::string, int> sitesOf(const Imported& imported) {
    std::map<std::string, int> sites;
    for (const HostLane& lane : imported.session->hostLanes)
        for (size_t i = 0; i < lane.syncs.size(); ++i) {
            const uint32_t stack = lane.syncs.stackId[i];
            const SourceSite site =
                stack ? SyncSites::resolve(imported.database.stack(stack), {}) : SourceSite{};
            ++sites[stack ? site.file + "|" + site.function : std::string("<no stack>")];
        }
    return sites;
}

} // namespace

class KinetoOpChainsTest : public QObject {
    Q_OBJECT
private slots:
    void chainNames() {
        QCOMPARE(
            KinetoOpChains::chainName({"aten::item", "aten::_local_scalar_dense"},
                                      "Optimizer.step#AdamW.step"),
            std::string("aten::item ← aten::_local_scalar_dense in Optimizer.step#AdamW.step"));
        QCOMPARE(KinetoOpChains::chainName({"aten::nonzero"}, ""), std::string("aten::nonzero"));
        QCOMPARE(KinetoOpChains::chainName({}, "forward"), std::string("in forward"));
        QVERIFY(KinetoOpChains::isCpuOpCategory("cpu_op"));
        QVERIFY(KinetoOpChains::isCpuOpCategory("Operator")); // PyTorch 1.8
        QVERIFY(!KinetoOpChains::isCpuOpCategory("cuda_runtime"));
    }

    // Two steps: the .item() chain in each (one site of 2), aten::nonzero in the first (its own
    // site), and a sync with only the ProfilerStep around it: named by its kind (a
    // torch.cuda.synchronize() looks like this), never "<unknown>".
    void stacklessSyncsAreNamedByTheirOpChain() {
        QTemporaryDir dir;
        const std::string events = traceEvent("user_annotation", "ProfilerStep#1", 0, 100) +
                                   itemInOptimizerStep(5, 1) +
                                   traceEvent("cpu_op", "aten::nonzero", 60, 20) + sync(62, 2) +
                                   traceEvent("user_annotation", "ProfilerStep#2", 100, 100) +
                                   itemInOptimizerStep(105, 3) + sync(170, 4);
        auto imported = importTrace(dir, write(dir, "stackless.json", trace(events)));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const std::map<std::string, int> sites = sitesOf(*imported);
        const std::map<std::string, int> expected{
            {"|aten::item ← aten::_local_scalar_dense in Optimizer.step#AdamW.step", 2},
            {"|aten::nonzero", 1},
            {"|stream synchronize outside any op", 1}};
        QVERIFY2(sites == expected, qPrintable(describe(sites)));
    }

    // With python_function events the sync keeps its function-level site, ops or not.
    void pythonStacksKeepTheFunctionSite() {
        QTemporaryDir dir;
        const std::string events = traceEvent("python_function", "train.py(10): step", 0, 100) +
                                   traceEvent("cpu_op", "aten::item", 10, 20) + sync(12, 1);
        auto imported = importTrace(dir, write(dir, "stacks.json", trace(events)));
        QVERIFY2(imported->ok(), imported->error.c_str());
        const std::map<std::string, int> sites = sitesOf(*imported);
        QVERIFY2(sites == (std::map<std::string, int>{{"train.py|step", 1}}),
                 qPrintable(describe(sites)));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(KinetoOpChainsTest)
#include "test_kineto_op_chains.moc"
