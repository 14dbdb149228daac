// CollectionSwitches: what the recorder collects, switched on and off in CUPTI — the activity kinds
// a recording enables from its config (the kinds the analysis reads and nothing else: each kind
// costs the target time on the launch path), the per-call API records, and the API callbacks that
// time syncs and capture their stacks — with the host-side samplers beside them. Capture control
// switches collection outside its range, the overhead probe during its stretches, stop() at the
// end.
#pragma once

#include <atomic>
#include <cstdint>

namespace stallscope::recorder {

class ApiClassifier;
class CallbackHandler;
class GpuPowerSampler;
class PythonSampler;
struct RecordingState;

class CollectionSwitches {
public:
    CollectionSwitches(RecordingState& state, const ApiClassifier& classifier,
                       CallbackHandler& handler, PythonSampler& sampler, GpuPowerSampler& power)
        : m_state(state), m_classifier(classifier), m_handler(handler), m_sampler(sampler),
          m_power(power) {}

    // Which activity kinds activities() switches: DEVICE and CONTEXT (describing the GPUs, on for
    // the whole recording), the rest (the events: off outside a captured range), or all;
    // EventsButApiRecords leaves the per-call API records as they are.
    enum class Activities : uint8_t { All, Descriptions, Events, EventsButApiRecords };
    // Enables (on) or disables the activity kinds and API records the config asks for; true when
    // any of the kinds that make a session (GPU work, syncs, API records) was switched.
    bool activities(bool on, Activities which = Activities::All);
    // The per-call API records the config asks for alone; true when any was switched.
    bool apiRecords(bool on);
    // The API callbacks that capture syncs' stacks.
    void stackCallbacks(bool on);
    // Collection off or on outside the descriptions: CUPTI's event activities, the stack
    // callbacks and the samplers (a new epoch of the handler's stacks when on).
    void collection(bool on, Activities which = Activities::Events);
    // Whether the Python sampler runs in this recording (paused with collection).
    void setSampling(bool sampling) { m_sampling = sampling; }
    bool sampling() const { return m_sampling; }

    // The overhead probe's gate (api_gate.h): the callbacks of every traced API stay on for the
    // whole recording and pass the gate; stackCallbacks() then only says whether the handler sees
    // the stack calls (stackCallbacksOn).
    void keepAllApiCallbacks();
    bool allApiCallbacksKept() const { return m_allKept.load(std::memory_order_relaxed); }
    bool stackCallbacksOn() const { return m_stackCallbacks.load(std::memory_order_relaxed); }
    // A forked child: its calls pass no gate.
    void forgetAfterFork() { m_allKept.store(false); }

private:
    RecordingState& m_state;
    const ApiClassifier& m_classifier;
    CallbackHandler& m_handler;
    PythonSampler& m_sampler;
    GpuPowerSampler& m_power;
    bool m_sampling = false;
    std::atomic<bool> m_allKept{false};       // keepAllApiCallbacks() ran
    std::atomic<bool> m_stackCallbacks{true}; // stackCallbacks' state while m_allKept
};

} // namespace stallscope::recorder
