// SessionSink's capture intervals (capture control, format v5's capture_intervals): a row when an
// interval begins, its end and reason when it ends, so that a recording killed while capturing
// keeps the interval it was in.
#include "recorder/session_sink.h"

namespace stallscope::recorder {

void SessionSink::captureOpened(int64_t atNs, const std::string& reason) {
    if (m_captureRow != 0)
        captureClosed(atNs, reason); // never two open: the recorder alternates them
    m_captureRow = m_writer->addCaptureInterval({m_processId, atNs, std::nullopt, reason, {}});
}

void SessionSink::captureClosed(int64_t atNs, const std::string& reason) {
    if (m_captureRow == 0)
        return;
    m_writer->endCaptureInterval(m_captureRow, atNs, reason);
    m_captureRow = 0;
    closeOpenMarkers(atNs);
}

} // namespace stallscope::recorder
