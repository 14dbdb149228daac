// CaptureDriver: capture control (CaptureSettings, CaptureControl) carried out in a recording.
// Outside the captured range the recorder costs the program (almost) nothing — CUPTI's event
// activity kinds disabled, the sync callbacks off (no stacks), the Python and GPU power samplers
// paused — and only the triggers that open the range stay on: the callbacks of
// cudaProfilerStart/Stop (runtime and driver) or of NVTX's range calls. Time-based transitions (the
// delay, the duration) run on the writer thread, which wakes for them. Each transition is queued
// for the writer, which writes the interval into the session after the records from before it.
#pragma once

#include "recorder/capture_control.h"
#include "recorder/nvtx_range_watch.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace stallscope::recorder {

class CallbackHandler;
class CollectionSwitches;
struct RecordingState;

class CaptureDriver {
public:
    CaptureDriver(RecordingState& state, CollectionSwitches& switches,
                  const CallbackHandler& handler)
        : m_state(state), m_switches(switches), m_handler(handler) {}

    // Serializes transitions and their CUPTI switching; the overhead probe's switches take it too,
    // so that the two never switch side by side.
    std::mutex& mutex() { return m_mutex; }
    // At start (under mutex()): the meta, the triggers' callbacks; false when the capture starts
    // closed.
    bool start(int64_t startNs);
    // CUPTI writes per-call API records only on contexts created while they were on (bench/
    // RESULTS.md, "cupti_api_late"): a capture that starts closed keeps them on until the
    // program's first context exists (onContextCreated), then off until a range opens. Under
    // mutex(), at start.
    void keepApiRecordsUntilContext();
    // A context was created (the resource domain's callback, on while keepApiRecordsUntilContext
    // waits).
    void onContextCreated();
    // Whether (domain, cbid) is a trigger's callback: cudaProfilerStart/Stop and
    // cuProfilerStart/Stop (the API domains), or the NVTX domain's.
    static bool isTrigger(int domain, uint32_t cbid);
    void onTrigger(int domain, uint32_t cbid, const void* data);
    // When the writer next has a time-based transition to make (INT64_MAX: none), and making it.
    int64_t deadlineNs() const { return m_deadlineNs.load(); }
    void advance(int64_t nowNs);
    // Stops capture control for good (stop()): what is open closes, nothing opens after.
    void end(int64_t nowNs);
    // The writer's part: the transitions queued, taken before the records are drained (a close
    // first has CUPTI deliver the records from before it), then written as intervals.
    std::vector<CaptureControl::Transition> takeTransitions();
    void writeTransitions(const std::vector<CaptureControl::Transition>& transitions);

private:
    // Applies a transition, if any (under m_mutex): collection switched, the interval queued for
    // the writer; the triggers off once nothing can open.
    void apply(const std::optional<CaptureControl::Transition>& transition);
    void switchTriggers(bool on);
    void queue(CaptureControl::Transition transition);

    RecordingState& m_state;
    CollectionSwitches& m_switches;
    const CallbackHandler& m_handler;
    std::mutex m_mutex;
    CaptureControl m_capture; // under m_mutex
    std::unique_ptr<NvtxRangeWatch> m_nvtxWatch;
    std::atomic<int64_t> m_deadlineNs{INT64_MAX};
    bool m_watchingTriggers = false; // the triggers' callbacks are on (under m_mutex)
    // The per-call API records are on, capture closed, until the first context exists (under
    // m_mutex).
    bool m_apiRecordsUntilContext = false;
    std::mutex m_queueMutex;                          // never held across CUPTI calls
    std::vector<CaptureControl::Transition> m_queued; // for the writer
};

} // namespace stallscope::recorder
