#include "model/testing/synthetic_generator.h"

#include <algorithm>
#include <string>

namespace stallscope::model::synthetic {

using namespace stallscope::format;

void TrainingLoopGenerator::setUpProcess(int index) {
    ProcessState& process = m_processes.emplace_back();
    const int64_t startNs = m_stats.startNs + index * m_random.range(200'000, 2'000'000);
    ProcessRow row;
    row.pid = 31'000 + m_random.range(0, 999) * 8 + index; // distinct per process
    row.host = m_options.host;
    row.command = m_options.command;
    row.startNs = startNs;
    process.rowId = m_writer.addProcess(row);
    setUpModules(process, startNs);

    for (int t = 0; t < m_options.threadsPerProcess; ++t) {
        ThreadState& thread = process.threads.emplace_back();
        thread.rowId = m_writer.addThread(
            {process.rowId, row.pid + (t == 0 ? 0 : 40 + t),
             t == 0 ? std::string("python3") : "pin_memory_" + std::to_string(t - 1)});
        // Interpreter and model start-up before the first step; loaders start a little earlier.
        thread.nowNs = startNs + (t == 0 ? 250'000'000 : 180'000'000) + m_random.range(0, 99'999);
        thread.lastLaunchesAtSite.fill(-1);
        thread.bufferEventId.assign(static_cast<size_t>(m_options.devicesPerProcess), 0);
        thread.bufferCopyEndNs.assign(static_cast<size_t>(m_options.devicesPerProcess), 0);
    }
    setUpDevices(process, index);

    // The same network every step (as in training), with per-step jitter on durations.
    const int total = std::max(3, m_options.kernelsPerStep);
    const int forward = std::max(1, total * 3 / 8);
    const int optimizer = std::max(1, total / 8);
    const int backward = std::max(1, total - forward - optimizer);
    process.forward = makeKernels(kForwardKernels, forward, 20'000, 300'000);
    process.backward = makeKernels(kBackwardKernels, backward, 30'000, 400'000);
    process.optimizer = makeKernels(kOptimizerKernels, optimizer, 4'000, 40'000);
    const char* const allReduce[] = {kAllReduceKernel};
    process.allReduce = makeKernels(allReduce, 1, 150'000, 600'000).front();
    process.batchBytes = m_random.range(2, 16) << 20;
}

void TrainingLoopGenerator::setUpDevices(ProcessState& process, int index) {
    for (int d = 0; d < m_options.devicesPerProcess; ++d) {
        const int32_t deviceIndex = index * m_options.devicesPerProcess + d; // rank r drives GPU r
        const int64_t deviceId = addH100(process.rowId, deviceIndex);
        DeviceState& state = process.devices.emplace_back();
        for (int s = 0; s < m_options.streamsPerDevice; ++s) {
            // CUPTI numbers the legacy default stream 7 in a context; PyTorch computes there.
            StreamRow stream;
            stream.deviceId = deviceId;
            stream.contextId = deviceIndex + 1;
            stream.streamId = s == 0 ? 7 : 12 + s;
            stream.isDefault = s == 0;
            stream.priority = s >= 2 ? -1 : 0; // NCCL streams run at high priority
            state.streams.push_back({m_writer.addStream(stream), 0});
        }
    }
}

StreamState& TrainingLoopGenerator::copyStream(DeviceState& device) {
    // Batches go to their own stream when events can order them before the compute stream.
    return m_options.streamWaitEvents && device.streams.size() > 1 ? device.streams[1]
                                                                   : device.streams[0];
}

void TrainingLoopGenerator::loadBatch(ProcessState& process, ThreadState& loader) {
    // Prefetch: the loader works about a step ahead of the training thread.
    loader.nowNs = std::max(loader.nowNs + m_random.range(20'000, 80'000),
                            process.threads[0].nowNs - process.lastStepNs);
    for (size_t d = 0; d < process.devices.size(); ++d) {
        DeviceState& device = process.devices[d];
        if (m_options.eventSyncs && loader.bufferEventId[d])
            blockingSync(process, loader, kSiteLoaderEvent, kCbidEventSynchronize,
                         loader.bufferCopyEndNs[d], std::nullopt, loader.bufferEventId[d]);
        StreamState& stream = copyStream(device);
        const int64_t bytes = m_random.jitter(process.batchBytes, 5) & ~int64_t{4095};
        const int64_t copyEnd = copy(
            process, loader, stream,
            {CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, bytes, 20'000, std::nullopt});
        device.batchCopyEndNs = copyEnd;
        if (m_options.streamWaitEvents || m_options.eventSyncs) {
            const int64_t event = recordEvent(process, loader, stream);
            device.batchEventId = event;
            loader.bufferEventId[d] = event;
            loader.bufferCopyEndNs[d] = copyEnd;
        }
    }
}

void TrainingLoopGenerator::backward(ProcessState& process, ThreadState& main) {
    // Every fourth gradient kernel completes a bucket, all-reduced on a side stream.
    const int64_t start = main.nowNs;
    const size_t sideStreams =
        process.devices.front().streams.size() > 2 ? process.devices.front().streams.size() - 2 : 0;
    size_t bucket = 0;
    for (size_t i = 0; i < process.backward.size(); ++i) {
        for (DeviceState& device : process.devices)
            launch(process, main, device.streams[0], process.backward[i]);
        if (sideStreams == 0 || (i % 4 != 3 && i + 1 != process.backward.size()))
            continue;
        for (DeviceState& device : process.devices) {
            StreamState& compute = device.streams[0];
            if (!m_options.streamWaitEvents) {
                launch(process, main, compute, process.allReduce);
                continue;
            }
            StreamState& side = device.streams[2 + bucket % sideStreams];
            const int64_t event = recordEvent(process, main, compute);
            waitEvent(process, main, side, event, compute.freeNs, kSiteAllReduceWait);
            launch(process, main, side, process.allReduce);
        }
        ++bucket;
    }
    if (sideStreams > 0 && m_options.streamWaitEvents) {
        for (DeviceState& device : process.devices)
            for (size_t s = 0; s < std::min(bucket, sideStreams); ++s) {
                StreamState& side = device.streams[2 + s];
                const int64_t event = recordEvent(process, main, side);
                waitEvent(process, main, device.streams[0], event, side.freeNs, kSiteGradWait);
            }
    }
    addRange(main, m_rangeBackward, start, main.nowNs, 1);
}

// optimizer.zero_grad(set_to_none=False): one memset of the gradients per device.
void TrainingLoopGenerator::zeroGrad(ProcessState& process, ThreadState& main) {
    for (DeviceState& device : process.devices) {
        StreamState& compute = device.streams[0];
        const int64_t start = main.nowNs + m_random.range(2'000, 6'000);
        MemsetRow row;
        row.correlationId =
            apiCall(process, main, kCbidMemsetAsync, start, start + m_random.range(2'500, 5'000));
        row.streamId = compute.rowId;
        row.startNs = std::max(start + m_random.range(3'000, 7'000),
                               compute.freeNs + m_random.range(800, 2'500));
        row.bytes = 64 << 20;
        row.endNs = row.startNs + row.bytes / 1'000; // ~1 TB/s
        row.dstKind = MemoryKind::Device;
        row.isAsync = true;
        m_writer.addMemset(row);
        compute.freeNs = row.endNs;
    }
}

void TrainingLoopGenerator::step(ProcessState& process, int64_t stepIndex) {
    ThreadState& main = process.threads[0];
    const int64_t stepStart = main.nowNs;
    const size_t loaders = process.threads.size() - 1;
    if (m_options.hostWorkNs > 0) {
        // Plain Python before the step (collating the batch): no CUDA call, the GPU idles.
        const int64_t start = main.nowNs + m_random.range(1'000, 3'000);
        main.nowNs = start + m_options.hostWorkNs;
        m_sampler.addSamples(process.python, main.rowId, main.samples,
                             m_options.hostWorkAtSyncSite ? kSampleAtItem : kSampleCollate, start,
                             main.nowNs);
    }

    if (loaders > 0) {
        loadBatch(process, process.threads[1 + static_cast<size_t>(stepIndex) % loaders]);
        if (m_options.streamWaitEvents)
            for (DeviceState& device : process.devices)
                waitEvent(process, main, device.streams[0], device.batchEventId,
                          device.batchCopyEndNs, kSiteBatchWait);
    } else {
        for (DeviceState& device : process.devices)
            copy(process, main, device.streams[0],
                 {CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, process.batchBytes,
                  20'000, std::nullopt});
    }

    const int64_t forwardStart = main.nowNs;
    for (const KernelSpec& kernel : process.forward)
        for (DeviceState& device : process.devices)
            launch(process, main, device.streams[0], kernel);
    addRange(main, m_rangeForward, forwardStart, main.nowNs, 1);

    backward(process, main);

    const int64_t optimizerStart = main.nowNs;
    if (m_options.memsets)
        zeroGrad(process, main);
    for (const KernelSpec& kernel : process.optimizer)
        for (DeviceState& device : process.devices)
            launch(process, main, device.streams[0], kernel);
    addRange(main, m_rangeOptimizer, optimizerStart, main.nowNs, 1);

    StreamState& compute = process.devices.front().streams[0];
    if (m_options.inLoopSync) {
        // loss.item(): PyTorch queues a 4-byte copy to a pageable buffer, then waits for the
        // stream; the wait (everything queued this step) is the sync's host interval.
        copy(process, main, compute,
             {CopyKind::DtoH, MemoryKind::Device, MemoryKind::Pageable, 4, 6'000, std::nullopt});
        blockingSync(process, main, kSiteItem, kCbidStreamSynchronize, compute.freeNs,
                     compute.rowId, std::nullopt);
    }
    if (m_options.pageableCopies && (stepIndex + 1) % std::max(1, m_options.pageableEvery) == 0)
        copy(process, main, compute,
             {CopyKind::DtoH, MemoryKind::Device, MemoryKind::Pageable, 2'048, 6'000, kSiteCpu});
    if (m_options.deviceSyncs && (stepIndex + 1) % std::max(1, m_options.deviceSyncEvery) == 0) {
        int64_t until = 0;
        for (const StreamState& stream : process.devices.front().streams)
            until = std::max(until, stream.freeNs);
        blockingSync(process, main, kSiteDeviceSync, kCbidDeviceSynchronize, until, std::nullopt,
                     std::nullopt);
    }

    addRange(main, intern("step " + std::to_string(stepIndex)), stepStart, main.nowNs, 0);
    main.nowNs += m_random.range(20'000, 60'000); // the loop's own Python work
    process.lastStepNs = main.nowNs - stepStart;
}

bool TrainingLoopGenerator::run() {
    startSession();
    m_processes.reserve(static_cast<size_t>(m_options.processes));
    for (int p = 0; p < m_options.processes; ++p)
        setUpProcess(p);

    int64_t lastCommit = m_writer.eventCount();
    int64_t stepIndex = 0;
    while (m_writer.ok() && m_writer.eventCount() < m_options.targetEvents) {
        for (ProcessState& process : m_processes)
            step(process, stepIndex);
        ++stepIndex;
        commitWhenDue(lastCommit);
    }
    return finishRun(stepIndex);
}

} // namespace stallscope::model::synthetic
