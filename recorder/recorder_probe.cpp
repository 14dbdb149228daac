// The Recorder's in-run overhead probe (OverheadProbe): the writer thread switches collection off
// and on as the probe asks, exactly as capture control does outside its range, except that one
// API callback stays on to count the loop's sync calls; at the end the stretches go into the
// session's meta (format::OverheadProbeRecord). Each switch waits behind the API gate for the
// calls in flight to leave (api_gate.h): switching under a call in flight breaks CUPTI's
// correlation ids.
#include "recorder/recorder.h"

#include "format/session_meta.h"
#include "format/session_writer.h"

#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>

namespace stallscope::recorder {

namespace {

// How long a switch waits for the calls in flight, holding the program's new calls meanwhile;
// after a miss the writer tries again this much later, and gives up a stretch's start after
// this many misses (a thread that always sits in a call: the probe would only slow it down).
constexpr std::chrono::milliseconds kGateWait{5};
constexpr int64_t kGateRetryNs = 50'000'000;
constexpr int kGateMissesBeforeGivingUp = 10;

} // namespace

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

void Recorder::onApi(int domain, uint32_t cbid, const void* data) {
    if (!m_gated.load(std::memory_order_relaxed)) {
        if (!countProbeCall(domain, cbid, data))
            m_handler.onApi(domain, cbid, data);
        return;
    }
    if (!data)
        return;
    const bool entering =
        static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER;
    if (entering)
        m_gate.enter();
    // The handler sees the calls it would see with only the stack callbacks on.
    if (!countProbeCall(domain, cbid, data) && m_stackCallbacks.load(std::memory_order_relaxed) &&
        ApiClassifier::wantsStack(m_classifier.lookup(domain, cbid)))
        m_handler.onApi(domain, cbid, data);
    if (!entering)
        m_gate.exit();
}

void Recorder::armGate() {
    m_gated.store(true); // before the callbacks below: onApi filters them from the first
    auto* subscriber = static_cast<CUpti_SubscriberHandle>(m_subscriber);
    for (int domain : {ApiClassifier::kRuntimeDomain, ApiClassifier::kDriverDomain}) {
        if (!(domain == ApiClassifier::kRuntimeDomain ? m_config.runtimeApi : m_config.driverApi))
            continue;
        for (uint32_t cbid : m_classifier.interesting(domain))
            if (const CUptiResult result =
                    cuptiEnableCallback(1, subscriber, CUpti_CallbackDomain(domain), cbid);
                result != CUPTI_SUCCESS) {
                reportError("cuptiEnableCallback (the probe's gate)", result);
                return;
            }
    }
}

int64_t Recorder::probeDeadlineNs() const {
    return std::max(m_probe.nextDeadlineNs(), m_gateRetryNs);
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
    if (action == OverheadProbe::Action::None || nowNs < m_gateRetryNs)
        return;
    std::lock_guard lock(m_captureMutex); // never beside a capture transition
    std::optional<ClosedGate> closed;
    if (m_gated.load()) {
        closed.emplace(m_gate, kGateWait);
        if (!*closed) {
            m_gateRetryNs = nowNs + kGateRetryNs;
            // Collection that is off must come back: only a stretch's start is given up.
            if (action == OverheadProbe::Action::SwitchOff &&
                ++m_gateMisses >= kGateMissesBeforeGivingUp) {
                m_probe.abandon();
                m_writer->addDiagnostic(
                    nowNs, "warning",
                    "overhead probe stopped: API calls were always in flight (" +
                        std::to_string(m_gateMisses) + " tries)");
            }
            return;
        }
        m_gateMisses = 0;
    }
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
