// A pageable upload made pinned in the what-if replay (WhatIf::pinRemovedCopies): the driver
// stages a pageable copy through its own buffer, so its DMA starts long after the stream could
// have run it and lasts as long as the host's copying. The pinned copy keeps neither: it runs at
// the pinned rate, behind its predecessor at the GPU's typical gap, and the staged copies' gaps
// are no measure of that gap (RunGraph::opStagedByHost).
#include "format/session_enums.h"
#include "model/whatif/replay.h"
#include "model/whatif/run_graph.h"
#include "tests/model/insight_fixture.h"
#include "tests/model/whatif_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using format::CopyKind;
using format::MemoryKind;
using format::SyncKind;
using model::whatif::Replayer;
using model::whatif::WhatIf;
using testing::buildGraph;
using testing::Built;
using testing::stepStarts;
using testing::syncsOfStack;

namespace {

constexpr int kPageableSteps = 20;
constexpr int64_t kPageablePeriod = 1'100'000;
constexpr int64_t kBytes = 8 << 20;

// Each step (1.1 ms): a 50 µs kernel on the compute stream launched at its start, then a blocking
// cudaMemcpy of 8 MiB from pageable memory on the default stream [+10 µs, +1090 µs]. The DMA
// runs [+190 µs, +1090 µs]: 180 µs of staging before it, and 200 µs after the previous step's.
void writeStagedUploads(testing::InsightFixture& fixture, int64_t stack, int64_t copyStream,
                        MemoryKind source) {
    for (const int64_t t : stepStarts(kPageableSteps, kPageablePeriod)) {
        fixture.launch(t, t + 5'000, t + 55'000);
        const int64_t copy = fixture.memcpy(t + 190'000, t + 1'090'000, CopyKind::HtoD, source,
                                            MemoryKind::Device, kBytes, false, copyStream);
        fixture.sync(source == MemoryKind::Pageable ? SyncKind::PageableCopy
                                                    : SyncKind::BlockingCopy,
                     t + 10'000, t + 1'090'000, stack, copyStream, {}, copy);
    }
}

// The uploads of writeStagedUploads from `source` memory, written to `file` and loaded; no graph
// when that failed (which failed the test).
struct Uploads {
    int64_t stack = 0;
    std::unique_ptr<Built> built;
};
Uploads loadUploads(const std::string& file, MemoryKind source) {
    testing::InsightFixture fixture(file, 100'000'000);
    const int64_t copyStream = fixture.addStream(0, true);
    Uploads uploads;
    uploads.stack = fixture.nativeStack("upload.cu", 82, "main");
    writeStagedUploads(fixture, uploads.stack, copyStream, source);
    if (fixture.load().ok())
        uploads.built = buildGraph(file);
    return uploads;
}

} // namespace

class TestWhatIfPageable : public QObject {
    Q_OBJECT
private slots:
    // Made pinned, the uploads run back to back at the pinned rate (8 MiB at 48.8 GB/s plus the
    // typical 1 µs queue gap, behind the previous one by that gap): 173.9 µs a step where the
    // recording took 1.1 ms. Keeping the staged copies' 200 µs gaps, or their 180 µs delay after
    // the launch, would add 180-200 µs a step.
    void pinnedUploadsRunBackToBack() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("uploads.stallscope").toStdString();
        const Uploads uploads = loadUploads(file, MemoryKind::Pageable);
        const std::unique_ptr<Built>& built = uploads.built;
        QVERIFY(built);
        const int64_t stack = uploads.stack;
        // The kernels' launch latency alone; no queue gap measured (the default 1 µs).
        QCOMPARE(built->graph.latencies().launchNs, int64_t(5'000));
        QCOMPARE(built->graph.latencies().queueGapNs, int64_t(1'000));
        testing::checkReplayIdentity(file);

        model::whatif::ReplayOptions options;
        options.keepShifts = true;
        WhatIf pinned;
        pinned.removedSyncs = syncsOfStack(*built->session, stack);
        const model::whatif::ReplayResult result = Replayer(built->graph).replay(pinned, options);
        QCOMPARE(result.forcedNodes, int64_t(0));
        // The copies' replayed ends, in order (the copy stream holds only them).
        const int32_t lane = [&] {
            for (size_t l = 0; l < built->graph.streams().size(); ++l)
                if (built->graph.streams()[l].ops.size() == kPageableSteps &&
                    built->graph.opKind(static_cast<int32_t>(l), 0) ==
                        model::whatif::RunGraph::OpKind::Memcpy)
                    return static_cast<int32_t>(l);
            return -1;
        }();
        QVERIFY(lane >= 0);
        QVERIFY(built->graph.opStagedByHost(lane, 0));
        const uint32_t first = built->graph.streams()[lane].firstOp;
        const int64_t pinnedNs =
            static_cast<int64_t>(static_cast<double>(kBytes) / 48.8e9 * 1e9) + 1'000;
        for (uint32_t k = 1; k < kPageableSteps; ++k) {
            const int64_t end = built->graph.opEnd(lane, k) + result.opEndShift[first + k];
            const int64_t previous =
                built->graph.opEnd(lane, k - 1) + result.opEndShift[first + k - 1];
            QCOMPARE(end - previous, pinnedNs + 1'000);
        }
        QCOMPARE(result.gpuTimeRemovedNs, int64_t(kPageableSteps) * (900'000 - pinnedNs));
    }

    // Copies from pinned memory are not staged: their delays measure the GPU (here the 180 µs
    // from each call to its copy joins the kernels' 5 µs launch latencies, half and half).
    void pinnedSourcesAreNotStaged() {
        QTemporaryDir dir;
        const std::unique_ptr<Built> built =
            loadUploads(dir.filePath("pinned.stallscope").toStdString(), MemoryKind::Pinned).built;
        QVERIFY(built);
        for (size_t l = 0; l < built->graph.streams().size(); ++l)
            for (uint32_t k = 0; k < built->graph.streams()[l].ops.size(); ++k)
                QVERIFY(!built->graph.opStagedByHost(static_cast<int32_t>(l), k));
        QCOMPARE(built->graph.latencies().launchNs, int64_t(180'000));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestWhatIfPageable)
#include "test_whatif_pageable.moc"
