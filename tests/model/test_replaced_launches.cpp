// A shape-static rewrite (SyncFix::FixedShape) takes a data-dependent-size op's whole chain
// away, not only its wait (replaced_launches.h): around each sync of the site, the count's kernel
// and copy before it and the select, write and index kernels after it, over a few of the op's
// other launches; never the user's own kernels beyond them. Hand-computed on a host-bound loop
// shaped like bench/corpus's bool_mask_loss.
#include "model/analysis/replaced_launches.h"
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

constexpr int kMaskSteps = 10;
constexpr int64_t kMaskPeriod = 1'000'000; // 19 launches of 20 µs: 380 µs of host work a step
constexpr int64_t kLaunchEvery = 20'000;   // host-bound: 20 µs a launch, 2 µs kernels

// The kernels of one step in launch order; the sync comes after the copy of the count.
// Ten of the user's kernels come first: more than the chain bridges, so that one step's chain
// does not reach the previous one's.
const char* const kStep[] = {"gemm_forward",
                             "layer_norm",
                             "gelu",
                             "conv_fprop",
                             "nchwToNhwc",
                             "nhwcToNchw",
                             "elementwise_add",
                             "dropout",
                             "gemm_forward",
                             "other_elementwise",
                             "cub::DeviceReduceSingleTileKernel<int>",
                             "(copy)",
                             "(sync)",
                             "cub::DeviceCompactInitKernel",
                             "cub::DeviceSelectSweepKernel",
                             "at::native::Nonzero_cu::write_indices<long>",
                             "at::native::index_elementwise_kernel<128, 4>",
                             "softmax_warp_forward",
                             "nll_loss_forward"};
constexpr int kChainLaunches = 6; // reduce, copy, compact init, select, write_indices, index

// The loop's file (empty when it cannot be written, which fails the test) and its stack.
std::string writeMaskLoop(const QTemporaryDir& dir, int64_t* stack) {
    const std::string file = dir.filePath("mask.stallscope").toStdString();
    InsightFixture f(file, 100'000'000);
    *stack = f.pythonStack("/home/u/tagger.py", 59, "train_step");
    const int64_t copyCall = f.writer().internString("cudaMemcpyAsync_v3020");
    for (const int64_t t0 : testing::stepStarts(kMaskSteps, kMaskPeriod)) {
        int64_t t = t0;
        for (const char* name : kStep) {
            const std::string_view what = name;
            if (what == "(copy)") {
                const int64_t copy =
                    f.memcpy(t + 3'000, t + 4'000, format::CopyKind::DtoH,
                             format::MemoryKind::Device, format::MemoryKind::Pageable, 8, true);
                f.writer().addApiCall(
                    {f.thread, format::ApiDomain::Runtime, 41, copyCall, t, t + 5'000, copy, 0});
            } else if (what == "(sync)") {
                f.sync(SyncKind::Stream, t, t + 5'000, *stack, f.stream);
            } else {
                f.setKernelName(name);
                f.launch(t, t + 2'000, t + 4'000);
            }
            t += kLaunchEvery;
        }
    }
    if (!f.load().ok())
        return {};
    return file;
}

std::string kernelOf(const model::whatif::RunGraph& graph, uint32_t step) {
    for (size_t lane = 0; lane < graph.streams().size(); ++lane) {
        const auto& stream = graph.streams()[lane];
        for (uint32_t k = 0; k < stream.ops.size(); ++k)
            if (graph.launchStep(stream.firstOp + k) == step)
                return graph.opKind(static_cast<int32_t>(lane), k) ==
                               model::whatif::RunGraph::OpKind::Memcpy
                           ? "(copy)"
                           : graph.session().string(
                                 graph.session()
                                     .streamLanes[lane]
                                     .kernels.nameId[graph.opIndex(static_cast<int32_t>(lane), k)]);
    }
    return "(none)";
}

} // namespace

class TestReplacedLaunches : public QObject {
    Q_OBJECT
private slots:
    void namesOfTheChainsKernels() {
        QVERIFY(model::isDataDependentSizeKernel(
            "_ZN14at_cuda_detail3cub6detail6select23DeviceSelectSweepKernelINS2_10policy_hub"));
        QVERIFY(model::isDataDependentSizeKernel("_ZN2at6native24index_elementwise_kernelILi128E"));
        QVERIFY(!model::isDataDependentSizeKernel(
            "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE"));
        QVERIFY(!model::isDataDependentSizeKernel("softmax_warp_forward"));
    }

    void theChainAroundEachSync() {
        QTemporaryDir dir;
        int64_t stack = 0;
        const std::string file = writeMaskLoop(dir, &stack);
        QVERIFY(!file.empty());
        const std::unique_ptr<testing::Built> built = testing::buildGraph(file);
        QVERIFY(built);
        const std::vector<model::EventRef> syncs = testing::syncsOfStack(*built->session, stack);
        QCOMPARE(syncs.size(), size_t(kMaskSteps));
        const std::vector<uint32_t> replaced =
            model::replacedLaunchesOf(built->graph, syncs, INT64_MIN, INT64_MAX);
        QCOMPARE(replaced.size(), size_t(kMaskSteps * kChainLaunches));
        // The first step's chain: exactly the op's launches, the user's kernels around it kept.
        QStringList first;
        for (int i = 0; i < kChainLaunches; ++i)
            first << QString::fromStdString(kernelOf(built->graph, replaced[i]));
        QCOMPARE(first, (QStringList{"cub::DeviceReduceSingleTileKernel<int>", "(copy)",
                                     "cub::DeviceCompactInitKernel", "cub::DeviceSelectSweepKernel",
                                     "at::native::Nonzero_cu::write_indices<long>",
                                     "at::native::index_elementwise_kernel<128, 4>"}));
        // With no bridging, the count's kernel before the copy is still next to it; a window
        // that starts after the first sync leaves its chain out.
        QCOMPARE(model::replacedLaunchesOf(built->graph, syncs, INT64_MIN, INT64_MAX, 0).size(),
                 size_t(kMaskSteps * kChainLaunches));
        QCOMPARE(model::replacedLaunchesOf(
                     built->graph, syncs,
                     testing::stepStarts(kMaskSteps, kMaskPeriod)[0] + kMaskPeriod / 2, INT64_MAX)
                     .size(),
                 size_t((kMaskSteps - 1) * kChainLaunches));

        // The fix of boolean-mask indexing replays them away; another operation's keeps them.
        auto fixOf = [&](std::string_view operation) {
            return model::siteFix(built->graph, syncs, model::SourceLanguage::Python,
                                  model::syncOperationById(operation), INT64_MIN, INT64_MAX);
        };
        const WhatIf rewritten = fixOf("bool-mask-index");
        QCOMPARE(rewritten.removedLaunches, replaced);
        QVERIFY(fixOf("item").removedLaunches.empty());
        // Host-bound: each replaced launch gives back its 20 µs (its CPU time and its call), the
        // sync's own statement time aside.
        WhatIf waitsOnly = rewritten;
        waitsOnly.removedLaunches.clear();
        const auto end = [&](const WhatIf& change) {
            return Replayer(built->graph).replay(change, {}).windowEndNs;
        };
        const int64_t saved = end(waitsOnly) - end(rewritten);
        QVERIFY2(saved >= (kMaskSteps - 1) * kChainLaunches * kLaunchEvery &&
                     saved <= kMaskSteps * kChainLaunches * kLaunchEvery,
                 std::to_string(saved).c_str());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestReplacedLaunches)
#include "test_replaced_launches.moc"
