// A small training loop with exactly known syncs, for the comparison tests (tests/compare,
// tests/views, tests/app): kSteps iterations of train.py's loop, each in a "step" NVTX range
// (unless `steps` is off), a 590 µs kernel and (unless `syncs` is off) a stream sync on line
// `syncLine`, blocking 580 µs. train.py is embedded: line `syncLine` holds `lineText` and the
// lines before it are comments, so an edit that adds lines above moves the sync without changing
// it. `startNs` moves the whole run, so two runs' first steps can be far apart.
#pragma once

#include "format/session_writer.h"
#include "tests/support/hand_written_session.h"

#include <cstdint>
#include <string>

namespace loop_session {

inline constexpr int kSteps = 20;
inline constexpr int64_t kStepNs = 1'000'000;
inline constexpr int64_t kKernelOffsetNs = 10'000; // into its step: where the active window starts

struct Options {
    int syncLine = 30;
    std::string lineText = "loss_value = loss.item()";
    bool steps = true;
    bool syncs = true;
    int64_t startNs = 1'000'000;
};

// Writes the loop to `path`; empty on success, else the error.
inline std::string write(const std::string& path, const Options& options) {
    using namespace stallscope::format;
    std::string error;
    auto writer = SessionWriter::create(path, &error);
    if (!writer)
        return error;
    const int64_t start = options.startNs;
    stallscope::testing::HandWrittenSession rows(*writer);
    rows.process(1, "host", "python train.py", start, start + kSteps * kStepNs);
    const int64_t thread = rows.thread(1, "python");
    rows.h100("NVIDIA H100", "GPU-1");
    const int64_t stream = rows.stream(7);
    std::string source;
    for (int line = 1; line <= options.syncLine + 5; ++line)
        source +=
            (line == options.syncLine ? options.lineText : "# line " + std::to_string(line)) + "\n";
    writer->addSource({"/src/train.py", "", int64_t(source.size()), false, source});
    const int64_t frames[] = {rows.pythonFrame("/src/train.py", options.syncLine, "train_step")};
    const int64_t stack = writer->addStack(1, frames);
    const int64_t launch = writer->internString("cudaLaunchKernel");
    const int64_t kernelName = writer->internString("gemm");
    const int64_t stepName = writer->internString("step");
    for (int step = 0; step < kSteps; ++step) {
        const int64_t t = start + step * kStepNs;
        if (options.steps)
            writer->addRange({thread, RangeKind::NvtxPushPop, stepName, t, t + kStepNs - 1, 0});
        KernelRow kernel;
        kernel.streamId = stream;
        kernel.nameId = kernelName;
        kernel.startNs = t + kKernelOffsetNs;
        kernel.endNs = t + 600'000;
        rows.launch(thread, launch, t, t + 5'000, kernel);
        if (!options.syncs)
            continue;
        SyncRow sync = stallscope::testing::streamSync(stream, stack);
        sync.threadId = thread;
        sync.startNs = t + 20'000;
        sync.endNs = t + 600'000;
        sync.correlationId = rows.nextCorrelation(); // no API call: a sync record alone
        writer->addSync(sync);
    }
    if (!writer->finish("complete"))
        return writer->lastError();
    return {};
}

} // namespace loop_session
