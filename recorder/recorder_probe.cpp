// The Recorder's in-run overhead probe (OverheadProbe): the writer thread switches collection off
// and on as the probe asks, exactly as capture control does outside its range, except that one
// API callback stays on to count the loop's sync calls; at the end the stretches go into the
// session's meta (format::OverheadProbeRecord).
#include "recorder/recorder.h"

#include "format/session_meta.h"
#include "format/session_writer.h"

#include <cupti.h>

namespace stallscope::recorder {

bool Recorder::probeWanted() const {
    // Capture control already decides when collection is on; the model counts the recorded
    // calls in the API records, which a light recording does not keep.
    return m_config.overheadProbe && !m_config.capture.active() && !m_config.light &&
           m_config.stacks && m_config.syncs && m_config.runtimeApi && m_config.driverApi &&
           m_wantCallbacks;
}

Recorder::Activities Recorder::probeSwitches() const {
    return m_config.experiments.probeKeepsApiRecords ? Activities::EventsButApiRecords
                                                     : Activities::Events;
}

bool Recorder::countProbeCall(int domain, uint32_t cbid, const void* data) {
    if (!m_probeCounting.load(std::memory_order_acquire))
        return false;
    if (static_cast<uint32_t>(domain) != m_probeDomain.load(std::memory_order_relaxed) ||
        cbid != m_probeCbid.load(std::memory_order_relaxed))
        return false;
    if (static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER) {
        const int64_t now = CallbackHandler::nowNs();
        int64_t unset = 0;
        m_probeFirstNs.compare_exchange_strong(unset, now, std::memory_order_relaxed);
        m_probeLastNs.store(now, std::memory_order_relaxed);
        m_probeCalls.fetch_add(1, std::memory_order_relaxed);
    }
    return true;
}

void Recorder::stepProbe(int64_t nowNs) { // the writer thread
    const OverheadProbe::Action action = m_probe.advance(nowNs);
    if (action == OverheadProbe::Action::None)
        return;
    std::lock_guard lock(m_captureMutex); // never beside a capture transition
    auto* subscriber = static_cast<CUpti_SubscriberHandle>(m_subscriber);
    const auto domain = static_cast<CUpti_CallbackDomain>(m_probe.domain());
    if (action == OverheadProbe::Action::SwitchOff) {
        m_probeDomain.store(m_probe.domain(), std::memory_order_relaxed);
        m_probeCbid.store(m_probe.cbid(), std::memory_order_relaxed);
        m_probeCalls.store(0, std::memory_order_relaxed);
        m_probeFirstNs.store(0, std::memory_order_relaxed);
        m_probeLastNs.store(0, std::memory_order_relaxed);
        switchCollection(false, probeSwitches());
        m_probeCounting.store(true, std::memory_order_release);
        if (const CUptiResult result = cuptiEnableCallback(1, subscriber, domain, m_probe.cbid());
            result != CUPTI_SUCCESS)
            reportError("cuptiEnableCallback (overhead probe)", result);
        m_probe.switchedOff(CallbackHandler::nowNs());
        return;
    }
    const int64_t endNs = CallbackHandler::nowNs();
    m_probeCounting.store(false, std::memory_order_release);
    m_probe.switchedOn(endNs, m_probeCalls.load(), m_probeFirstNs.load(), m_probeLastNs.load());
    switchCollection(true, probeSwitches()); // the counted API's callback among them
    if (m_probe.done())
        writeProbe();
}

void Recorder::finishProbe() {
    if (m_probe.off()) { // the program ended in a stretch: it counts up to here
        m_probeCounting.store(false, std::memory_order_release);
        m_probe.switchedOn(CallbackHandler::nowNs(), m_probeCalls.load(), m_probeFirstNs.load(),
                           m_probeLastNs.load());
    }
    writeProbe();
}

void Recorder::writeProbe() {
    if (!m_writer || m_probe.offPhases().empty())
        return;
    format::OverheadProbeRecord probe;
    // The name the session's api_calls rows carry (SessionSink::apiName).
    const char* name = nullptr;
    if (cuptiGetCallbackName(static_cast<CUpti_CallbackDomain>(m_probe.domain()), m_probe.cbid(),
                             &name) != CUPTI_SUCCESS ||
        !name)
        return;
    probe.api = name;
    probe.offPhases = m_probe.offPhases();
    // parse() is what the reader runs: a name it would refuse is not written.
    if (format::OverheadProbeRecord::parse(probe.text()))
        m_writer->setMeta(format::meta::kRecorderOverheadProbe, probe.text());
}

} // namespace stallscope::recorder
