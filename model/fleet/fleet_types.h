// The fleet summary's data (fleet_summary.h computes it): what is read per rank, the fleet's sites
// and numbers, the options bounding the memory, and the result. Apart so the readers of each part
// (rank_reader.h, collective_arrivals.h) need not see the summary that calls them.
#pragma once

#include "model/fleet/bounded_quantiles.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace stallscope::model::fleet {

// Where a rank's steps come from (the definitions of model/analysis/analysis_window.cpp's
// findSteps, else the sync period).
enum class StepSource : uint8_t {
    None,
    ProfilerSteps, // ranges named ProfilerStep#N (torch.profiler)
    NvtxSteps,     // else ranges whose name starts with "step", any case
    SyncPeriod,    // else the time between the host-blocking syncs of its most frequent site
};
const char* stepSourceName(StepSource source); // "ProfilerStep#N", "NVTX step…", "syncs", "none"

struct RankSummary {
    std::string file;  // the session file read (a made-whole copy for one with a pending WAL)
    std::string label; // "rank 3"; the file's name when it records no rank
    int64_t rank = -1; // process_ranks.rank of its first process; -1 when none
    std::string host;

    StepSource stepSource = StepSource::None;
    std::string stepSite; // SyncPeriod: the site whose syncs bound the steps ("train.py:48")
    int64_t steps = 0;
    // A step runs from its start to the next one's start; the last to its own end (as
    // steady_state.h's); SyncPeriod: from one sync's start to the next one's.
    BoundedQuantiles stepNs;

    int64_t blockingSyncs = 0; // host-blocking syncs (every kind but cudaStreamWaitEvent)
    int64_t blockedNs = 0;     // their time, summed over threads
    // The GPU span: first start to last end of any kernel, memcpy or memset; busy: their union
    // per device, summed over the rank's devices.
    int64_t gpuStartNs = 0, gpuEndNs = 0;
    int64_t gpuBusyNs = 0;
    int64_t devices = 0;
    int64_t gpuSpanNs() const { return gpuEndNs > gpuStartNs ? gpuEndNs - gpuStartNs : 0; }
    // blockedNs and gpuBusyNs (per device) over the GPU span; 0 without GPU work.
    double blockedShare() const;
    double gpuBusyShare() const;

    int64_t collectives = 0;     // its NCCL kernels (model/session/collective_names.h)
    int64_t lastAt = 0;          // contended collectives it arrived last at
    int64_t latenessTotalNs = 0; // after the next-latest rank, summed over those
    BoundedQuantiles latenessNs; // ... and their median
};

// A sync site over the fleet: the (file, line) of the first user frame of the syncs' stacks.
struct FleetSite {
    std::string file; // "<no stack>", "<no user frame>" for syncs without one
    int64_t line = 0;
    int64_t blockedNs = 0; // summed over the ranks that list it
    int64_t syncs = 0;
    int64_t ranks = 0; // ranks with syncs there
    // Whether blockedNs is exact: false when a rank kept only its top sites and this site was not
    // among them (its time there, at most that rank's cut-off, is then missing).
    bool exact = true;
    std::string label() const; // "train.py:48", "<no stack>"
};

struct FleetSummary {
    std::string path;
    std::vector<RankSummary> ranks; // in rank order
    // Collectives matched across the ranks that ran any (the k-th of each kernel name on every
    // rank is one collective, as model/analysis/collective_match.h), and those the last rank
    // reached at least contendedNs after the next-latest.
    int64_t matchedCollectives = 0;
    int64_t contendedCollectives = 0;
    int64_t contendedNs = 0;
    int64_t collectiveRanks = 0; // ranks that ran collectives
    int32_t mostOftenLast = -1;  // index into ranks; -1 without contended collectives
    // Whether the straggler rule would name mostOftenLast (model/analysis/insight_thresholds.h):
    // enough contended collectives, last at a large enough share of them, late enough on
    // average. (The rule also weighs the lateness against the time between collectives and
    // counts only those in the analysis window, the loop; the summary counts the whole run.)
    bool straggler = false;
    std::vector<FleetSite> sites; // the top sites by blocked time, largest first
    // Whether `sites` is the exact top list with exact times (no rank's cut-off could change it).
    bool sitesExact = true;
    std::vector<std::string> notes; // files skipped, copies read, limits reached
    // The largest memory the summary's own structures held at once (quantiles, site lists,
    // read buffers of the lock-step match), for the test that it does not grow with events.
    size_t peakStateBytes = 0;
};

struct FleetOptions {
    size_t topSites = 10;
    // The sites a rank passes on to the fleet's list (ranked by its blocked time there).
    size_t sitesPerRank = 100;
    // Distinct sites tracked while a rank is read; more are counted as "<other sites>".
    size_t maxSitesPerRank = 4096;
    size_t exactQuantiles = BoundedQuantiles::kDefaultExactLimit;
    // Collective kernel names followed per rank; more are left out (with a note).
    size_t maxCollectiveNames = 256;
    // Arrival times read ahead per rank during the lock-step match.
    size_t arrivalsReadAhead = 512;
    // Defaults to the straggler rule's (model/analysis/insight_thresholds.h).
    std::optional<int64_t> contendedNs;
    int threads = 0; // ranks read at once; 0: one per core, at most 4
    std::function<void(double)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

struct FleetResult {
    std::optional<FleetSummary> summary;
    std::string error; // one line, naming the file when one is at fault
    bool ok() const { return summary.has_value(); }
};

} // namespace stallscope::model::fleet
