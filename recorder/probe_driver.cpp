#include "recorder/probe_driver.h"

#include "format/session_meta.h"
#include "format/session_writer.h"
#include "recorder/api_classifier.h"
#include "recorder/callback_handler.h"
#include "recorder/recording_state.h"

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

bool ProbeDriver::wanted() const {
    // Capture control already decides when collection is on; the model counts the recorded
    // calls in the API records, which a light recording does not keep.
    const RecorderConfig& config = m_state.config;
    return config.overheadProbe && !config.capture.active() && !config.light && config.stacks &&
           config.syncs && config.runtimeApi && config.driverApi && config.experiments.apiCallbacks;
}

void ProbeDriver::start() {
    m_running = wanted();
    if (m_running && m_state.config.experiments.probeGate)
        m_switches.keepAllApiCallbacks();
}

CollectionSwitches::Activities ProbeDriver::switches() const {
    return m_state.config.experiments.probeKeepsApiRecords
               ? CollectionSwitches::Activities::EventsButApiRecords
               : CollectionSwitches::Activities::Events;
}

void ProbeDriver::onApi(int domain, uint32_t cbid, const void* data) {
    if (!m_switches.allApiCallbacksKept()) {
        if (!count(domain, cbid, data))
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
    if (!count(domain, cbid, data) && m_switches.stackCallbacksOn() &&
        ApiClassifier::wantsStack(m_classifier.lookup(domain, cbid)))
        m_handler.onApi(domain, cbid, data);
    if (!entering)
        m_gate.exit();
}

int64_t ProbeDriver::deadlineNs() const {
    return std::max(m_probe.nextDeadlineNs(), m_gateRetryNs);
}

bool ProbeDriver::count(int domain, uint32_t cbid, const void* data) {
    if (!m_counting.load(std::memory_order_acquire))
        return false;
    if (static_cast<uint32_t>(domain) != m_domain.load(std::memory_order_relaxed) ||
        cbid != m_cbid.load(std::memory_order_relaxed))
        return false;
    if (static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER) {
        const int64_t now = CallbackHandler::nowNs();
        int64_t unset = 0;
        m_firstNs.compare_exchange_strong(unset, now, std::memory_order_relaxed);
        m_lastNs.store(now, std::memory_order_relaxed);
        m_calls.fetch_add(1, std::memory_order_relaxed);
    }
    return true;
}

void ProbeDriver::step(int64_t nowNs) { // the writer thread
    const OverheadProbe::Action action = m_probe.advance(nowNs);
    if (action == OverheadProbe::Action::None || nowNs < m_gateRetryNs)
        return;
    std::lock_guard lock(m_switchMutex); // never beside a capture transition
    std::optional<ClosedGate> closed;
    if (m_switches.allApiCallbacksKept()) {
        closed.emplace(m_gate, kGateWait);
        if (!*closed) {
            m_gateRetryNs = nowNs + kGateRetryNs;
            // Collection that is off must come back: only a stretch's start is given up.
            if (action == OverheadProbe::Action::SwitchOff &&
                ++m_gateMisses >= kGateMissesBeforeGivingUp) {
                m_probe.abandon();
                m_state.writer->addDiagnostic(
                    nowNs, "warning",
                    "overhead probe stopped: API calls were always in flight (" +
                        std::to_string(m_gateMisses) + " tries)");
            }
            return;
        }
        m_gateMisses = 0;
    }
    auto* subscriber = static_cast<CUpti_SubscriberHandle>(m_state.subscriber);
    const auto domain = static_cast<CUpti_CallbackDomain>(m_probe.domain());
    if (action == OverheadProbe::Action::SwitchOff) {
        m_domain.store(m_probe.domain(), std::memory_order_relaxed);
        m_cbid.store(m_probe.cbid(), std::memory_order_relaxed);
        m_calls.store(0, std::memory_order_relaxed);
        m_firstNs.store(0, std::memory_order_relaxed);
        m_lastNs.store(0, std::memory_order_relaxed);
        m_switches.collection(false, switches());
        m_counting.store(true, std::memory_order_release);
        if (const CUptiResult result = cuptiEnableCallback(1, subscriber, domain, m_probe.cbid());
            result != CUPTI_SUCCESS)
            m_state.reportError("cuptiEnableCallback (overhead probe)", result);
        m_probe.switchedOff(CallbackHandler::nowNs());
        return;
    }
    const int64_t endNs = CallbackHandler::nowNs();
    m_counting.store(false, std::memory_order_release);
    m_probe.switchedOn(endNs, m_calls.load(), m_firstNs.load(), m_lastNs.load());
    m_switches.collection(true, switches()); // the counted API's callback among them
    if (m_probe.done())
        write();
}

void ProbeDriver::finish() {
    if (!m_running)
        return;
    if (m_probe.off()) { // the program ended in a stretch: it counts up to here
        m_counting.store(false, std::memory_order_release);
        m_probe.switchedOn(CallbackHandler::nowNs(), m_calls.load(), m_firstNs.load(),
                           m_lastNs.load());
    }
    write();
}

void ProbeDriver::write() {
    if (!m_state.writer || m_probe.offPhases().empty())
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
        m_state.writer->setMeta(format::meta::kRecorderOverheadProbe, probe.text());
}

void ProbeDriver::forgetAfterFork() {
    m_switches.forgetAfterFork();
    m_gate.reset(); // no writer thread here to open it
}

} // namespace stallscope::recorder
