// A multi-process run as one session (issue 16): the sessions of a run folder (one per rank, as
// `stallscope-record -- torchrun …` writes them) or several session files given together are
// merged into one session file — processes in rank order, every row id moved past the previous
// file's, each file's times put on one clock — and that file is loaded like any other. Processes
// of one host share its CLOCK_MONOTONIC; a run spanning hosts is aligned on its collective (NCCL)
// kernels, which end together on every rank, and the estimated skew is recorded
// (process_ranks.clock_shift_ns, meta run_clock_alignment).
//
// The inputs are only read (attached read-only); the merged file lives in the import cache and is
// reused while the inputs are unchanged.
#pragma once

#include "format/output_file.h"
#include "model/session/session_loader.h"
#include "model/session/session_opener.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace stallscope::model {

// Bumped when a merged file's content changes, so that cached merges are made again.
inline constexpr int kRunMergerVersion = 2;

struct RunFiles {
    std::vector<std::string> sessions; // to merge, in rank order (then by name)
    std::vector<std::string> skipped;  // "name: why", one per file left out
};

struct RunMergeOptions {
    std::function<void(double)> progress;      // fraction of the rows copied, in [0, 1]
    const std::atomic<bool>* cancel = nullptr; // set to stop; the result is then cancelled
    format::OutputPolicy output;               // the inputs are added by merge() itself
};

struct RunMergeResult {
    bool ok = false;
    bool cancelled = false;
    std::string error; // one line naming the file and the problem
    int processes = 0;
    std::string clockAlignment; // "" when every process ran on one host
};

// Two hosts' clocks: the shift that puts another host's times on the reference host's clock,
// from collectives both ran (a collective ends at once on every rank: the median of the end-time
// differences). Which collective of one is which of the other: the k-th of each, unless
// `wallClockHintNs` (the shift the hosts' wall clocks suggest, NTP-accurate) is given, which picks
// the pairing whose shift lies closest to it — so recordings that began at different collectives
// still pair up.
struct ClockAlignment {
    int64_t shiftNs = 0;
    int64_t spreadNs = 0; // median absolute deviation of the differences: the estimate's error
    int64_t matched = 0;  // collectives matched; 0 means no estimate (shift 0)
};
ClockAlignment alignOnCollectives(const std::vector<int64_t>& referenceEndsNs,
                                  const std::vector<int64_t>& otherEndsNs,
                                  std::optional<int64_t> wallClockHintNs = std::nullopt);
// A session's CLOCK_REALTIME minus CLOCK_MONOTONIC, from meta cupti_clock_vs_host
// ("realtime=X monotonic=Y …": CUPTI's clock minus each), when it says.
std::optional<int64_t> realtimeMinusMonotonic(const std::string& cuptiClockVsHost);

class RunMerger {
public:
    // True for a folder that holds `*.stallscope` files.
    static bool looksLikeRun(const std::string& path);
    // The sessions a folder (or a list of session files) stands for, in rank order; files that
    // are no session, partial recordings and a second copy of a rank are skipped and named.
    static RunFiles runFiles(const std::vector<std::string>& paths, std::string* error);

    // Merges `sessions` (each checked first: schema and references) into a complete session at
    // `outPath`, written under a temporary name and renamed when done.
    static RunMergeResult merge(const std::vector<std::string>& sessions,
                                const std::string& outPath, const RunMergeOptions& options = {});

    // Merges into the import cache (reused while the inputs are unchanged) and loads the result;
    // the session's meta `import_source` names the folder or the first file.
    static LoadResult load(const std::vector<std::string>& paths, const LoadOptions& options = {});
    // The first half of load(): the merged file's path in the cache (made when missing), or ""
    // with *failed set. `sessions` receives the inputs it stands for.
    static std::string mergeIntoCache(const std::vector<std::string>& paths,
                                      const LoadOptions& options, LoadResult* failed,
                                      std::vector<std::string>* sessions = nullptr);
    static std::string cachePathFor(const std::vector<std::string>& sessions);
};

// Lets `opener` open run folders (folders of session files) through RunMerger::load().
void registerRunImporter(SessionOpener& opener);

} // namespace stallscope::model
