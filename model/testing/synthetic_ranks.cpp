#include "model/testing/synthetic_ranks.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace stallscope::model::synthetic {

using namespace stallscope::format;

namespace {
constexpr size_t kComputeStream = 0, kNcclStream = 1;

// Per rank, what the current step's all-reduce launch left for the GPU side.
struct PendingCollective {
    int64_t correlationId = 0;
    int64_t startNs = 0; // when the kernel starts on its GPU: the rank's arrival
};
} // namespace

void DataParallelGenerator::setUpRank(int rank) {
    ProcessState& process = m_processes.emplace_back();
    // torchrun starts its workers within a few milliseconds of each other.
    const int64_t startNs = m_stats.startNs + rank * m_random.range(1'000'000, 4'000'000);
    ProcessRow row;
    row.pid = 31'000 + m_random.range(0, 999) * 8 + rank;
    row.host = m_options.host;
    row.command = m_options.command;
    row.startNs = startNs;
    process.rowId = m_writer.addProcess(row);
    ProcessRankRow rankRow;
    rankRow.processId = process.rowId;
    rankRow.rank = rank;
    rankRow.localRank = rank;
    rankRow.worldSize = m_options.ranks;
    rankRow.launcher = m_options.launcher;
    m_writer.addProcessRank(rankRow);
    setUpModules(process, startNs);

    ThreadState& main = process.threads.emplace_back();
    main.rowId = m_writer.addThread({process.rowId, row.pid, "python3"});
    main.nowNs = startNs + 250'000'000 + m_random.range(0, 99'999);
    main.lastLaunchesAtSite.fill(-1);

    const int64_t deviceId = addH100(process.rowId, rank); // rank r drives GPU r
    DeviceState& state = process.devices.emplace_back();
    // PyTorch computes on the legacy default stream; NCCL runs on its own high-priority stream.
    state.streams.push_back({m_writer.addStream({deviceId, rank + 1, 7, true, 0}), 0});
    state.streams.push_back({m_writer.addStream({deviceId, rank + 1, 13, false, -1}), 0});
    if (m_options.collectivesFromSecondThread) {
        ThreadState& autograd = process.threads.emplace_back();
        autograd.rowId = m_writer.addThread({process.rowId, row.pid + 1, "pt_autograd_0"});
        autograd.lastLaunchesAtSite.fill(-1);
    }
}

// Forward and backward, then what the straggler does before it launches the all-reduce.
void DataParallelGenerator::rankCompute(ProcessState& process, int rank) {
    ThreadState& main = process.threads[0];
    StreamState& compute = process.devices.front().streams[kComputeStream];
    const int64_t forwardStart = main.nowNs;
    for (const KernelSpec& kernel : process.forward)
        launch(process, main, compute, kernel);
    addRange(main, m_rangeForward, forwardStart, main.nowNs, 1);
    const int64_t backwardStart = main.nowNs;
    for (const KernelSpec& kernel : process.backward)
        launch(process, main, compute, kernel);
    addRange(main, m_rangeBackward, backwardStart, main.nowNs, 1);

    if (rank == m_options.stragglerRank && m_options.stragglerDelayNs > 0) {
        if (m_options.stragglerSyncs) {
            // A metric computed on the GPU and read at once: the host waits for it.
            KernelSpec metric = process.optimizer.front();
            metric.durationNs = m_options.stragglerDelayNs;
            launch(process, main, compute, metric);
            copy(
                process, main, compute,
                {CopyKind::DtoH, MemoryKind::Device, MemoryKind::Pageable, 4, 6'000, std::nullopt});
            blockingSync(process, main, kSiteMetrics, kCbidStreamSynchronize, compute.freeNs,
                         compute.rowId, std::nullopt);
        } else {
            // Plain Python: no CUDA call for the whole delay.
            const int64_t start = main.nowNs + m_random.range(1'000, 3'000);
            main.nowNs = start + m_options.stragglerDelayNs;
            m_sampler.addSamples(process.python, main.rowId, main.samples, kSampleSleep, start,
                                 main.nowNs);
            if (!m_options.stragglerRange.empty())
                addRange(main, intern(m_options.stragglerRange), start, main.nowNs, 1);
        }
    }
    if (m_options.rankJitterNs > 0)
        main.nowNs += m_random.range(0, m_options.rankJitterNs);
}

// After the all-reduce: the optimizer waits for the gradients, then `loss.item()`.
void DataParallelGenerator::rankFinishStep(ProcessState& process, int64_t stepIndex,
                                           int64_t stepStartNs) {
    ThreadState& main = process.threads[0];
    DeviceState& device = process.devices.front();
    StreamState& compute = device.streams[kComputeStream];
    StreamState& nccl = device.streams[kNcclStream];
    const int64_t reduced = recordEvent(process, main, nccl);
    waitEvent(process, main, compute, reduced, nccl.freeNs, kSiteGradWait);
    const int64_t optimizerStart = main.nowNs;
    for (const KernelSpec& kernel : process.optimizer)
        launch(process, main, compute, kernel);
    addRange(main, m_rangeOptimizer, optimizerStart, main.nowNs, 1);
    copy(process, main, compute,
         {CopyKind::DtoH, MemoryKind::Device, MemoryKind::Pageable, 4, 6'000, std::nullopt});
    blockingSync(process, main, kSiteItem, kCbidStreamSynchronize, compute.freeNs, compute.rowId,
                 std::nullopt);
    addRange(main, intern("step " + std::to_string(stepIndex)), stepStartNs, main.nowNs, 0);
    main.nowNs += m_random.range(20'000, 60'000); // the loop's own Python work
    process.lastStepNs = main.nowNs - stepStartNs;
}

bool DataParallelGenerator::run() {
    startSession();
    m_processes.reserve(static_cast<size_t>(m_options.ranks));
    for (int rank = 0; rank < m_options.ranks; ++rank)
        setUpRank(rank);
    // Data parallel: the same network on every rank (durations still jitter per launch).
    const int total = std::max(3, m_options.kernelsPerStep);
    const int optimizer = std::max(1, total / 8);
    const int forward = std::max(1, (total - optimizer) / 3);
    const std::vector<KernelSpec> forwardKernels =
        makeKernels(kForwardKernels, forward, 20'000, 300'000);
    const std::vector<KernelSpec> backwardKernels =
        makeKernels(kBackwardKernels, std::max(1, total - forward - optimizer), 30'000, 400'000);
    const std::vector<KernelSpec> optimizerKernels =
        makeKernels(kOptimizerKernels, optimizer, 4'000, 40'000);
    const char* const allReduceName[] = {kNcclAllReduceKernel};
    const KernelSpec allReduce = makeKernels(allReduceName, 1, 1, 1).front();
    for (ProcessState& process : m_processes) {
        process.forward = forwardKernels;
        process.backward = backwardKernels;
        process.optimizer = optimizerKernels;
        process.allReduce = allReduce;
    }

    std::vector<PendingCollective> pending(m_processes.size());
    std::vector<int64_t> stepStart(m_processes.size());
    int64_t lastCommit = m_writer.eventCount();
    int64_t stepIndex = 0;
    while (m_writer.ok() &&
           (m_options.rankSteps > 0 ? stepIndex < m_options.rankSteps
                                    : m_writer.eventCount() < m_options.targetEvents)) {
        // Each rank runs up to its all-reduce launch; the kernel starts when its GPU gets to it.
        int64_t lastArrival = 0;
        for (size_t r = 0; r < m_processes.size(); ++r) {
            ProcessState& process = m_processes[r];
            ThreadState& main = process.threads[0];
            DeviceState& device = process.devices.front();
            stepStart[r] = main.nowNs;
            rankCompute(process, static_cast<int>(r));
            StreamState& compute = device.streams[kComputeStream];
            StreamState& nccl = device.streams[kNcclStream];
            ThreadState& launcher = process.threads.back(); // main, or the second thread
            launcher.nowNs = std::max(launcher.nowNs, main.nowNs);
            const int64_t gradients = recordEvent(process, launcher, compute);
            waitEvent(process, launcher, nccl, gradients, compute.freeNs, kSiteAllReduceWait);
            const int64_t start = launcher.nowNs + m_random.range(3'000, 12'000);
            PendingCollective& collective = pending[r];
            collective.correlationId = apiCall(process, launcher, kCbidLaunchKernel, start,
                                               start + m_random.range(2'500, 6'000));
            main.nowNs = std::max(main.nowNs, launcher.nowNs);
            collective.startNs = std::max(start + m_random.range(3'000, 8'000),
                                          nccl.freeNs + m_random.range(800, 2'500));
            lastArrival = std::max(lastArrival, collective.startNs);
            ++launcher.launches;
        }
        // A collective ends when the last rank has arrived and the data has moved.
        const int64_t endNs = lastArrival + m_random.jitter(m_options.collectiveNs, 5);
        for (size_t r = 0; r < m_processes.size(); ++r) {
            ProcessState& process = m_processes[r];
            StreamState& nccl = process.devices.front().streams[kNcclStream];
            KernelRow row;
            row.correlationId = pending[r].correlationId;
            row.streamId = nccl.rowId;
            row.nameId = process.allReduce.nameId;
            row.startNs = pending[r].startNs;
            row.endNs = endNs;
            row.grid[0] = 32;
            row.block[0] = 512;
            row.registersPerThread = 96;
            m_writer.addKernel(row);
            if (m_options.collectiveBytes > 0) {
                CollectiveCallRow call;
                call.processId = process.rowId;
                call.correlationId = row.correlationId;
                call.function = "AllReduce";
                call.datatype = "ncclFloat32";
                call.count = m_options.collectiveBytes / 4;
                call.bytes = call.count * 4;
                m_writer.addCollectiveCall(call);
            }
            nccl.freeNs = endNs;
            rankFinishStep(process, stepIndex, stepStart[r]);
        }
        ++stepIndex;
        commitWhenDue(lastCommit);
    }
    return finishRun(stepIndex);
}

} // namespace stallscope::model::synthetic
