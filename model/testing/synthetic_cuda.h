// SyntheticCuda: the simulated CUDA processes the synthetic generators (synthetic_generator.h,
// synthetic_ranks.h) drive, and the rows they leave. It keeps a host clock per thread and a
// "free at" time per GPU stream, so every operation starts after its API call and after its
// stream's previous operation, and a blocking sync lasts until the work it waits for has
// finished. The generators own the program; this class owns the timing, the rows and the tallies.
#pragma once

#include "format/session_writer.h"
#include "model/testing/synthetic_catalog.h"
#include "model/testing/synthetic_options.h"
#include "model/testing/synthetic_samples.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stallscope::model::synthetic {

using format::CopyKind;
using format::MemoryKind;

struct KernelSpec {
    int64_t nameId = 0;
    int64_t durationNs = 0;
    int32_t grid = 1, block = 128, registers = 32, sharedBytes = 0;
};

struct CopySpec {
    CopyKind kind = CopyKind::Unknown;
    MemoryKind src = MemoryKind::Unknown;
    MemoryKind dst = MemoryKind::Unknown;
    int64_t bytes = 0;
    int64_t bytesPerUs = 1'000;
    std::optional<Site> blockingSite; // set: cudaMemcpy, which blocks (an implicit sync)
};

struct StreamState {
    int64_t rowId = 0;
    int64_t freeNs = 0; // when the last operation queued on the stream ends
};

struct DeviceState {
    std::vector<StreamState> streams; // 0 compute, 1 copy, 2+ all-reduce side streams
    int64_t batchEventId = 0;         // recorded after the latest batch copy
    int64_t batchCopyEndNs = 0;
};

struct ThreadState {
    int64_t rowId = 0;
    int64_t nowNs = 0;    // the thread's host clock: the end of its latest call
    int64_t launches = 0; // kernel launches so far (for the in-loop evidence)
    int64_t samples = 0;  // sampler ticks at planted work so far (sampleSecondLineEvery)
    std::array<int64_t, kSiteCount> lastLaunchesAtSite{};
    // Loader threads: the previous copy into this thread's pinned buffer, per device.
    std::vector<int64_t> bufferEventId, bufferCopyEndNs;
};

struct ProcessState {
    int64_t rowId = 0;
    int64_t nextCorrelation = 1;
    int64_t nextEventId = 1;
    int64_t batchBytes = 0;
    int64_t lastStepNs = 0;
    std::vector<ThreadState> threads; // 0 trains, then loaders
    std::vector<DeviceState> devices;
    std::array<int64_t, kSiteCount> stackIds{};
    std::vector<int64_t> moduleIds, moduleStarts;
    std::map<std::pair<int64_t, int64_t>, int64_t> nativeFrames; // (module, offset) -> frame
    SyntheticSampler::PythonFrames python; // its Python frames and sample stacks
    std::vector<KernelSpec> forward, backward, optimizer;
    KernelSpec allReduce;
};

class SyntheticCuda {
protected:
    // `maxRunAheadNs`: how far the host may run ahead of the GPU before a launch blocks (CUDA's
    // launch queue, modelled by time).
    SyntheticCuda(format::SessionWriter& writer, const SyntheticOptions& options,
                  SyntheticStats& stats, int64_t maxRunAheadNs)
        : m_writer(writer), m_options(options), m_stats(stats), m_random(options.seed),
          m_sampler(writer, options, stats), m_maxRunAheadNs(maxRunAheadNs) {}

    // Interns the names of a step's phase ranges and picks the session's start (~17 min after
    // boot); a generator's first call.
    void startSession();
    // Commits when commitEvery events were written since `lastCommit` (then moved on).
    void commitWhenDue(int64_t& lastCommit);
    // Ends every process after `steps` steps and tallies the sites; false after a write error.
    bool finishRun(int64_t steps);

    // One H100 row of process `processRowId` (a random UUID); its row id.
    int64_t addH100(int64_t processRowId, int32_t deviceIndex);
    void setUpModules(ProcessState& process, int64_t startNs);
    std::vector<KernelSpec> makeKernels(std::span<const char* const> names, int count,
                                        int64_t minNs, int64_t maxNs);
    int64_t intern(std::string_view text);

    int64_t apiCall(ProcessState& process, ThreadState& thread, int64_t cbid, int64_t startNs,
                    int64_t endNs);
    void launch(ProcessState& process, ThreadState& thread, StreamState& stream,
                const KernelSpec& kernel);
    int64_t copy(ProcessState& process, ThreadState& thread, StreamState& stream,
                 const CopySpec& spec);
    int64_t recordEvent(ProcessState& process, ThreadState& thread, StreamState& stream);
    void waitEvent(ProcessState& process, ThreadState& thread, StreamState& stream, int64_t eventId,
                   int64_t readyNs, Site site);
    void blockingSync(ProcessState& process, ThreadState& thread, Site site, int64_t cbid,
                      int64_t untilNs, std::optional<int64_t> streamRowId,
                      std::optional<int64_t> eventId);
    void addRange(ThreadState& thread, int64_t nameId, int64_t startNs, int64_t endNs, int depth);

    format::SessionWriter& m_writer;
    const SyntheticOptions& m_options;
    SyntheticStats& m_stats;
    Random m_random;
    SyntheticSampler m_sampler;
    std::vector<ProcessState> m_processes;
    int64_t m_rangeForward = 0, m_rangeBackward = 0, m_rangeOptimizer = 0;

private:
    struct SiteTally {
        int64_t count = 0, blockedNs = 0;
        std::vector<int64_t> gaps; // launches between consecutive syncs on one thread
    };

    int64_t stackFor(ProcessState& process, Site site);
    int64_t apiName(int64_t cbid);
    void addSync(ProcessState& process, ThreadState& thread, Site site, int64_t startNs,
                 int64_t endNs, int64_t correlationId, std::optional<int64_t> streamRowId,
                 std::optional<int64_t> eventId);
    void finishProcess(ProcessState& process);
    void tallySites();

    std::array<SiteTally, kSiteCount> m_tallies;
    std::unordered_map<int64_t, int64_t> m_apiNames; // cbid -> string id
    const int64_t m_maxRunAheadNs;
};

} // namespace stallscope::model::synthetic
