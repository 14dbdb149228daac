// ApiGate: keeps CUPTI's collection switches out of API calls in flight. Switching CUPTI's
// activity kinds or API records while another thread is inside a traced call breaks CUPTI's
// correlation ids for the rest of the run (every later call and kernel shares one id); switching
// only while no traced call is in flight keeps them intact (bench/recorder/cupti_toggle.cu,
// bench/RESULTS.md "Issue 38, item 4").
//
// The program's threads pass enter() and exit() from the API callbacks of every traced call; the
// switching thread closes the gate, which holds new calls at enter() and waits, up to a timeout,
// for the calls in flight to leave; it switches, then opens the gate. A call that entered before
// the gate's callbacks were on is not counted and never waited for. A thread's nested calls
// (the driver calls a runtime call makes) pass while it holds a call in flight, and the
// switching thread's own calls in flight do not count, so neither can wait on itself.
#pragma once

#include <atomic>
#include <chrono>

namespace stallscope::recorder {

class ApiGate {
public:
    void enter();
    void exit();
    // Holds new calls and waits for those in flight; false (and open again) when some were still
    // in flight after `timeout`.
    bool close(std::chrono::nanoseconds timeout);
    void open();
    // A forked child has no switching thread: its calls must never wait.
    void reset();
    int inFlight() const { return m_inFlight.load(); }
    int waiting() const { return m_waiting.load(); } // calls held at enter() now
    bool closed() const { return m_closed.load(); }

private:
    std::atomic<int> m_inFlight{0};
    std::atomic<int> m_waiting{0};
    std::atomic<bool> m_closed{false};
};

// Closes an ApiGate for a scope; opens it again on the way out.
class ClosedGate {
public:
    ClosedGate(ApiGate& gate, std::chrono::nanoseconds timeout)
        : m_gate(gate), m_closed(gate.close(timeout)) {}
    ~ClosedGate() {
        if (m_closed)
            m_gate.open();
    }
    ClosedGate(const ClosedGate&) = delete;
    ClosedGate& operator=(const ClosedGate&) = delete;
    explicit operator bool() const { return m_closed; }

private:
    ApiGate& m_gate;
    bool m_closed;
};

} // namespace stallscope::recorder
