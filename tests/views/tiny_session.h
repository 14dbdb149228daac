// A tiny, exactly known session for the view and app tests, written with format::SessionWriter.
// 10 ms long: one process, two host threads, one GPU with two streams, a 2 ms stream sync and a
// 2 µs (sub-pixel when zoomed out) event sync on the main thread, NVTX ranges at two depths.
#pragma once

#include "format/session_writer.h"
#include "tests/support/hand_written_session.h"

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
    stallscope::testing::HandWrittenSession rows(*writer);
    rows.process(4242, kHost, kCommand, kStart, kEnd);
    const int64_t mainThread = rows.thread(4242, "python");
    const int64_t loaderThread = rows.thread(4250, "pt_data_worker");
    rows.h100(kGpu, "");
    const int64_t compute = rows.stream(7);
    const int64_t copy = rows.stream(13);

    const int64_t launch = writer->internString("cudaLaunchKernel");
    const int64_t streamSync = writer->internString("cudaStreamSynchronize");
    const int64_t eventSync = writer->internString("cudaEventSynchronize");
    const int64_t memcpyName = writer->internString("cudaMemcpyAsync");
    const int64_t gemm = writer->internString("ampere_sgemm_128x64_nn");
    const int64_t relu = writer->internString("vectorized_elementwise_kernel<relu>");
    for (int i = 0; i < kLaunches; ++i) {
        const int64_t t = kStart + 100'000 + i * 100'000; // every 100 µs up to 4.1 ms
        KernelRow kernel;
        kernel.streamId = compute;
        kernel.nameId = i % 2 ? relu : gemm;
        kernel.startNs = t + 20'000;
        kernel.endNs = t + 100'000;
        rows.launch(mainThread, launch, t, t + 6'000, kernel);
    }
    // loss.item(): a DtoH copy to pageable memory, then the host blocks for 2 ms.
    MemcpyRow copyRow;
    copyRow.streamId = compute;
    copyRow.startNs = kSyncEnd - 100'000;
    copyRow.endNs = kSyncEnd - 10'000;
    copyRow.correlationId =
        rows.apiCall(mainThread, 41, memcpyName, kSyncStart - 20'000, kSyncStart - 10'000);
    copyRow.copyKind = CopyKind::DtoH;
    copyRow.srcKind = MemoryKind::Device;
    copyRow.dstKind = MemoryKind::Pageable;
    copyRow.bytes = 4;
    writer->addMemcpy(copyRow);
    const SyncRow sync = stallscope::testing::streamSync(compute);
    rows.blockingCall(mainThread, 131, streamSync, kSyncStart, kSyncEnd, sync);
    // A 2 µs event sync: thinner than a pixel at full zoom-out, must stay visible.
    SyncRow shortSync;
    shortSync.kind = SyncKind::Event;
    shortSync.eventId = 3;
    rows.blockingCall(mainThread, 133, eventSync, kShortSyncStart, kShortSyncEnd, shortSync);
    // The loader thread copies a batch on the copy stream.
    MemcpyRow batch;
    batch.streamId = copy;
    batch.startNs = kStart + 70'000;
    batch.endNs = kStart + 900'000;
    batch.correlationId =
        rows.apiCall(loaderThread, 41, memcpyName, kStart + 50'000, kStart + 60'000);
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
    memset.correlationId = rows.nextCorrelation();
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
