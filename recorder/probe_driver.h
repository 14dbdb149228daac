// ProbeDriver: the in-run overhead probe (OverheadProbe) carried out in a recording. The writer
// thread switches collection off and on as the probe asks, exactly as capture control does outside
// its range, except that one API callback stays on to count the loop's sync calls; at the end the
// stretches go into the session's meta (format::OverheadProbeRecord). Each switch waits behind the
// API gate for the calls in flight to leave (api_gate.h): switching under a call in flight breaks
// CUPTI's correlation ids.
#pragma once

#include "recorder/api_gate.h"
#include "recorder/collection_switches.h"
#include "recorder/overhead_probe.h"

#include <atomic>
#include <cstdint>
#include <mutex>

namespace stallscope::recorder {

class ApiClassifier;
class CallbackHandler;
struct RecordingState;

class ProbeDriver {
public:
    // `switchMutex`: held by every other collection switch (capture control's).
    ProbeDriver(RecordingState& state, CollectionSwitches& switches, CallbackHandler& handler,
                const ApiClassifier& classifier, std::mutex& switchMutex)
        : m_state(state), m_switches(switches), m_handler(handler), m_classifier(classifier),
          m_switchMutex(switchMutex) {}

    // At start: whether this recording runs the probe, and its gate armed when it does.
    void start();
    bool running() const { return m_running; }
    // The runtime and driver API callbacks: the gate, the probe's count, then the handler (the
    // stacks).
    void onApi(int domain, uint32_t cbid, const void* data);
    // The probe while it still looks for the loop's sync (it watches the host events); null
    // once found or when it does not run.
    OverheadProbe* watching() { return m_running && !m_probe.found() ? &m_probe : nullptr; }
    // The writer thread's: when it next has the probe to step (its deadline, or a retry after the
    // gate missed), one step, and the end (an open stretch closed, the stretches written into the
    // meta).
    int64_t deadlineNs() const;
    void step(int64_t nowNs);
    void finish();
    // A forked child has no writer thread to open the gate.
    void forgetAfterFork();

private:
    bool wanted() const;
    // What the probe switches (RecorderExperiments::probeKeepsApiRecords).
    CollectionSwitches::Activities switches() const;
    // The probe's counting callback: true when it took the call (collection is off and this is
    // the API it counts).
    bool count(int domain, uint32_t cbid, const void* data);
    void write();

    RecordingState& m_state;
    CollectionSwitches& m_switches;
    CallbackHandler& m_handler;
    const ApiClassifier& m_classifier;
    std::mutex& m_switchMutex;
    bool m_running = false;
    OverheadProbe m_probe; // the writer thread's
    std::atomic<bool> m_counting{false};
    std::atomic<uint32_t> m_domain{0}, m_cbid{0};
    std::atomic<int64_t> m_calls{0}, m_firstNs{0}, m_lastNs{0};
    ApiGate m_gate;
    int m_gateMisses = 0; // the writer's: switches the gate held off
    int64_t m_gateRetryNs = 0;
};

} // namespace stallscope::recorder
