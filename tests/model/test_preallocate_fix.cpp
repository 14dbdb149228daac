// The fix of a free or empty_cache in the loop is to allocate once (SyncFix::Preallocate): memory
// freed every step is allocated again every step, so the replay of that fix (siteFix) takes the
// allocation calls of the site's threads out of the loop with their own time
// (WhatIf::removedCalls), not only the free's wait. Hand-computed on a host-bound loop.
#include "model/analysis/simulated_savings.h"
#include "model/analysis/sync_operations.h"
#include "model/whatif/replay.h"
#include "tests/model/insight_fixture.h"
#include "tests/model/whatif_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using format::SyncKind;
using model::whatif::Replayer;
using model::whatif::WhatIf;
using testing::InsightFixture;

namespace {

constexpr int kAllocSteps = 10;
constexpr int64_t kAllocPeriod = 500'000;
constexpr int64_t kMallocNs = 40'000;

// Steps 500 µs apart: cudaMalloc [+0, +40 µs], cudaMallocAsync [+45, +50 µs] (stream-ordered:
// a fix keeps it), a launch at +60 µs of a 100 µs kernel, cudaFree waiting for it [+70, +170 µs]
// from `stack`, then host work until the next step. Returns the stack's file, empty when it cannot
// be written (which fails the test).
std::string writeAllocLoop(const QTemporaryDir& dir, int64_t* stack) {
    const std::string file = dir.filePath("free.stallscope").toStdString();
    InsightFixture f(file, 100'000'000);
    *stack = f.nativeStack("train.cu", 51, "step");
    const int64_t malloc = f.writer().internString("cudaMalloc_v3020");
    const int64_t mallocAsync = f.writer().internString("cudaMallocAsync_v11020");
    for (const int64_t t : testing::stepStarts(kAllocSteps, kAllocPeriod)) {
        f.writer().addApiCall(
            {f.thread, format::ApiDomain::Runtime, 20, malloc, t, t + kMallocNs, 0, 0});
        f.writer().addApiCall(
            {f.thread, format::ApiDomain::Runtime, 395, mallocAsync, t + 45'000, t + 50'000, 0, 0});
        f.launch(t + 60'000, t + 65'000, t + 165'000);
        f.sync(SyncKind::BlockingAlloc, t + 70'000, t + 170'000, *stack);
    }
    if (!f.load().ok())
        return {};
    return file;
}

} // namespace

class TestPreallocateFix : public QObject {
    Q_OBJECT
private slots:
    void allocationCallsGoWithTheFree() {
        QTemporaryDir dir;
        int64_t stack = 0;
        const std::string file = writeAllocLoop(dir, &stack);
        QVERIFY(!file.empty());
        const std::unique_ptr<testing::Built> built = testing::buildGraph(file);
        QVERIFY(built);
        const std::vector<model::EventRef> syncs = testing::syncsOfStack(*built->session, stack);
        QCOMPARE(syncs.size(), size_t(kAllocSteps));
        const model::whatif::RunGraph& graph = built->graph;
        auto fixOf = [&](std::string_view operation, int64_t fromNs) {
            return model::siteFix(graph, syncs, model::SourceLanguage::Native,
                                  model::syncOperationById(operation), fromNs, INT64_MAX);
        };
        // Allocating once takes every cudaMalloc of the window, not the stream-ordered one.
        const WhatIf preallocated = fixOf("cuda-free", 0);
        QCOMPARE(preallocated.removedSyncs.size(), size_t(kAllocSteps));
        QCOMPARE(preallocated.removedCalls.size(), size_t(kAllocSteps));
        const model::ApiCallColumns& api = built->session->hostLanes[0].apiCalls;
        for (const uint32_t step : preallocated.removedCalls) {
            const auto [lane, local] = graph.locateStep(step);
            const uint32_t call = graph.threads()[lane].steps[local];
            QCOMPARE(built->session->string(api.nameId[call]), std::string("cudaMalloc_v3020"));
        }
        // The window's start bounds them: the first step's falls outside.
        QCOMPARE(fixOf("cuda-free", testing::stepStarts(kAllocSteps, kAllocPeriod)[0] + 1)
                     .removedCalls.size(),
                 size_t(kAllocSteps - 1));
        // Another operation's fix keeps them (a free's wait removed, the allocations kept).
        QVERIFY(fixOf("cuda-synchronize", 0).removedCalls.empty());
        QVERIFY(model::siteFix(graph, syncs, model::SourceLanguage::Native, nullptr, 0, INT64_MAX)
                    .removedCalls.empty());

        // Host-bound: each removed call gives back its 40 µs.
        WhatIf waitsOnly = preallocated;
        waitsOnly.removedCalls.clear();
        QCOMPARE(testing::replayedEnd(*built, waitsOnly) -
                     testing::replayedEnd(*built, preallocated),
                 kAllocSteps * kMallocNs);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestPreallocateFix)
#include "test_preallocate_fix.moc"
