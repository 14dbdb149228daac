// DataParallelGenerator: the program of a synthetic session with ranks (SyntheticOptions::ranks,
// synthetic_session.h): a data-parallel job, one process per rank, all on one clock, whose
// all-reduce kernels end together on every rank; the straggler is late to every one of them.
// The CUDA side it drives is SyntheticCuda's.
#pragma once

#include "model/testing/synthetic_cuda.h"

#include <cstdint>

namespace stallscope::model::synthetic {

class DataParallelGenerator final : public SyntheticCuda {
public:
    DataParallelGenerator(format::SessionWriter& writer, const SyntheticOptions& options,
                          SyntheticStats& stats)
        : SyntheticCuda(writer, options, stats, kNoRunAheadLimit) {}

    // Writes everything but meta and the final status; false when the writer failed.
    bool run();

private:
    // A rank queues only a few kernels before its all-reduce: its launches never block.
    static constexpr int64_t kNoRunAheadLimit = INT64_MAX / 4;

    void setUpRank(int rank);
    void rankCompute(ProcessState& process, int rank);
    void rankFinishStep(ProcessState& process, int64_t stepIndex, int64_t stepStartNs);
};

} // namespace stallscope::model::synthetic
