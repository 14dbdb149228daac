// A tiny, exactly known session for the view and app tests, written with format::SessionWriter.
// 10 ms long: one process, two host threads, one GPU with two streams, a 2 ms stream sync and a
// 2 µs (sub-pixel when zoomed out) event sync on the main thread, NVTX ranges at two depths.
#pragma once

#include "format/session_writer.h"

#include <QString>

#include <string>

namespace tiny {

inline constexpr int64_t kStart = 1'000'000'000; // 1 s into CLOCK_MONOTONIC
inline constexpr int64_t kEnd = kStart + 10'000'000;
inline constexpr int64_t kSyncStart = kStart + 5'000'000;
inline constexpr int64_t kSyncEnd = kStart + 7'000'000;
inline constexpr int64_t kShortSyncStart = kStart + 8'500'000;
inline constexpr int64_t kShortSyncEnd = kShortSyncStart + 2'000;
inline constexpr int kLaunches = 40; // cudaLaunchKernel calls on the main thread
inline constexpr const char* kCommand = "python train.py --tiny";
inline constexpr const char* kHost = "testhost";
inline constexpr const char* kGpu = "NVIDIA H100 80GB HBM3";

// status: "complete", or "recording"/"incomplete" to get a session that opens with a warning.
inline bool write(const QString& path, QString* error, const std::string& status = "complete") {
    using namespace stallscope::format;
    std::string message;
    auto writer = SessionWriter::create(path.toStdString(), &message);
    if (!writer) {
        *error = QString::fromStdString(message);
        return false;
    }
    writer->setMeta("command", kCommand);
    writer->setMeta("host", kHost);
    ProcessRow process;
    process.pid = 4242;
    process.host = kHost;
    process.command = kCommand;
    process.startNs = kStart;
    process.endNs = kEnd;
    process.exitCode = 0;
    const int64_t pid = writer->addProcess(process);
    const int64_t mainThread = writer->addThread({pid, 4242, "python"});
    const int64_t loaderThread = writer->addThread({pid, 4250, "pt_data_worker"});
    DeviceRow device;
    device.processId = pid;
    device.name = kGpu;
    device.computeMajor = 9;
    device.smCount = 132;
    device.globalMemoryBytes = 80LL << 30;
    const int64_t gpu = writer->addDevice(device);
    const int64_t compute = writer->addStream({gpu, 1, 7, false, 0});
    const int64_t copy = writer->addStream({gpu, 1, 13, false, 0});

    const int64_t launch = writer->internString("cudaLaunchKernel");
    const int64_t streamSync = writer->internString("cudaStreamSynchronize");
    const int64_t eventSync = writer->internString("cudaEventSynchronize");
    const int64_t memcpyName = writer->internString("cudaMemcpyAsync");
    const int64_t gemm = writer->internString("ampere_sgemm_128x64_nn");
    const int64_t relu = writer->internString("vectorized_elementwise_kernel<relu>");
    int64_t correlation = 1;
    for (int i = 0; i < kLaunches; ++i) {
        const int64_t t = kStart + 100'000 + i * 100'000; // every 100 µs up to 4.1 ms
        writer->addApiCall(
            {mainThread, ApiDomain::Runtime, 211, launch, t, t + 6'000, correlation, 0});
        KernelRow kernel;
        kernel.streamId = compute;
        kernel.nameId = i % 2 ? relu : gemm;
        kernel.startNs = t + 20'000;
        kernel.endNs = t + 100'000;
        kernel.correlationId = correlation++;
        writer->addKernel(kernel);
    }
    // loss.item(): a DtoH copy to pageable memory, then the host blocks for 2 ms.
    writer->addApiCall({mainThread, ApiDomain::Runtime, 41, memcpyName, kSyncStart - 20'000,
                        kSyncStart - 10'000, correlation, 0});
    MemcpyRow copyRow;
    copyRow.streamId = compute;
    copyRow.startNs = kSyncEnd - 100'000;
    copyRow.endNs = kSyncEnd - 10'000;
    copyRow.correlationId = correlation++;
    copyRow.copyKind = CopyKind::DtoH;
    copyRow.srcKind = MemoryKind::Device;
    copyRow.dstKind = MemoryKind::Pageable;
    copyRow.bytes = 4;
    writer->addMemcpy(copyRow);
    writer->addApiCall(
        {mainThread, ApiDomain::Runtime, 131, streamSync, kSyncStart, kSyncEnd, correlation, 0});
    SyncRow sync;
    sync.threadId = mainThread;
    sync.kind = SyncKind::Stream;
    sync.startNs = kSyncStart;
    sync.endNs = kSyncEnd;
    sync.correlationId = correlation++;
    sync.streamId = compute;
    writer->addSync(sync);
    // A 2 µs event sync: thinner than a pixel at full zoom-out, must stay visible.
    writer->addApiCall({mainThread, ApiDomain::Runtime, 133, eventSync, kShortSyncStart,
                        kShortSyncEnd, correlation, 0});
    SyncRow shortSync = sync;
    shortSync.kind = SyncKind::Event;
    shortSync.startNs = kShortSyncStart;
    shortSync.endNs = kShortSyncEnd;
    shortSync.correlationId = correlation++;
    shortSync.streamId.reset();
    shortSync.eventId = 3;
    writer->addSync(shortSync);
    // The loader thread copies a batch on the copy stream.
    writer->addApiCall({loaderThread, ApiDomain::Runtime, 41, memcpyName, kStart + 50'000,
                        kStart + 60'000, correlation, 0});
    MemcpyRow batch;
    batch.streamId = copy;
    batch.startNs = kStart + 70'000;
    batch.endNs = kStart + 900'000;
    batch.correlationId = correlation++;
    batch.copyKind = CopyKind::HtoD;
    batch.srcKind = MemoryKind::Pinned;
    batch.dstKind = MemoryKind::Device;
    batch.bytes = 64 << 20;
    batch.isAsync = true;
    writer->addMemcpy(batch);
    MemsetRow memset;
    memset.streamId = copy;
    memset.startNs = kStart + 1'000'000;
    memset.endNs = kStart + 1'200'000;
    memset.correlationId = correlation++;
    memset.bytes = 1 << 20;
    memset.dstKind = MemoryKind::Device;
    writer->addMemset(memset);
    // NVTX: "step 0" { "forward" }.
    writer->addRange({mainThread, RangeKind::NvtxPushPop, writer->internString("step 0"),
                      kStart + 50'000, kStart + 7'500'000, 0});
    writer->addRange({mainThread, RangeKind::NvtxPushPop, writer->internString("forward"),
                      kStart + 60'000, kStart + 4'200'000, 1});
    if (status == "recording") {
        writer->commit();
        writer.reset(); // destroyed without finish(): what a killed recorder leaves
        return true;
    }
    if (!writer->finish(status)) {
        *error = QString::fromStdString(writer->lastError());
        return false;
    }
    return true;
}

} // namespace tiny
