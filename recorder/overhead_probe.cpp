#include "recorder/overhead_probe.h"

#include <algorithm>
#include <climits>

namespace stallscope::recorder {

void OverheadProbe::onSync(uint64_t stackHash, uint8_t domain, uint32_t cbid, int64_t startNs) {
    if (m_state != State::Watching || stackHash == 0 ||
        std::find(m_setAside.begin(), m_setAside.end(), stackHash) != m_setAside.end())
        return;
    auto found = m_seen.find(stackHash);
    if (found == m_seen.end()) {
        if (m_seen.size() >= m_settings.maxStacks)
            return; // a program of ever new stacks: no loop to find among them
        found = m_seen.emplace(stackHash, Seen{startNs, 0}).first;
    }
    Seen& seen = found->second;
    if (++seen.count < m_settings.repeats)
        return;
    // The loop's period, warm-up included (a stretch a little longer than needed does no harm).
    const int64_t periodNs = std::max<int64_t>(0, startNs - seen.firstNs) / (seen.count - 1);
    m_phaseNs = std::clamp(periodNs * m_settings.periodsPerPhase, m_settings.minPhaseNs,
                           m_settings.maxPhaseNs);
    m_domain = domain;
    m_cbid = cbid;
    m_stack = stackHash;
    m_state = State::Ready;
    m_seen = {};
}

OverheadProbe::Action OverheadProbe::advance(int64_t nowNs) const {
    switch (m_state) {
    case State::Ready:
        return Action::SwitchOff;
    case State::Off:
        return nowNs >= m_deadlineNs ? Action::SwitchOn : Action::None;
    case State::On:
        return nowNs >= m_deadlineNs ? Action::SwitchOff : Action::None;
    case State::Watching:
    case State::Done:
        break;
    }
    return Action::None;
}

void OverheadProbe::switchedOff(int64_t atNs) {
    m_state = State::Off;
    m_offStartNs = atNs;
    m_deadlineNs = atNs + m_phaseNs;
}

void OverheadProbe::switchedOn(int64_t atNs, int64_t calls, int64_t firstCallNs,
                               int64_t lastCallNs) {
    format::OverheadProbeRecord::OffPhase phase{m_offStartNs, std::max(atNs, m_offStartNs), 0, 0,
                                                0};
    if (calls > 0) {
        phase.calls = calls;
        phase.firstCallNs = std::clamp(firstCallNs, phase.startNs, phase.endNs);
        phase.lastCallNs = std::clamp(lastCallNs, phase.firstCallNs, phase.endNs);
    }
    m_phases.push_back(phase);
    if (calls >= m_settings.minCalls)
        ++m_counted;
    if (m_counted >= m_settings.offPhases ||
        static_cast<int>(m_phases.size()) >= m_settings.maxStretches) {
        m_state = State::Done;
        return;
    }
    if (calls < m_settings.minCalls) { // not the loop's sync after all: watch again
        m_setAside.push_back(m_stack);
        m_state = State::Watching;
        return;
    }
    m_state = State::On;
    m_deadlineNs = atNs + m_phaseNs;
}

int64_t OverheadProbe::nextDeadlineNs() const {
    switch (m_state) {
    case State::Ready:
        return 0;
    case State::Off:
    case State::On:
        return m_deadlineNs;
    case State::Watching:
    case State::Done:
        break;
    }
    return INT64_MAX;
}

} // namespace stallscope::recorder
