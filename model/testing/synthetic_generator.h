// TrainingLoopGenerator: the program of a synthetic session without ranks (synthetic_session.h):
// per process a training loop whose main thread launches each step's forward, backward (gradient
// all-reduces on side streams) and optimizer kernels while loader threads copy the next batch,
// with the syncs the options plant. The CUDA side it drives is SyntheticCuda's.
#pragma once

#include "model/testing/synthetic_cuda.h"

#include <cstdint>

namespace stallscope::model::synthetic {

class TrainingLoopGenerator final : public SyntheticCuda {
public:
    TrainingLoopGenerator(format::SessionWriter& writer, const SyntheticOptions& options,
                          SyntheticStats& stats)
        : SyntheticCuda(writer, options, stats, kMaxRunAheadNs) {}

    // Writes everything but meta and the final status; false when the writer failed.
    bool run();

private:
    // The host may run this far ahead of the GPU before a launch blocks (CUDA's launch queue).
    static constexpr int64_t kMaxRunAheadNs = 8'000'000;

    void setUpProcess(int index);
    void setUpDevices(ProcessState& process, int index);
    void step(ProcessState& process, int64_t stepIndex);
    void loadBatch(ProcessState& process, ThreadState& loader);
    StreamState& copyStream(DeviceState& device);
    void backward(ProcessState& process, ThreadState& main);
    void zeroGrad(ProcessState& process, ThreadState& main);
};

} // namespace stallscope::model::synthetic
