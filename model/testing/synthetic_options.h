// What a synthetic session is asked for (SyntheticOptions) and what was written (SyntheticStats):
// synthetic_session.h writes one; its generator (synthetic_generator.h, synthetic_ranks.h) fills
// the stats.
#pragma once

#include "format/session_rows.h"
#include "format/session_schema.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::model {

struct SyntheticOptions {
    uint64_t seed = 1;
    // Total rows in the event tables (api_calls, kernels, memcpys, memsets, syncs, cuda_events,
    // ranges). Generation stops at the first whole step that reaches it (overshoot < one step).
    int64_t targetEvents = 100'000;
    int processes = 1;
    int threadsPerProcess = 2; // thread 0 trains; the others are data-loader threads
    int devicesPerProcess = 1;
    int streamsPerDevice = 3; // 0: compute, 1: copy (H2D batches), 2+: all-reduce side streams
    int kernelsPerStep = 16;  // per device, split over forward/backward/optimizer

    // Pattern switches.
    bool inLoopSync = true;  // `loss.item()` every step; off = the pipelined variant
    bool deviceSyncs = true; // torch.cuda.synchronize() every deviceSyncEvery steps
    int deviceSyncEvery = 50;
    bool pageableCopies = true; // blocking `.cpu()` to pageable memory every pageableEvery steps
    int pageableEvery = 10;
    bool eventSyncs = true;       // loader threads: cudaEventSynchronize before reusing a buffer
    bool streamWaitEvents = true; // batch and all-reduce dependencies through events
    bool memsets = true;          // zero_grad

    // The data-parallel job (see above): 0 = off, the training loop above.
    int ranks = 0;
    int64_t rankSteps = 0;  // steps per rank; 0 = until targetEvents
    int stragglerRank = -1; // -1: no straggler
    int64_t stragglerDelayNs = 0;
    bool stragglerSyncs = false;            // the delay is a sync of its own, not host work
    std::string stragglerRange = "collate"; // the range around the host work; "" = none
    // The all-reduce is launched from a second thread of each rank (autograd's, as in DDP), which
    // has no Python and so no samples: the sampled line of the gap is the main thread's.
    bool collectivesFromSecondThread = false;
    int64_t rankJitterNs = 0;       // per rank and step, uniform in [0, rankJitterNs]
    int64_t collectiveNs = 300'000; // the all-reduce's transfer once every rank arrived
    // The all-reduce's message (fp32 elements): its collective_calls row, as NCCL's profiler
    // plugin describes it; 0 = no rows (a recording without the plugin).
    int64_t collectiveBytes = 25 << 20;
    std::string launcher = "torchrun";

    // The Python sampler's samples (host_samples) of each main thread during its planted host
    // work, at sampleHz (0: none): the straggler's plain-Python delay (train.py:41 in train_step,
    // `time.sleep`) and hostWorkNs, plain Python before each step of the single-process loop
    // (data.py:72 in collate; the GPU idles, drained by `loss.item()`). Every
    // sampleSecondLineEvery-th sample (0: none) is at data.py:75 in collate instead;
    // hostWorkAtSyncSite puts hostWork's samples at the `loss.item()` line (train.py:48).
    int sampleHz = 0;
    int64_t hostWorkNs = 0;
    int sampleSecondLineEvery = 0;
    bool hostWorkAtSyncSite = false;

    int64_t commitEvery = 1'000'000; // events between commits (bounds the WAL and a crash's loss)
    std::string command = "python train.py --epochs 1";
    std::string host = "synthetic-host";
};

// One sync call site (a Python source line); counts are summed over processes.
struct SyntheticSyncSite {
    std::string file;
    int line = 0;
    std::string function;
    std::string code; // the source line, for humans
    format::SyncKind kind = format::SyncKind::Stream;
    int64_t count = 0;
    int64_t blockedNs = 0; // sum of the syncs' host intervals
    // Median number of kernel launches on the syncing thread between consecutive syncs of this
    // site (0 when fewer than two syncs): the "in-loop sync" evidence of docs/insights.md.
    int64_t medianLaunchesBetween = 0;
    // Ground truth for the in-loop-sync rule: a host-blocking site with >= 3 syncs and
    // medianLaunchesBetween >= 3.
    bool inLoop = false;
};

struct SyntheticStats {
    // Rows the writer wrote to each table (index: format::tableIndex), e.g. processes, frames.
    std::array<int64_t, format::kTables.size()> rows{};
    int64_t rowsIn(const format::Table& table) const { return rows[format::tableIndex(table)]; }

    format::EventCounts events; // from rows: the timeline event tables
    int64_t cudaEvents = 0;
    int64_t syncsByKind[format::kSyncKindMax + 1] = {}; // index = format::SyncKind value

    int64_t stepsPerProcess = 0;
    // Samples written (host_samples rows hold runs of them), and those at the second line.
    int64_t hostSamples = 0, secondLineSamples = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t commits = 0;
    double writeSeconds = 0;  // create to close, finish() included
    double finishSeconds = 0; // finish(): indexes, final commit, WAL checkpoint

    std::vector<SyntheticSyncSite> sites; // in first-use order
    int64_t inLoopSyncSites = 0;          // sites with inLoop set

    int64_t totalEvents() const { return events.total() + cudaEvents; }
    const SyntheticSyncSite* site(const std::string& file, int line) const;
    // Multi-line, human-readable summary (the generator tool prints it).
    std::string toText() const;
};

} // namespace stallscope::model
