// Recorder: the process-wide recording session. Subscribes to CUPTI, owns the activity buffers, the
// writer thread (SessionSink + SessionWriter), and the exit, signal and fork handling.
//
// Safety contract: nothing here throws into the host or aborts it. A CUPTI error is recorded in the
// session's diagnostics table and printed once; if CUPTI is taken by another client
// (torch.profiler, Nsight) the process runs untraced with one clear message.
#pragma once

#include "recorder/activity_buffer_pool.h"
#include "recorder/activity_record.h"
#include "recorder/api_classifier.h"
#include "recorder/api_gate.h"
#include "recorder/callback_handler.h"
#include "recorder/capture_control.h"
#include "recorder/fde_index.h"
#include "recorder/flight_recorder.h"
#include "recorder/gpu_power_sampler.h"
#include "recorder/nvtx_range_watch.h"
#include "recorder/overhead_probe.h"
#include "recorder/python_sampler.h"
#include "recorder/recorder_config.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <semaphore.h>
#include <signal.h>

namespace stallscope::format {
class SessionWriter;
}

namespace stallscope::recorder {

class SessionSink;

class Recorder {
public:
    static Recorder& instance();

    // Starts recording this process. `origin` is "injection" or "api". False when not recording.
    bool start(const RecorderConfig& config, const char* origin);
    // Flushes CUPTI, writes everything, marks the session complete and closes it.
    void stop();
    bool active() const { return m_active.load(std::memory_order_acquire); }
    const std::string& outputPath() const { return m_outputPath; }

    // Records a CUPTI (or other) failure: diagnostics table + once on stderr.
    void reportError(const std::string& what, int cuptiResult);

    // Used by the CUPTI trampolines in recorder.cpp.
    CallbackHandler& handler() { return m_handler; }
    // Capture control's triggers (recorder_capture.cpp): cudaProfilerStart/Stop and
    // cuProfilerStart/Stop (the API domains), the NVTX domain's range calls.
    static bool isProfilerCallback(int domain, uint32_t cbid) {
        return domain == CUPTI_CB_DOMAIN_RUNTIME_API
                   ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 ||
                         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000
                   : domain == CUPTI_CB_DOMAIN_DRIVER_API &&
                         (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart ||
                          cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
    }
    void onCaptureTrigger(int domain, uint32_t cbid, const void* data);
    // A context was created (the resource domain, on while a capture that started closed waits
    // for the program's first context: recorder_capture.cpp).
    void onContextCreated();
    // The runtime and driver API callbacks: the gate, the probe's count, the stacks
    // (recorder_probe.cpp).
    void onApi(int domain, uint32_t cbid, const void* data);
    void pushBatch(std::unique_ptr<ActivityBatch> batch);
    uint8_t* takeBuffer(size_t* size);
    void returnBuffer(uint8_t* buffer);
    void onAtExit();
    // Wakes the writer thread early (async-signal-safe).
    void wake() { sem_post(&m_wake); }
    void onForkChild();
    // Registers, once per process, onAtExit() at exit and onForkChild() in every forked child.
    static void installProcessHooks();
    // Whether activity timestamps get CuptiClock's offset (no CUPTI timestamp callback).
    bool shiftsCuptiClock() const { return m_shiftClock.load(std::memory_order_relaxed); }
    void onSignal(int signal);
    // A crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) on any thread: has the writer commit
    // what CUPTI and the rings hold, then chains to the handler that was there before.
    void onFatalSignal(int signal, siginfo_t* info, void* context);
    // SIGUSR1 with a ring (recorder_ring.cpp): the writer writes a snapshot (async-signal-safe).
    void onSnapshotSignal(int signal);

private:
    Recorder() = default;
    // start()'s steps, in order: CUPTI's callbacks subscribed (false when another client holds
    // them); the session file opened and its recorder meta written (its start time; nothing when
    // the file cannot be made); stacks, Python frames and the sampler prepared (whether the
    // sampler runs); CUPTI's clock and activity buffers set up; the writer and sampler threads.
    bool subscribe();
    std::optional<int64_t> openSession(const char* origin);
    bool prepareHostCapture();
    void configureClock();
    void configureActivityBuffers();
    void startThreads(bool capturing, bool signalHandlers);
    void writerLoop();
    // `stepsProbe`: the overhead probe may switch between buffers (the writer loop's drains).
    void drainOnce(bool stepsProbe = false);
    // Hands every thread's ring of host events to the sink.
    void drainRings();
    // Which activity kinds switchActivities switches: DEVICE and CONTEXT (describing the GPUs,
    // on for the whole recording), the rest (the events: off outside a captured range), or all;
    // EventsButApiRecords leaves the per-call API records as they are.
    enum class Activities : uint8_t { All, Descriptions, Events, EventsButApiRecords };
    // Enables (on) or disables the activity kinds and API records m_config asks for; true when
    // any of the kinds that make a session (GPU work, syncs, API records) was switched.
    bool switchActivities(bool on, Activities which = Activities::All);
    // The per-call API records m_config asks for alone; true when any was switched.
    bool switchApiRecords(bool on);
    // CUPTI writes per-call API records only on contexts created while they were on (bench/
    // RESULTS.md, "cupti_api_late"): a capture that starts closed keeps them on until the
    // program's first context exists (onContextCreated), then off until a range opens.
    void keepApiRecordsUntilContext();
    // The API callbacks that capture syncs' stacks (recorder_activities.cpp).
    void switchApiCallbacks(bool on);
    // Capture control (recorder_capture.cpp): sets it up at start (its meta, its triggers'
    // callbacks; false when it starts closed), the writer's time-based transitions and the
    // intervals it writes.
    bool startCapture(int64_t startNs);
    void switchCaptureTriggers(bool on);
    // Applies a transition, if any (under m_captureMutex): CUPTI's activities and callbacks, the
    // samplers, the interval queued for the writer; the triggers off once nothing can open.
    void applyCapture(const std::optional<CaptureControl::Transition>& transition);
    // Collection off or on outside the descriptions (under m_captureMutex): CUPTI's event
    // activities, the stack callbacks and the samplers; capture control and the overhead probe.
    void switchCollection(bool on, Activities which = Activities::Events);
    void advanceCapture(int64_t nowNs);
    // The writer's part (drainOnce): the transitions queued, taken before the records are drained
    // (a close first has CUPTI deliver the records from before it), then written as intervals.
    std::vector<CaptureControl::Transition> takeCaptureTransitions();
    void writeCaptureTransitions(const std::vector<CaptureControl::Transition>& transitions);
    // Stops capture control for good (stop()): what is open closes, nothing opens after.
    void endCapture(int64_t nowNs);
    // The in-run overhead probe (recorder_probe.cpp, overhead_probe.h), on the writer thread:
    // whether this recording runs it, one step of it, and its end (an open stretch closed, its
    // stretches written into the meta).
    bool probeWanted() const;
    // What the probe switches (RecorderExperiments::probeKeepsApiRecords).
    Activities probeSwitches() const;
    // The overhead probe's counting callback: true when it took the call (collection is off and
    // this is the API it counts).
    bool countProbeCall(int domain, uint32_t cbid, const void* data);
    // The gate that keeps the probe's switches out of calls in flight (api_gate.h): the callbacks
    // of every API whose records the probe switches, on for the whole recording.
    void armGate();
    // When the writer next has the probe to step: its deadline, or a retry after the gate missed.
    int64_t probeDeadlineNs() const;
    void stepProbe(int64_t nowNs);
    void finishProbe();
    void writeProbe();
    void installSignalHandlers();
    // Installs `handler` for `signal` where the program left it its default action; false when
    // it has its own (or ignores it).
    static bool takeIfDefault(int signal, void (*handler)(int));
    // The flight recorder (recorder_ring.cpp): set up at start when a ring is asked for; on the
    // writer thread after each drain, the ring's cut and its snapshots (seenUpToNs: every sync
    // that ended by then was drained; `committed`: the writer committed just before).
    void startRing();
    void stepRing(int64_t seenUpToNs, bool committed);
    // The ring's cut alone (the recording's end: no snapshot then).
    void cutRing(int64_t nowNs, bool committed);
    void writeSnapshot(const std::string& reason, int64_t atNs);
    // The writer's part of onFatalSignal: flush, drain, say why, commit (no indexes: the process
    // is about to die; stallscope-record adds them).
    void commitAfterCrash(int signal);
    void finishWriter(std::string_view status);
    // meta.incomplete_reason for a run ended by `signal`.
    std::string signalReason(int signal) const;

    RecorderConfig m_config;
    CaptureControl m_capture; // under m_captureMutex
    std::unique_ptr<NvtxRangeWatch> m_nvtxWatch;
    std::mutex m_captureMutex; // serializes transitions and their CUPTI switching
    std::atomic<int64_t> m_captureDeadlineNs{INT64_MAX};
    bool m_watchingTriggers = false; // the triggers' callbacks are on (under m_captureMutex)
    // The per-call API records are on, capture closed, until the first context exists (under
    // m_captureMutex).
    bool m_apiRecordsUntilContext = false;
    bool m_wantCallbacks = true; // STALLSCOPE_CALLBACKS
    bool m_sampling = false;
    bool m_probing = false;                   // the overhead probe runs (probeWanted at start)
    OverheadProbe m_probe;                    // the writer thread's
    std::unique_ptr<FlightRecorder> m_flight; // with --ring; the writer thread's after start()
    std::atomic<bool> m_snapshotRequested{false};
    std::string m_snapshotPaths; // the snapshots written, one a line (meta ring_snapshots)
    std::atomic<bool> m_probeCounting{false};
    std::atomic<uint32_t> m_probeDomain{0}, m_probeCbid{0};
    std::atomic<int64_t> m_probeCalls{0}, m_probeFirstNs{0}, m_probeLastNs{0};
    ApiGate m_gate;
    std::atomic<bool> m_gated{false};         // armGate() ran: every traced call passes m_gate
    std::atomic<bool> m_stackCallbacks{true}; // switchApiCallbacks' state while m_gated
    int m_gateMisses = 0;                     // the writer's: switches the gate held off
    int64_t m_gateRetryNs = 0;
    ApiClassifier m_classifier;
    CallbackHandler m_handler{&m_classifier};
    PythonSampler m_sampler;
    GpuPowerSampler m_power;
    FdeIndex m_fdeIndex;
    void* m_subscriber = nullptr;
    std::string m_outputPath;
    std::unique_ptr<format::SessionWriter> m_writer;
    std::unique_ptr<SessionSink> m_sink;
    std::thread m_thread;
    std::atomic<bool> m_active{false};
    std::atomic<bool> m_stopRequested{false};
    // From start() until stop() has written the session: CUPTI's buffers go to the writer.
    std::atomic<bool> m_takingBatches{false};
    std::atomic<bool> m_shiftClock{false};
    bool m_cuptiFlushes = false;
    ActivityBufferPool m_buffers;
    std::atomic<int> m_pendingSignal{0};
    std::atomic<int> m_fatalSignal{0};
    std::atomic<bool> m_crashCommitted{false};
    std::atomic<pid_t> m_writerTid{0};
    int64_t m_pid = 0;
    sem_t m_wake;
    std::mutex m_stopMutex;

    std::mutex m_queueMutex; // guards the four members below; never held across CUPTI calls
    std::vector<std::unique_ptr<ActivityBatch>> m_batches;
    std::vector<CaptureControl::Transition> m_captureLog; // for the writer
    std::vector<std::pair<int64_t, std::string>> m_diagnostics;
    std::vector<std::string> m_reported;
};

} // namespace stallscope::recorder
