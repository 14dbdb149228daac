// Synthetic sessions: realistic, seeded, reproducible session files for tests, benchmarks and the
// interim sample. Qt-free (only the format library), so tools and benchmarks need no Qt either.
//
// The generated program is a PyTorch-like training loop, per process (a "rank"):
//   main thread   per step: NVTX "step N" { "forward" { kernels } "backward" { kernels, gradient
//                 all-reduce on a side stream } "optimizer" { zero_grad memset, kernels } },
//                 optionally `loss.item()` (DtoH copy to pageable memory + cudaStreamSynchronize),
//                 a periodic torch.cuda.synchronize(), a periodic blocking `.cpu()` copy;
//                 after the loop one `total_loss.item()` (the pipelined variant's only sync).
//   loader threads per batch: cudaEventSynchronize on the pinned buffer's previous copy, an H2D
//                 copy on the copy stream and a cudaEventRecord the main thread waits on
//                 (cudaStreamWaitEvent).
// With `ranks` set the program is a data-parallel job instead (synthetic_ranks.h), one process
// per rank (a process_ranks row: rank i of N, launcher "torchrun", one GPU each), per step:
//   forward and backward kernels, then an NCCL all-reduce on its own stream whose kernel ends at
//   the same time on every rank (when the last rank has arrived, plus the transfer), then the
//   optimizer and `loss.item()`. The straggler rank spends `stragglerDelayNs` before launching
//   the all-reduce: host work (inside a `stragglerRange` range) or its own `.item()` on extra GPU
//   work (train.py:58); every rank may add up to `rankJitterNs` of host time there.
// GPU timing is consistent: an operation starts after its API call and after the previous
// operation of its stream ends; a blocking sync lasts until what it waits for has finished.
#pragma once

#include "model/testing/synthetic_options.h"

#include <string>

namespace stallscope::model {

// Writes a complete session (meta.status "complete") to `path`, replacing any file there.
// Returns false and sets *error (naming the file) on failure. `stats` may be null.
bool writeSyntheticSession(const std::string& path, const SyntheticOptions& options,
                           SyntheticStats* stats, std::string* error);

// The data-parallel job (options.ranks > 0) as a run folder, as `stallscope-record -- torchrun`
// writes one: rank<r>.stallscope per rank in `folder` (created), each holding its process's rows
// with the job's own row ids, and every file the job's strings, frames, stacks and meta. The same
// job writeSyntheticSession writes as one file.
bool writeSyntheticRun(const std::string& folder, const SyntheticOptions& options,
                       SyntheticStats* stats, std::string* error);

} // namespace stallscope::model
