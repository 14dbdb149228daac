#include "recorder/capture_driver.h"

#include "format/session_meta.h"
#include "format/session_rows.h"
#include "format/session_writer.h"
#include "recorder/callback_handler.h"
#include "recorder/collection_switches.h"
#include "recorder/recording_state.h"
#include "recorder/session_sink.h"

#include <cupti.h>

#include <algorithm>
#include <string>
#include <utility>

namespace stallscope::recorder {

bool CaptureDriver::start(int64_t startNs) { // under m_mutex (Recorder::start)
    const CaptureSettings& settings = m_state.config.capture;
    m_capture = CaptureControl(settings, startNs);
    if (!settings.active())
        return true;
    namespace meta = format::meta;
    format::SessionWriter& writer = *m_state.writer;
    writer.setMeta(meta::kCaptureRange, settings.rangeText());
    writer.setMeta(meta::kCaptureRangeEnd, settings.rangeEndText());
    writer.setMeta(meta::kCaptureDelayNs, std::to_string(settings.delayNs));
    writer.setMeta(meta::kCaptureDurationNs, std::to_string(settings.durationNs));
    if (settings.hasSteps())
        writer.setMeta(meta::kCaptureSteps, settings.stepsText());
    if (settings.range == CaptureSettings::Range::Nvtx)
        m_nvtxWatch = std::make_unique<NvtxRangeWatch>(settings.nvtxName);
    if (const auto opened = m_capture.advance(startNs)) // nothing holds it back
        queue(*opened);
    m_deadlineNs.store(m_capture.nextDeadlineNs());
    switchTriggers(true);
    return m_capture.capturing();
}

void CaptureDriver::keepApiRecordsUntilContext() { // under m_mutex (Recorder::start)
    if (!m_switches.apiRecords(true))
        return;
    m_apiRecordsUntilContext = true;
    if (const CUptiResult result =
            cuptiEnableCallback(1, static_cast<CUpti_SubscriberHandle>(m_state.subscriber),
                                CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
        result != CUPTI_SUCCESS) {
        m_state.reportError("cuptiEnableCallback (context created)", result);
        m_switches.apiRecords(false);
        m_apiRecordsUntilContext = false;
    }
}

void CaptureDriver::onContextCreated() {
    try {
        std::lock_guard lock(m_mutex);
        if (!m_apiRecordsUntilContext)
            return;
        m_apiRecordsUntilContext = false;
        if (!m_capture.capturing()) // a range that opened meanwhile keeps them
            m_switches.apiRecords(false);
    } catch (...) {
        // Never into CUPTI and the program.
    }
}

bool CaptureDriver::isTrigger(int domain, uint32_t cbid) {
    switch (domain) {
    case CUPTI_CB_DOMAIN_NVTX:
        return true;
    case CUPTI_CB_DOMAIN_RUNTIME_API:
        return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 ||
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000;
    case CUPTI_CB_DOMAIN_DRIVER_API:
        return cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart ||
               cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
    default:
        return false;
    }
}

void CaptureDriver::switchTriggers(bool on) {
    m_watchingTriggers = on;
    auto* subscriber = static_cast<CUpti_SubscriberHandle>(m_state.subscriber);
    auto enable = [this, on, subscriber](CUpti_CallbackDomain domain, uint32_t cbid) {
        if (const CUptiResult result = cuptiEnableCallback(on ? 1 : 0, subscriber, domain, cbid);
            result != CUPTI_SUCCESS)
            m_state.reportError("cuptiEnableCallback (capture range)", result);
    };
    switch (m_state.config.capture.range) {
    case CaptureSettings::Range::ProfilerApi:
        enable(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
        enable(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
        enable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
        enable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
        break;
    case CaptureSettings::Range::Nvtx:
        for (uint32_t cbid : NvtxRangeWatch::callbackIds())
            enable(CUPTI_CB_DOMAIN_NVTX, cbid);
        break;
    case CaptureSettings::Range::None:
        break;
    }
}

void CaptureDriver::onTrigger(int domain, uint32_t cbid, const void* data) {
    // Off in a forked child and after stop().
    if (!m_handler.enabled() || !data)
        return;
    try {
        // Each transition's time is read under the lock: the intervals follow one another.
        if (domain == CUPTI_CB_DOMAIN_NVTX) {
            if (!m_nvtxWatch)
                return;
            const NvtxRangeWatch::Change change = m_nvtxWatch->onCallback(cbid, data);
            if (change == NvtxRangeWatch::Change::None)
                return;
            std::lock_guard lock(m_mutex);
            const int64_t now = CallbackHandler::nowNs();
            apply(change == NvtxRangeWatch::Change::Began ? m_capture.nvtxRangeBegan(now)
                                                          : m_capture.nvtxRangeEnded(now));
            return;
        }
        // cudaProfilerStart calls cuProfilerStart: both arrive, the second changes nothing.
        if (m_state.config.capture.range != CaptureSettings::Range::ProfilerApi ||
            static_cast<const CUpti_CallbackData*>(data)->callbackSite != CUPTI_API_ENTER)
            return;
        const bool start = domain == CUPTI_CB_DOMAIN_RUNTIME_API
                               ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
                               : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
        std::lock_guard lock(m_mutex);
        const int64_t now = CallbackHandler::nowNs();
        apply(start ? m_capture.profilerStarted(now) : m_capture.profilerStopped(now));
    } catch (...) {
        // Never into CUPTI and the program (an allocation failed: the transition is lost).
    }
}

void CaptureDriver::apply(const std::optional<CaptureControl::Transition>& transition) {
    m_deadlineNs.store(m_capture.nextDeadlineNs());
    if (m_capture.finished() && m_watchingTriggers)
        switchTriggers(false); // nothing opens any more: nothing to watch
    if (!transition)
        return;
    const bool on = transition->open;
    m_switches.collection(on);
    CaptureControl::Transition logged = *transition;
    // The program went on while the activities were switched off: what it launched until then is
    // recorded, so the interval ends when recording did (a time-based close comes a few
    // microseconds after its deadline).
    if (!on)
        logged.atNs = std::max(logged.atNs, CallbackHandler::nowNs());
    queue(std::move(logged));
    m_state.wakeWriter();
}

void CaptureDriver::queue(CaptureControl::Transition transition) {
    std::lock_guard lock(m_queueMutex);
    m_queued.push_back(std::move(transition));
}

void CaptureDriver::advance(int64_t nowNs) {
    std::lock_guard lock(m_mutex);
    apply(m_capture.advance(nowNs));
}

void CaptureDriver::end(int64_t nowNs) {
    if (!m_state.config.capture.active())
        return;
    std::lock_guard lock(m_mutex);
    apply(m_capture.end(nowNs));
}

std::vector<CaptureControl::Transition> CaptureDriver::takeTransitions() {
    std::vector<CaptureControl::Transition> transitions;
    {
        std::lock_guard lock(m_queueMutex);
        transitions.swap(m_queued);
    }
    // The records from before a close (NVTX ranges' ends among them) are written first: CUPTI
    // delivers the buffers that hold them now (records of work still running come once it ends).
    for (const CaptureControl::Transition& transition : transitions)
        if (!transition.open) {
            cuptiActivityFlushAll(0);
            break;
        }
    return transitions;
}

void CaptureDriver::writeTransitions(const std::vector<CaptureControl::Transition>& transitions) {
    for (const CaptureControl::Transition& transition : transitions) {
        if (transition.open)
            m_state.sink->captureOpened(transition.atNs, transition.reason);
        else
            m_state.sink->captureClosed(transition.atNs, transition.reason);
    }
}

} // namespace stallscope::recorder
