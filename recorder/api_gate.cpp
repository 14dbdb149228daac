// ApiGate (api_gate.h). The counter and the flag are sequentially consistent: a call that counts
// itself and then sees the gate open, and a switch that closes the gate and then sees no call
// counted, cannot both go ahead.
#include "recorder/api_gate.h"

#include <thread>

namespace stallscope::recorder {

namespace {

thread_local int t_callsInFlight = 0; // this thread's counted calls, nested ones included

} // namespace

void ApiGate::enter() {
    if (t_callsInFlight > 0) { // inside a counted call: the switch already waits for this thread
        ++t_callsInFlight;
        m_inFlight.fetch_add(1);
        return;
    }
    for (;;) {
        if (m_closed.load()) {
            m_waiting.fetch_add(1);
            while (m_closed.load())
                std::this_thread::yield();
            m_waiting.fetch_sub(1);
        }
        m_inFlight.fetch_add(1);
        if (!m_closed.load())
            break;
        m_inFlight.fetch_sub(1); // a switch began in between: wait for it
    }
    ++t_callsInFlight;
}

void ApiGate::exit() {
    if (t_callsInFlight == 0)
        return; // entered before the gate's callbacks were on: never counted
    --t_callsInFlight;
    m_inFlight.fetch_sub(1);
}

bool ApiGate::close(std::chrono::nanoseconds timeout) {
    m_closed.store(true);
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (m_inFlight.load() > t_callsInFlight) {
        if (std::chrono::steady_clock::now() >= until) {
            m_closed.store(false);
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

void ApiGate::open() {
    m_closed.store(false);
}

void ApiGate::reset() {
    m_closed.store(false);
    m_inFlight.store(0);
    t_callsInFlight = 0;
}

} // namespace stallscope::recorder
