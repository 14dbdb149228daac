#include "recorder/capture_control.h"

#include "format/session_rows.h"

#include <limits>

namespace stallscope::recorder {

namespace reason = format::capture_reason;

CaptureControl::CaptureControl(const CaptureSettings& settings, int64_t startNs)
    : m_settings(settings), m_startNs(startNs) {}

int64_t CaptureControl::nextDeadlineNs() const {
    if (m_ended)
        return std::numeric_limits<int64_t>::max();
    if (!m_armed)
        return m_startNs + m_settings.delayNs;
    if (m_settings.durationNs > 0 && m_firstOpenNs >= 0 && !m_expired)
        return m_firstOpenNs + m_settings.durationNs;
    return std::numeric_limits<int64_t>::max();
}

bool CaptureControl::programInRange() const {
    switch (m_settings.range) {
    case CaptureSettings::Range::ProfilerApi:
        return m_profilerOn;
    case CaptureSettings::Range::Nvtx:
        return m_openNvtxRanges > 0;
    case CaptureSettings::Range::None:
        break;
    }
    return true;
}

bool CaptureControl::rangeOpen() const {
    return programInRange() && (!m_settings.hasSteps() ||
                                (m_step >= m_settings.firstStep && m_step <= m_settings.lastStep));
}

std::optional<CaptureControl::Transition> CaptureControl::update(int64_t nowNs,
                                                                 const std::string& why) {
    const bool wanted = m_armed && rangeOpen() && !finished();
    if (wanted == m_capturing)
        return std::nullopt;
    m_capturing = wanted;
    if (wanted && m_firstOpenNs < 0)
        m_firstOpenNs = nowNs;
    return Transition{wanted, nowNs, why};
}

std::optional<CaptureControl::Transition> CaptureControl::advance(int64_t nowNs) {
    if (!m_armed && nowNs >= m_startNs + m_settings.delayNs) {
        m_armed = true;
        if (auto opened = update(nowNs, m_settings.delayNs > 0 ? reason::kDelay : reason::kStart))
            return opened;
    }
    if (m_settings.durationNs > 0 && m_firstOpenNs >= 0 && !m_expired &&
        nowNs >= m_firstOpenNs + m_settings.durationNs) {
        m_expired = true;
        return update(nowNs, reason::kDuration);
    }
    return std::nullopt;
}

std::optional<CaptureControl::Transition> CaptureControl::rangeClosed(int64_t nowNs,
                                                                      const std::string& why) {
    const bool wasCapturing = m_capturing;
    // The last step ended (recorded or not: the delay may have held it back): nothing opens after.
    if (m_settings.hasSteps() && m_step >= m_settings.lastStep && !programInRange())
        m_rangesDone = true;
    std::optional<Transition> closed = update(nowNs, why);
    if (wasCapturing && closed && !m_settings.repeats())
        m_rangesDone = true;
    return closed;
}

std::optional<CaptureControl::Transition> CaptureControl::profilerStarted(int64_t nowNs) {
    if (!m_profilerOn)
        stepBegan();
    m_profilerOn = true;
    return update(nowNs, reason::kProfilerStart);
}

std::optional<CaptureControl::Transition> CaptureControl::profilerStopped(int64_t nowNs) {
    m_profilerOn = false;
    return rangeClosed(nowNs, reason::kProfilerStop);
}

std::optional<CaptureControl::Transition> CaptureControl::nvtxRangeBegan(int64_t nowNs) {
    if (m_openNvtxRanges == 0)
        stepBegan();
    ++m_openNvtxRanges;
    return update(nowNs, m_settings.rangeText());
}

std::optional<CaptureControl::Transition> CaptureControl::nvtxRangeEnded(int64_t nowNs) {
    if (m_openNvtxRanges == 0)
        return std::nullopt; // began before the recorder watched
    --m_openNvtxRanges;
    return rangeClosed(nowNs, m_settings.rangeText());
}

std::optional<CaptureControl::Transition> CaptureControl::end(int64_t nowNs) {
    m_ended = true;
    return update(nowNs, reason::kEnd);
}

} // namespace stallscope::recorder
