// Replay of a RunGraph, unmodified or with changes (the what-if engine of docs/insights.md,
// "Simulated savings"). Every step and operation keeps its recorded duration and the CPU time
// before it; what moves is when it can start:
//   * a host step starts when the previous step of its thread ends (plus the recorded CPU gap);
//     a sync in it returns when the work it awaits has ended (plus the recorded wake-up);
//   * an operation starts when its launch, its stream predecessor, its event dependency and, for
//     a kernel that fills its GPU, the one before it there (kernel_device_sharing.h) allow (plus
//     the recorded latency of whichever bound it; typical latencies otherwise).
// Unmodified, the replay reproduces the recording: each constraint that bound an event in the
// recording is replayed with its recorded delay. With changes, it answers "how much sooner would
// the run have ended" over a window.
#pragma once

#include "model/session/event_ref.h"
#include "model/whatif/graph_node_gap.h"
#include "model/whatif/run_graph.h"

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

namespace stallscope::model::whatif {

// Host steps first..last (global ids, of one thread): one CUDA graph in WhatIf::graphedSteps.
struct StepRange {
    uint32_t first = 0, last = 0;
};

// What the replay changes. Empty: the recorded run.
struct WhatIf {
    // Host-blocking syncs (EventRef::sync: host lane, sync index) that no longer wait: the host
    // goes on at once; a sync call disappears, a copy call returns without waiting for its copy.
    // Work that consumed the value is assumed not to need it before the next remaining sync.
    std::vector<EventRef> removedSyncs;
    // Device-wide syncs (EventRef::sync) that wait only for the stream the work they awaited was
    // last launched to by their own thread: "a stream or event sync on the work the host then
    // uses" in place of cudaDeviceSynchronize / torch.cuda.synchronize(). Other streams' work
    // (a busy side stream) no longer holds the host.
    std::vector<EventRef> narrowedSyncs;
    // Host calls (global step ids) that the fix takes out of the loop, with their own time: the
    // cudaMalloc calls of buffers allocated once instead of every step (the fix of an in-loop
    // free or empty_cache). The CPU time before each stays, the program's own work. Calls that
    // launch no GPU work.
    std::vector<uint32_t> removedCalls;
    // Launches (global step ids) whose operation the fix replaces by a shape-static rewrite
    // (SyncFix::FixedShape: a boolean mask's nonzero and index kernels): the step loses its CPU
    // time before it and its own (the op's dispatch and launch), its operations their GPU time.
    std::vector<uint32_t> removedLaunches;
    // Operations (global ids) the fix takes off the GPU: each runs for no time, right at its
    // stream predecessor's end (a value read later or decided on the GPU is not copied to the
    // host every step: the copy of a cudaMemcpy that was itself the read).
    std::vector<uint32_t> removedOps;
    // Device->host copies awaited by the removed syncs run at the pinned rate (Latencies):
    // "this pageable copy becomes an asynchronous copy into pinned memory".
    bool pinRemovedCopies = true;
    // A removed sync call's statement goes too: the CPU time before the call, up to the thread's
    // median time between two calls (Python's wrapper around `torch.cuda.synchronize()`). For
    // Python sites; a C++ program's time before a call is its own work.
    bool removeStatementTime = false;
    // After a removed sync, this share of the CPU time up to its thread's next call goes too: the
    // statement's own work on the value it read (a .tolist()'s list, print's formatting), which
    // reading later moves out of the loop. SimulatedSavings measures it with the Python sampler.
    double statementShareAfter = 0;
    // The run without the recorder's own cost (Latencies::recorder*, from the recording
    // machine's calibration): each call that launched GPU work takes its launch cost less host
    // time, and each operation whose launch bound its start starts its restart cost sooner (at
    // most half its recorded launch-to-start time). The savings compare two such replays; with
    // no calibration in the session nothing changes.
    bool withoutRecorderOverhead = false;
    // Kernels whose recorded end lies in the window take this many times their recorded time: a
    // GPU that a fix keeps busier clocks lower at its power limit (SimulatedSavings).
    double kernelTimeScale = 1.0;
    // "These launches are one CUDA graph": in each range the first step stays (the graph's
    // launch), the CPU time before it less the thread's typical time between two calls (its first
    // operation's dispatch, which a graph's launch does not run); the later ones lose their host
    // time, the CPU time before them included (a graph's replay runs none of the host code that
    // captured it), so the operations they launched may start once the first has run, behind
    // each other on their streams. A graph cannot wait for the host: a step that holds a
    // host-blocking sync keeps its time, and the step after it is the first of a new graph
    // (graphedStepRanges splits the ranges there). Ranges over two threads' steps, reversed or of
    // one step change nothing; overlapping ones are one.
    std::vector<StepRange> graphedSteps;
    // In a graph an operation launched by a later step starts this long after its stream
    // predecessor ends (and no sooner than the typical launch latency after the graph's launch,
    // less the recorder's restart cost with withoutRecorderOverhead): the spacing of a graph's
    // nodes, not the recording's (InsightThresholds' launchBound.graphGapNs).
    int64_t graphGapNs = kGraphNodeGapNs;
};

// The step ranges that make the launches of `ops` (global operation ids, e.g. a launch-bound
// stretch) one CUDA graph per thread and per stretch of steps between host-blocking syncs: each
// range runs from the first to the last launching step of its operations. Operations without a
// known launch are left out; ranges of one step (nothing to save) too.
std::vector<StepRange> graphedStepRanges(const RunGraph& graph, std::span<const uint32_t> ops);

struct ReplayOptions {
    // The activity whose recorded end lies in [windowStartNs, windowEndNs] counts for the result.
    int64_t windowStartNs = INT64_MIN;
    int64_t windowEndNs = INT64_MAX;
    // Keep the per-step and per-operation shifts (replayed - recorded end) in the result.
    bool keepShifts = false;
    const std::atomic<bool>* cancel = nullptr;
};

struct ReplayResult {
    // The replayed end of the latest activity (step or operation) that ended inside the window
    // in the recording; INT64_MIN when none did.
    int64_t windowEndNs = INT64_MIN;
    // Steps and operations replayed with a dependency still unresolved (inconsistent clocks or
    // a sync recorded before the work it waited for): 0 on consistent recordings.
    int64_t forcedNodes = 0;
    // GPU time the changes took away (copies made pinned): a saving may exceed the recorded GPU
    // idle time by this much.
    int64_t gpuTimeRemovedNs = 0;
    // Replayed time per device (Session::devices) of the kernels, copies and memsets whose
    // recorded end lies in the window, summed over its streams: with windowFirstOpStartNs and
    // windowEndNs, how busy the replayed run keeps each GPU.
    std::vector<int64_t> busyNsPerDevice;
    // The replayed start of the earliest GPU operation that ended inside the window in the
    // recording (INT64_MIN when none did): from it to windowEndNs the GPU's work in the window.
    int64_t windowFirstOpStartNs = INT64_MIN;
    // Their recorded counterparts: the end of the latest activity that ended inside the window,
    // the start of the earliest operation (INT64_MIN when none). Against the replayed ones, how
    // much longer or shorter the replay made the window's work.
    int64_t recordedWindowEndNs = INT64_MIN;
    int64_t recordedWindowFirstOpStartNs = INT64_MIN;
    bool cancelled = false;
    // With keepShifts: replayed - recorded start per global step, replayed - recorded end and
    // start per global operation (they differ for copies made pinned).
    std::vector<int64_t> stepShift;
    std::vector<int64_t> opEndShift;
    std::vector<int64_t> opStartShift;
};

class Replayer {
public:
    explicit Replayer(const RunGraph& graph) : m_graph(graph) {}
    ReplayResult replay(const WhatIf& changes, const ReplayOptions& options = {}) const;

private:
    const RunGraph& m_graph;
};

} // namespace stallscope::model::whatif
