// A small hand-made session with exactly known content, written through the real SessionWriter.
// Shared by the format and model suites (header-only test support, not product code).
#pragma once

#include "format/session_writer.h"
#include "tests/support/hand_written_session.h"
#include "tests/support/test_failure.h"

#include <QString>
#include <QTemporaryDir>

#include <optional>
#include <string>

namespace stallscope::testing {

struct SmallSessionIds {
    int64_t process = 0;
    int64_t mainThread = 0;
    int64_t loaderThread = 0;
    int64_t device = 0;
    int64_t computeStream = 0;
    int64_t copyStream = 0;
    int64_t stack = 0;
    int64_t pythonFrame = 0;
    int64_t nativeFrame = 0;
    int64_t module = 0;
};

// Two threads, two streams on one GPU, three kernels (written out of time order on purpose),
// one copy, one memset, two syncs (one with a stack), two nested ranges, every descriptive
// table filled. Times are small round numbers so tests can state them. Nothing when the file cannot
// be written (which fails the test).
[[nodiscard]] inline std::optional<SmallSessionIds>
writeSmallSession(const std::string& path, std::string_view status = "complete") {
    using namespace stallscope::format;
    std::string error;
    auto writer = SessionWriter::create(path, &error);
    if (!writer) {
        STALLSCOPE_FAIL("cannot create %s: %s", path.c_str(), error.c_str());
        return std::nullopt;
    }
    SmallSessionIds ids;
    writer->setMeta("command", "python train.py --epochs 1");
    writer->setMeta("host", "gpu-box");
    HandWrittenSession rows(*writer);
    ids.process = rows.process(4242, "gpu-box", "python train.py --epochs 1", 1000, 100000);
    ids.mainThread = rows.thread(4242, "python");
    ids.loaderThread = rows.thread(4250, "loader");
    ids.device = rows.h100("NVIDIA H100 80GB HBM3", "GPU-1234");
    ids.computeStream = rows.stream(7);
    ids.copyStream = rows.stream(13, -1);
    ids.module = writer->addModule(
        {ids.process, "/usr/bin/python3.12", 0x400000, 0x400000, 0x900000, "abcdef0123", 1000});
    ids.pythonFrame = rows.pythonFrame("/home/u/train.py", 90, "train_step");
    FrameRow native;
    native.address = 0x401234;
    native.moduleId = ids.module;
    ids.nativeFrame = writer->addFrame(native);
    const int64_t frames[] = {ids.nativeFrame, ids.pythonFrame};
    ids.stack = writer->addStack(0x1234abcdULL, frames);
    writer->addSource({"/home/u/train.py", "00ff", 12, false, "import torch\n"});

    const int64_t launch = writer->internString("cudaLaunchKernel");
    const int64_t syncName = writer->internString("cudaStreamSynchronize");
    const int64_t gemm = writer->internString("sm90_gemm_bf16");
    const int64_t relu = writer->internString("relu_kernel");
    const int64_t step = writer->internString("step 0");
    const int64_t forward = writer->internString("forward");

    writer->addApiCall({ids.mainThread, ApiDomain::Runtime, 211, launch, 2000, 2500, 1, 0});
    writer->addApiCall({ids.mainThread, ApiDomain::Runtime, 211, launch, 3000, 3500, 2, 0});
    writer->addApiCall({ids.mainThread, ApiDomain::Runtime, 211, launch, 4000, 4500, 3, 0});
    writer->addApiCall({ids.mainThread, ApiDomain::Runtime, 131, syncName, 5000, 20000, 4, 0});
    // Kernels out of order: the loader must sort them.
    KernelRow k3{ids.computeStream, relu, 12000, 18000, 3, {64, 1, 1}, {256, 1, 1}, 32, 0, 0};
    KernelRow k1{ids.computeStream, gemm,        3000, 8000, 1,
                 {132, 2, 1},       {128, 1, 1}, 168,  1024, 49152};
    KernelRow k2{ids.computeStream, relu, 8000, 12000, 2, {64, 1, 1}, {256, 1, 1}, 32, 0, 0};
    writer->addKernel(k3);
    writer->addKernel(k1);
    writer->addKernel(k2);
    writer->addMemcpy({ids.copyStream, 21000, 23000, 5, CopyKind::DtoH, MemoryKind::Device,
                       MemoryKind::Pageable, 4096, false});
    writer->addMemset({ids.copyStream, 1500, 1800, 6, 0, 1 << 20, MemoryKind::Device, true});
    // Rows: thread, kind, start, end, correlation, stream, CUDA event, stack.
    writer->addSync({ids.mainThread, SyncKind::Stream, 5100, 19900, 4, ids.computeStream,
                     std::nullopt, ids.stack});
    writer->addSync({ids.loaderThread, SyncKind::PageableCopy, 20500, 23500, 5, std::nullopt,
                     std::nullopt, std::nullopt});
    writer->addCudaEvent({ids.computeStream, 77, 8, 18000});
    writer->addRange({ids.mainThread, RangeKind::NvtxPushPop, step, 1500, 24000, 0});
    writer->addRange({ids.mainThread, RangeKind::NvtxPushPop, forward, 1600, 4800, 1});
    writer->addDropped({ids.process, 30000, format::dropped_source::kActivityBuffer, 3});
    writer->addDiagnostic(1000, "warning", "example diagnostic");
    if (!writer->finish(status)) {
        STALLSCOPE_FAIL("cannot finish %s: %s", path.c_str(), writer->lastError().c_str());
        return std::nullopt;
    }
    return ids;
}

} // namespace stallscope::testing
