// Kernels that share their GPU in the replay (model/whatif/kernel_device_sharing.h). A pipeline
// on two streams, as cu_pipeline_chunk_syncs: each chunk a 1 ms kernel then a stream sync, the
// streams taking turns. Without the syncs, kernels of more blocks than half the GPU's 132 SMs
// follow each other (the fix saves only the gaps between them); one block fewer and they run side
// by side (it saves half). Kernels the recording shows overlapping, kernels of one stream and
// kernels of unknown grid get no such order, and the unmodified replay still reproduces the
// recording.
#include "model/whatif/kernel_device_sharing.h"
#include "model/whatif/replay.h"
#include "model/whatif/run_graph.h"
#include "tests/model/insight_fixture.h"
#include "tests/model/whatif_fixture.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <array>
#include <vector>

using namespace stallscope;
using format::SyncKind;
using model::whatif::fillsDevice;
using model::whatif::kernelsFollowingOnTheirDevice;
using model::whatif::Replayer;
using model::whatif::WhatIf;
using testing::buildGraph;
using testing::syncsOfStack;

namespace {

constexpr int kChunks = 10;
constexpr int64_t kChunkNs = 1'100'000; // a 1 ms kernel, then the sync returns and the next launch
constexpr int64_t kKernelNs = 1'000'000;
constexpr int64_t kStart = 1'000'000;

// Writes the pipeline with kernels of `blocks` blocks; the stack of its syncs, or nothing (which
// failed the test).
std::optional<int64_t> writePipeline(const std::string& path, int32_t blocks,
                                     bool overlapInRecording = false) {
    testing::InsightFixture fixture(path, 100'000'000);
    fixture.setKernelBlocks(blocks);
    const int64_t streams[] = {fixture.stream, fixture.addStream(8)};
    const int64_t stack = fixture.pythonStack("pipeline.py", 40, "run_chunk");
    for (int i = 0; i < kChunks; ++i) {
        const int64_t t0 = kStart + i * kChunkNs;
        // overlapInRecording: each kernel runs 1.5 ms, into the next one's first 0.4 ms.
        const int64_t start = t0 + 10'000;
        fixture.launch(t0, start, start + kKernelNs + (overlapInRecording ? 500'000 : 0),
                       streams[i % 2]);
        if (!overlapInRecording)
            fixture.sync(SyncKind::Stream, t0 + 2'000, start + kKernelNs + 5'000, stack,
                         streams[i % 2]);
    }
    if (!fixture.load().ok())
        return std::nullopt;
    return stack;
}

// The pairs by their definition: every filling kernel of the device in (start, end, operation)
// order, each following the one before it when that one is on another stream and ended by its
// start.
std::vector<std::pair<uint32_t, uint32_t>>
followersByDefinition(const model::whatif::RunGraph& graph) {
    std::vector<std::array<int64_t, 4>> filling; // start, end, operation, lane
    for (size_t l = 0; l < graph.streams().size(); ++l) {
        const auto lane = static_cast<int32_t>(l);
        const model::KernelColumns& kernels = graph.session().streamLanes[l].kernels;
        for (uint32_t k = 0; k < graph.streams()[l].ops.size(); ++k)
            if (graph.opKind(lane, k) == model::whatif::RunGraph::OpKind::Kernel &&
                fillsDevice(kernels.blocksOf(graph.opIndex(lane, k)), 132))
                filling.push_back({graph.opStart(lane, k), graph.opEnd(lane, k),
                                   graph.streams()[l].firstOp + k, lane});
    }
    std::sort(filling.begin(), filling.end());
    std::vector<std::pair<uint32_t, uint32_t>> follows;
    for (size_t i = 1; i < filling.size(); ++i)
        if (filling[i - 1][3] != filling[i][3] && filling[i - 1][1] <= filling[i][0])
            follows.emplace_back(uint32_t(filling[i][2]), uint32_t(filling[i - 1][2]));
    std::sort(follows.begin(), follows.end());
    return follows;
}

} // namespace

class TestKernelDeviceSharing : public QObject {
    Q_OBJECT
private slots:
    void moreThanHalfTheSmsFillsTheDevice() {
        QVERIFY(fillsDevice(67, 132));
        QVERIFY(!fillsDevice(66, 132));
        QVERIFY(fillsDevice(1024, 132));
        QVERIFY(!fillsDevice(0, 132));  // grid unknown
        QVERIFY(!fillsDevice(1024, 0)); // device size unknown
    }

    void fillingKernelsFollowEachOther_data() {
        QTest::addColumn<int>("blocks");
        QTest::addColumn<bool>("follow");
        QTest::newRow("67 blocks on 132 SMs: they share the SMs") << 67 << true;
        QTest::newRow("66 blocks: each has SMs of its own") << 66 << false;
    }
    void fillingKernelsFollowEachOther() {
        QFETCH(int, blocks);
        QFETCH(bool, follow);
        const std::string file = m_dir.filePath("pipeline.stallscope").toStdString();
        const auto stack = writePipeline(file, blocks);
        QVERIFY(stack);
        testing::checkReplayIdentity(file);
        const std::unique_ptr<testing::Built> built = buildGraph(file);
        QVERIFY(built);
        const auto& graph = built->graph;
        // Every kernel but the first follows the one before it, on the other stream.
        QCOMPARE(graph.deviceFollowers().size(), size_t(follow ? kChunks - 1 : 0));
        // Each follows the kernel of the chunk before it, on the other stream.
        for (const auto& [op, prior] : graph.deviceFollowers()) {
            const auto [lane, index] = graph.locateOp(op);
            const auto [priorLane, priorIndex] = graph.locateOp(prior);
            QCOMPARE(priorLane, 1 - lane);
            QCOMPARE(graph.opStart(lane, index) - graph.opStart(priorLane, priorIndex), kChunkNs);
        }
        WhatIf changes;
        changes.removedSyncs = syncsOfStack(*built->session, *stack);
        QCOMPARE(changes.removedSyncs.size(), size_t(kChunks));
        const Replayer replayer(graph);
        const int64_t recordedEnd = replayer.replay(WhatIf{}, {}).windowEndNs;
        const int64_t fixedEnd = replayer.replay(changes, {}).windowEndNs;
        const int64_t saved = recordedEnd - fixedEnd;
        qInfo("%d blocks: %lld ns of %lld saved", blocks, (long long)saved,
              (long long)(recordedEnd - kStart));
        if (follow) {
            // One kernel after the other: only the 100 µs between them goes, less the queue gap.
            QVERIFY2(saved > 0 && saved <= (kChunks - 1) * (kChunkNs - kKernelNs),
                     qPrintable(QString::number(saved)));
        } else {
            // Two at a time: about half the kernels' time.
            QVERIFY2(saved >= (kChunks / 2 - 1) * kKernelNs, qPrintable(QString::number(saved)));
        }
    }

    // Filling kernels the recording shows overlapping ran side by side: no order between them.
    void kernelsThatOverlappedStayFree() {
        const std::string file = m_dir.filePath("overlap.stallscope").toStdString();
        QVERIFY(writePipeline(file, 1024, true));
        const std::unique_ptr<testing::Built> built = buildGraph(file);
        QVERIFY(built);
        QVERIFY(kernelsFollowingOnTheirDevice(built->graph).empty());
        testing::checkReplayIdentity(file);
    }

    // Three streams taking the device in an irregular order, some kernels too small to fill it,
    // some overlapping: the streams' own orders merged give the pairs the definition gives, and
    // so do two kernels of one stream that start together (the longer first), whose stream is
    // then out of (start, end) order.
    void streamsMergedAsTheDefinitionOrdersThem_data() {
        QTest::addColumn<bool>("equalStarts");
        QTest::newRow("each stream in order") << false;
        QTest::newRow("two kernels of a stream start together") << true;
    }
    void streamsMergedAsTheDefinitionOrdersThem() {
        QFETCH(bool, equalStarts);
        const std::string file = m_dir.filePath("three.stallscope").toStdString();
        {
            testing::InsightFixture fixture(file, 100'000'000);
            const int64_t streams[] = {fixture.stream, fixture.addStream(8), fixture.addStream(9)};
            uint32_t state = 12345;
            auto next = [&state](uint32_t bound) {
                state = state * 1103515245u + 12345u;
                return (state >> 8) % bound;
            };
            int64_t ends[3] = {kStart, kStart, kStart};
            for (int i = 0; i < 60; ++i) {
                const int s = int(next(3));
                fixture.setKernelBlocks(next(4) == 0 ? 10 : 1024);
                const int64_t start = ends[s] + int64_t(next(40)) * 1'000;
                const int64_t end = start + 5'000 + int64_t(next(30)) * 1'000;
                fixture.launch(start - 3'000, start, end, streams[s]);
                ends[s] = end;
            }
            if (equalStarts) {
                fixture.setKernelBlocks(1024);
                fixture.launch(ends[1] + 1'000, ends[1] + 10'000, ends[1] + 90'000, streams[1]);
                fixture.launch(ends[1] + 2'000, ends[1] + 10'000, ends[1] + 20'000, streams[1]);
                fixture.launch(ends[1] + 3'000, ends[1] + 95'000, ends[1] + 99'000, streams[0]);
            }
            QVERIFY(fixture.load().ok());
        }
        const std::unique_ptr<testing::Built> built = buildGraph(file);
        QVERIFY(built);
        const auto expected = followersByDefinition(built->graph);
        QVERIFY(expected.size() >= 10);
        QCOMPARE(kernelsFollowingOnTheirDevice(built->graph), expected);
    }

    // Kernels of one stream follow each other anyway; kernels of unknown grid (0 blocks, a
    // Kineto trace without one) are left free.
    void oneStreamAndUnknownGridsGetNoOrder_data() {
        QTest::addColumn<int>("blocks");
        QTest::addColumn<bool>("twoStreams");
        QTest::newRow("one stream") << 1024 << false;
        QTest::newRow("grid unknown") << 0 << true;
    }
    void oneStreamAndUnknownGridsGetNoOrder() {
        QFETCH(int, blocks);
        QFETCH(bool, twoStreams);
        const std::string file = m_dir.filePath("free.stallscope").toStdString();
        {
            testing::InsightFixture fixture(file, 100'000'000);
            fixture.setKernelBlocks(blocks);
            const int64_t second = twoStreams ? fixture.addStream(8) : fixture.stream;
            for (int i = 0; i < 4; ++i)
                fixture.launch(kStart + i * kChunkNs, kStart + i * kChunkNs + 10'000,
                               kStart + i * kChunkNs + kKernelNs, i % 2 ? second : fixture.stream);
            QVERIFY(fixture.load().ok());
        }
        const std::unique_ptr<testing::Built> built = buildGraph(file);
        QVERIFY(built);
        QCOMPARE(built->graph.opCount(), size_t(4));
        QVERIFY(built->graph.deviceFollowers().empty());
    }

    // The loader reads each kernel's grid as its block count: x * y * z, saturated at 65535;
    // a negative extent (an imported trace's placeholder) and a missing grid read as unknown (0).
    void gridsLoadAsBlockCounts() {
        const std::string file = m_dir.filePath("grids.stallscope").toStdString();
        testing::InsightFixture fixture(file, 100'000'000);
        const std::vector<std::array<int32_t, 3>> grids = {
            {4, 2, 3}, {0, 1, 1}, {-1, 1, 1}, {100'000, 1, 1}, {1 << 30, 65535, 65535}, {66, 1, 1}};
        const int64_t name = fixture.writer().internString("k");
        for (size_t i = 0; i < grids.size(); ++i) {
            format::KernelRow row;
            row.streamId = fixture.stream;
            row.nameId = name;
            row.startNs = 1'000'000 + int64_t(i) * 10'000;
            row.endNs = row.startNs + 5'000;
            row.correlationId = int64_t(i) + 1;
            for (int d = 0; d < 3; ++d)
                row.grid[d] = grids[i][d];
            fixture.writer().addKernel(row);
        }
        const testing::LoadedFixture loaded = fixture.load();
        QVERIFY(loaded.ok());
        const model::KernelColumns& kernels = loaded.session->streamLanes.at(0).kernels;
        QCOMPARE(kernels.blocks, (std::vector<uint16_t>{24, 0, 0, 65535, 65535, 66}));
        QCOMPARE(kernels.blocksOf(kernels.size()), model::KernelColumns::kBlocksUnknown);
    }

private:
    QTemporaryDir m_dir;
};

STALLSCOPE_TEST_GUILESS_MAIN(TestKernelDeviceSharing)
#include "test_kernel_device_sharing.moc"
