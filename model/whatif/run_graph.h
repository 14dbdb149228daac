// RunGraph: the dependency graph of a recorded run, the input of the what-if replay
// (docs/insights.md, "Simulated savings"). It indexes the loaded session's columns without copying
// them:
//   * each host thread is a sequence of *steps* — its top-level API calls (calls nested in one move
//     with it) and the sync records that no call encloses — separated by the CPU time between them;
//   * each GPU stream is a FIFO of *operations* (kernels, memcpys, memsets in start order);
//   * an operation depends on the step that launched it (CUDA correlation id, per process), on its
//     stream predecessor and, after a cudaStreamWaitEvent, on the operation the event marks;
//   * a host-blocking sync waits for the operations it covers: its stream's work enqueued before
//     it, every stream of its device, the recorded event, or the copy/memset it is part of.
// Global ids number all steps (thread by thread) and all operations (stream by stream), so the
// replay keeps one flat array of each.
#pragma once

#include "model/session/session.h"
#include "model/session/session_database.h"
#include "model/whatif/host_thread_steps.h"
#include "model/whatif/recorder_cost.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace stallscope::model::whatif {

// The calibration of the replay: typical latencies, read off the recording itself. A delay
// that bound an event in the recording is replayed exactly; these stand in for the constraints
// that did not bind (docs/insights.md says how each is measured).
struct Latencies {
    int64_t launchNs = 5'000;       // launch call start -> operation start on an idle stream
    int64_t queueGapNs = 1'000;     // previous operation end -> start of a queued operation
    int64_t syncOverheadNs = 2'000; // a sync whose work had already finished
    int64_t wakeNs = 5'000;         // awaited work end -> sync return
    // Device-to-host rate into pinned memory (bytes per second), for copies made asynchronous.
    // Measured on an H100 (PCIe 5): 48.8 GB/s for 4 MiB copies (bench/RESULTS.md); the session's
    // own pinned device-to-host copies of at least 1 MiB replace it when it has any.
    double pinnedBytesPerSecond = 48.8e9;
    // What the recorder itself added to the recorded run (meta recorder_restart_overhead_ns and
    // recorder_launch_overhead_ns, measured by stallscope-calibrate on the recording machine; 0
    // when not measured). Replays with WhatIf::withoutRecorderOverhead take them out.
    int64_t recorderRestartNs = 0; // to a restart of an idle stream: sync return -> kernel start
    int64_t recorderLaunchNs = 0;  // to the host time of a call that launches GPU work
    // How much later a kernel starts after its predecessor kernel when format::meta::
    // kDeepQueueLaunches or more launches are queued on its stream than when fewer are (meta
    // gpu_deep_queue_delay_ns, from the same probe; 0 when not measured). Changed replays add it
    // where a change deepens the queue and take it off where one empties it.
    int64_t deepQueueDelayNs = 0;
};

class RunGraph {
public:
    enum class OpKind : uint8_t { Kernel = 0, Memcpy = 1, Memset = 2 };

    using HostThread = HostThreadSteps;
    struct Stream {
        std::vector<uint32_t> ops;     // OpKind << 30 | index into the lane's column of that kind
        uint32_t firstOp = 0;          // global id of ops[0]
        int32_t device = -1;           // index into Session::devices
        bool launchesInferred = false; // from correlation order (InferredLaunches)
    };
    static constexpr uint32_t kSyncStep = 0x8000'0000u;

    // Returns false when cancelled. `cudaEvents` (may be empty: recorders keep them opt-in) lets
    // event syncs and stream waits name the operation their event marks; the other build reads
    // them from `loadCudaEvents`, called only once the events are needed (so the caller may read
    // them on another thread meanwhile). The events must outlive the build.
    bool build(const Session& session, std::span<const CudaEventInfo> cudaEvents,
               const std::atomic<bool>* cancel);
    bool build(const Session& session,
               const std::function<std::span<const CudaEventInfo>()>& loadCudaEvents,
               const std::atomic<bool>* cancel);

    const Session& session() const { return *m_session; }
    const std::vector<HostThread>& threads() const { return m_threads; }
    const std::vector<Stream>& streams() const { return m_streams; }
    size_t stepCount() const { return m_stepCount; }
    size_t opCount() const { return m_launchStep.size(); }
    const Latencies& latencies() const { return m_latencies; }
    // The recorder's cost as its overhead probe measured it in this run (nothing measured: the
    // latencies are the calibration's).
    const MeasuredRecorderCost& measuredRecorderCost() const { return m_measuredCost; }

    // Recorded times of a step of host lane `lane` and of an operation of stream lane `lane`.
    // Inline: the build and every replay read them once or more per step and operation.
    int64_t stepStart(int32_t lane, uint32_t step) const {
        const uint32_t ref = m_threads[lane].steps[step];
        const HostLane& host = m_session->hostLanes[lane];
        return ref & kSyncStep ? host.syncs.start[ref & ~kSyncStep] : host.apiCalls.start[ref];
    }
    int64_t stepEnd(int32_t lane, uint32_t step) const {
        const uint32_t ref = m_threads[lane].steps[step];
        const HostLane& host = m_session->hostLanes[lane];
        return ref & kSyncStep ? host.syncs.end[ref & ~kSyncStep] : host.apiCalls.end[ref];
    }
    int64_t opStart(int32_t lane, uint32_t op) const {
        const uint32_t ref = m_streams[lane].ops[op];
        return columnOf(m_session->streamLanes[lane], kindOf(ref)).start[indexOf(ref)];
    }
    int64_t opEnd(int32_t lane, uint32_t op) const {
        const uint32_t ref = m_streams[lane].ops[op];
        return columnOf(m_session->streamLanes[lane], kindOf(ref)).end[indexOf(ref)];
    }
    uint64_t opBytes(int32_t lane, uint32_t op) const; // 0 for kernels
    // A copy from or to pageable host memory: the driver stages it through its own pinned
    // buffer, so its DMA starts when the host has staged the first chunk (an upload) or when the
    // driver gets to it (a download: 1.4 or 8.7 µs after its kernel by turns for 4 bytes in
    // bench/corpus's cu_convergence_check), not when the GPU could run it.
    bool opStagedByHost(int32_t lane, uint32_t op) const;
    OpKind opKind(int32_t lane, uint32_t op) const { return kindOf(m_streams[lane].ops[op]); }
    // Its row in its stream lane's column of opKind (e.g. the kernel's name: kernels.nameId).
    uint32_t opIndex(int32_t lane, uint32_t op) const { return indexOf(m_streams[lane].ops[op]); }

    // The step that launched global operation `op` (kNone when unknown) and the recorded time
    // from that launch to the operation's start (launchLag: start - launch call start).
    uint32_t launchStep(uint32_t op) const { return m_launchStep[op]; }
    // Whether global step `step` launched GPU work; known only when the recorder's launch cost
    // is (Latencies::recorderLaunchNs > 0), false otherwise.
    bool launchesWork(uint32_t step) const {
        return step < m_launchesWork.size() && m_launchesWork[step] != 0;
    }
    // Whether some process recorded no API calls (a light recording): its launches were inferred
    // from the order of correlation ids (inferred_launches.h).
    bool launchesInferred() const { return m_launchesInferred; }
    int64_t launchLag(uint32_t op) const { return m_launchLag[op]; }
    // The operation that global operation `op` waits for through an event (kNone when none).
    uint32_t eventDependency(uint32_t op) const;
    // A hand-off between host threads: the step of another GPU-launching thread of the same
    // process that ended last while `step`'s thread sat idle before it (kNone when none). The
    // thread was waiting for it (PyTorch's main thread for the autograd thread's backward pass,
    // and the other way round; a pin-memory thread for queue space); the time from its end to
    // `step` is CPU work that follows it.
    uint32_t handoff(uint32_t step) const;
    bool hasHandoffs() const { return !m_handoffs.empty(); }
    // Every (operation, operation it waits for) and (step, step it waited for), sorted: the
    // replay walks them with one cursor per lane.
    const std::vector<std::pair<uint32_t, uint32_t>>& eventDependencies() const {
        return m_eventDeps;
    }
    // Every (kernel, kernel it follows on their device), sorted: filling kernels share the GPU
    // (kernel_device_sharing.h).
    const std::vector<std::pair<uint32_t, uint32_t>>& deviceFollowers() const {
        return m_deviceFollowers;
    }
    const std::vector<std::pair<uint32_t, uint32_t>>& handoffs() const { return m_handoffs; }
    // The steps some hand-off waits for, sorted: the replay keeps the end of these alone.
    const std::vector<uint32_t>& handoffTargets() const { return m_handoffTargets; }
    // The index in handoffTargets() of the step that hand-off `i` (of handoffs()) waits for.
    uint32_t handoffTargetIndex(size_t i) const { return m_handoffTargetIndex[i]; }
    // Host lane and lane-local index of a global step id.
    std::pair<int32_t, uint32_t> locateStep(uint32_t step) const {
        return locate(m_threads, step, &HostThread::firstStep);
    }
    std::span<const uint32_t> awaited(int32_t lane, uint32_t sync) const {
        const HostThread& thread = m_threads[lane];
        return {m_awaited.data() + thread.awaitedBegin[sync],
                thread.awaitedBegin[sync + 1] - thread.awaitedBegin[sync]};
    }
    // The stream whose work the host uses after `sync` (WhatIf::narrowedSyncs): of the streams it
    // awaited, the one its own thread last queued a copy to the host on (among each stream's last
    // 64 operations), else the one whose awaited operation its thread launched last; -1 when its
    // thread launched none of them.
    int32_t ownStreamOf(int32_t lane, uint32_t sync) const;
    // Stream lane and lane-local index of a global operation id.
    std::pair<int32_t, uint32_t> locateOp(uint32_t op) const {
        return locate(m_streams, op, &Stream::firstOp);
    }
    // The global id of the operation of stream lane `lane` that is row `index` of the lane's
    // column of `kind` (kNone when there is none).
    uint32_t opOf(int32_t lane, OpKind kind, uint32_t index) const;

    size_t memoryBytes() const;

private:
    struct Builder;
    friend bool buildRunGraph(RunGraph& graph, const Session& session,
                              const std::function<std::span<const CudaEventInfo>()>& loadCudaEvents,
                              const std::atomic<bool>* cancel);
    // Stream::ops entries: the kind in the top two bits, the row in its column below.
    static OpKind kindOf(uint32_t ref) { return static_cast<OpKind>(ref >> 30); }
    static uint32_t indexOf(uint32_t ref) { return ref & 0x3fff'ffff; }
    // The lane of a global id (the last lane whose first id is at most it) and its index there.
    template <typename Lane>
    static std::pair<int32_t, uint32_t> locate(const std::vector<Lane>& lanes, uint32_t id,
                                               uint32_t Lane::*firstId) {
        const auto after = std::upper_bound(
            lanes.begin(), lanes.end(), id,
            [firstId](uint32_t value, const Lane& lane) { return value < lane.*firstId; });
        const auto lane = static_cast<int32_t>(after - lanes.begin()) - 1;
        return {lane, id - lanes[lane].*firstId};
    }
    static const IntervalColumns& columnOf(const StreamLane& lane, OpKind kind) {
        switch (kind) {
        case OpKind::Kernel:
            return lane.kernels;
        case OpKind::Memcpy:
            return lane.memcpys;
        case OpKind::Memset:
            break;
        }
        return lane.memsets;
    }
    // Latencies::recorder* and deepQueueDelayNs from the session's meta, and m_launchesWork (the
    // last step of building: buildRunGraph).
    void readCalibration();

    const Session* m_session = nullptr;
    std::vector<HostThread> m_threads; // parallel to Session::hostLanes
    std::vector<Stream> m_streams;     // parallel to Session::streamLanes
    size_t m_stepCount = 0;
    bool m_launchesInferred = false;
    std::vector<uint32_t> m_launchStep;                           // per global operation
    std::vector<int32_t> m_launchLag;                             // per global operation
    std::vector<std::pair<uint32_t, uint32_t>> m_eventDeps;       // (op, op it waits for), by op
    std::vector<std::pair<uint32_t, uint32_t>> m_deviceFollowers; // (kernel, kernel), by kernel
    std::vector<std::pair<uint32_t, uint32_t>> m_handoffs; // (step, step it waited for), by step
    std::vector<uint32_t> m_handoffTargets;
    std::vector<uint32_t> m_handoffTargetIndex; // per hand-off
    std::vector<uint32_t> m_awaited;
    std::vector<uint8_t> m_launchesWork; // per global step, with the recorder's launch cost only
    Latencies m_latencies;
    MeasuredRecorderCost m_measuredCost;
};

// Replaces `graph` by the session's (what RunGraph::build runs; run_graph_builder.cpp builds it:
// each thread's steps, each stream's operations and what they wait for, the hand-offs between
// threads, the calibration); false when cancelled.
bool buildRunGraph(RunGraph& graph, const Session& session,
                   const std::function<std::span<const CudaEventInfo>()>& loadCudaEvents,
                   const std::atomic<bool>* cancel);

} // namespace stallscope::model::whatif
