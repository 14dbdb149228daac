// Capture control in the Recorder (CaptureSettings, CaptureControl): outside the captured range the
// recorder costs the program (almost) nothing — CUPTI's event activity kinds disabled, the sync
// callbacks off (no stacks), the Python and GPU power samplers paused — and only the triggers that
// open the range stay on: the callbacks of cudaProfilerStart/Stop (runtime and driver) or of
// NVTX's range calls. Time-based transitions (the delay, the duration) run on the writer thread,
// which wakes for them. Each transition is queued for the writer, which writes the interval into
// the session after the records from before it (drainOnce).
#include "recorder/recorder.h"

#include "format/session_meta.h"
#include "format/session_rows.h"
#include "format/session_writer.h"
#include "recorder/session_sink.h"

#include <cupti.h>

#include <algorithm>
#include <string>
#include <utility>

namespace stallscope::recorder {

bool Recorder::startCapture(int64_t startNs) { // under m_captureMutex (start())
    const CaptureSettings& settings = m_config.capture;
    m_capture = CaptureControl(settings, startNs);
    if (!settings.active())
        return true;
    namespace meta = format::meta;
    m_writer->setMeta(meta::kCaptureRange, settings.rangeText());
    m_writer->setMeta(meta::kCaptureRangeEnd, settings.rangeEndText());
    m_writer->setMeta(meta::kCaptureDelayNs, std::to_string(settings.delayNs));
    m_writer->setMeta(meta::kCaptureDurationNs, std::to_string(settings.durationNs));
    if (settings.range == CaptureSettings::Range::Nvtx)
        m_nvtxWatch = std::make_unique<NvtxRangeWatch>(settings.nvtxName);
    if (const auto opened = m_capture.advance(startNs)) { // nothing holds it back
        std::lock_guard queue(m_queueMutex);
        m_captureLog.push_back(*opened);
    }
    m_captureDeadlineNs.store(m_capture.nextDeadlineNs());
    switchCaptureTriggers(true);
    return m_capture.capturing();
}

void Recorder::keepApiRecordsUntilContext() { // under m_captureMutex (start())
    if (!switchApiRecords(true))
        return;
    m_apiRecordsUntilContext = true;
    if (const CUptiResult result =
            cuptiEnableCallback(1, static_cast<CUpti_SubscriberHandle>(m_subscriber),
                                CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
        result != CUPTI_SUCCESS) {
        reportError("cuptiEnableCallback (context created)", result);
        switchApiRecords(false);
        m_apiRecordsUntilContext = false;
    }
}

void Recorder::onContextCreated() {
    try {
        std::lock_guard lock(m_captureMutex);
        if (!m_apiRecordsUntilContext)
            return;
        m_apiRecordsUntilContext = false;
        if (!m_capture.capturing()) // a range that opened meanwhile keeps them
            switchApiRecords(false);
    } catch (...) {
        // Never into CUPTI and the program.
    }
}

void Recorder::switchCaptureTriggers(bool on) {
    m_watchingTriggers = on;
    auto* subscriber = static_cast<CUpti_SubscriberHandle>(m_subscriber);
    auto enable = [this, on, subscriber](CUpti_CallbackDomain domain, uint32_t cbid) {
        if (const CUptiResult result = cuptiEnableCallback(on ? 1 : 0, subscriber, domain, cbid);
            result != CUPTI_SUCCESS)
            reportError("cuptiEnableCallback (capture range)", result);
    };
    switch (m_config.capture.range) {
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

void Recorder::onCaptureTrigger(int domain, uint32_t cbid, const void* data) {
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
            std::lock_guard lock(m_captureMutex);
            const int64_t now = CallbackHandler::nowNs();
            applyCapture(change == NvtxRangeWatch::Change::Began ? m_capture.nvtxRangeBegan(now)
                                                                 : m_capture.nvtxRangeEnded(now));
            return;
        }
        // cudaProfilerStart calls cuProfilerStart: both arrive, the second changes nothing.
        if (m_config.capture.range != CaptureSettings::Range::ProfilerApi ||
            static_cast<const CUpti_CallbackData*>(data)->callbackSite != CUPTI_API_ENTER)
            return;
        const bool start = domain == CUPTI_CB_DOMAIN_RUNTIME_API
                               ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
                               : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
        std::lock_guard lock(m_captureMutex);
        const int64_t now = CallbackHandler::nowNs();
        applyCapture(start ? m_capture.profilerStarted(now) : m_capture.profilerStopped(now));
    } catch (...) {
        // Never into CUPTI and the program (an allocation failed: the transition is lost).
    }
}

void Recorder::applyCapture(const std::optional<CaptureControl::Transition>& transition) {
    m_captureDeadlineNs.store(m_capture.nextDeadlineNs());
    if (m_capture.finished() && m_watchingTriggers)
        switchCaptureTriggers(false); // nothing opens any more: nothing to watch
    if (!transition)
        return;
    const bool on = transition->open;
    switchCollection(on);
    CaptureControl::Transition logged = *transition;
    // The program went on while the activities were switched off: what it launched until then is
    // recorded, so the interval ends when recording did (a time-based close comes a few
    // microseconds after its deadline).
    if (!on)
        logged.atNs = std::max(logged.atNs, CallbackHandler::nowNs());
    {
        std::lock_guard lock(m_queueMutex);
        m_captureLog.push_back(std::move(logged));
    }
    sem_post(&m_wake);
}

void Recorder::switchCollection(bool on, Activities which) {
    if (on)
        m_handler.newEpoch(); // before the callbacks come back
    switchActivities(on, which);
    switchApiCallbacks(on);
    if (m_sampling)
        m_sampler.setPaused(!on);
    m_power.setPaused(!on);
}

void Recorder::advanceCapture(int64_t nowNs) {
    std::lock_guard lock(m_captureMutex);
    applyCapture(m_capture.advance(nowNs));
}

void Recorder::endCapture(int64_t nowNs) {
    if (!m_config.capture.active())
        return;
    std::lock_guard lock(m_captureMutex);
    applyCapture(m_capture.end(nowNs));
}

std::vector<CaptureControl::Transition> Recorder::takeCaptureTransitions() {
    std::vector<CaptureControl::Transition> transitions;
    {
        std::lock_guard lock(m_queueMutex);
        transitions.swap(m_captureLog);
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

void Recorder::writeCaptureTransitions(const std::vector<CaptureControl::Transition>& transitions) {
    for (const CaptureControl::Transition& transition : transitions) {
        if (transition.open)
            m_sink->captureOpened(transition.atNs, transition.reason);
        else
            m_sink->captureClosed(transition.atNs, transition.reason);
    }
}

} // namespace stallscope::recorder
