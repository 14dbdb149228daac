#include "model/interop/kineto_event_records.h"

#include "format/session_writer.h"

#include <algorithm>
#include <cstdint>

namespace stallscope::model {

bool KinetoEventRecords::isRecordCall(std::string_view name) {
    return name.starts_with("cudaEventRecord") || name.starts_with("cuEventRecord");
}

void KinetoEventRecords::clear() {
    m_calls.clear();
    m_callStart.clear();
    m_gpuOps.clear();
    m_written.clear();
    m_syntheticIds.clear();
    m_sorted = false;
}

void KinetoEventRecords::addRecordCall(uint32_t thread, int64_t start, int64_t correlation) {
    if (m_calls.size() <= thread)
        m_calls.resize(thread + 1);
    m_calls[thread].push_back({start, correlation});
    m_callStart[correlation] = start;
    m_sorted = false;
}

void KinetoEventRecords::addGpuOperation(int64_t correlation, int64_t streamRow) {
    if (correlation < 0 || correlation > UINT32_MAX || streamRow <= 0 || streamRow > UINT32_MAX)
        return; // not CUPTI's: such an operation is never the one an event marks
    m_gpuOps.push_back({static_cast<uint32_t>(correlation), static_cast<uint32_t>(streamRow)});
    m_sorted = false;
}

void KinetoEventRecords::sortOnce() {
    if (m_sorted)
        return;
    for (auto& calls : m_calls)
        std::sort(calls.begin(), calls.end(),
                  [](const Call& a, const Call& b) { return a.start < b.start; });
    std::sort(m_gpuOps.begin(), m_gpuOps.end());
    m_sorted = true;
}

int64_t KinetoEventRecords::streamBefore(int64_t correlation) const {
    auto it = std::lower_bound(
        m_gpuOps.begin(), m_gpuOps.end(), correlation,
        [](const GpuOp& op, int64_t value) { return int64_t(op.correlation) < value; });
    return it == m_gpuOps.begin() ? 0 : std::prev(it)->streamRow;
}

int64_t KinetoEventRecords::streamAfter(int64_t correlation) const {
    auto it = std::upper_bound(
        m_gpuOps.begin(), m_gpuOps.end(), correlation,
        [](int64_t value, const GpuOp& op) { return value < int64_t(op.correlation); });
    return it == m_gpuOps.end() ? 0 : it->streamRow;
}

bool KinetoEventRecords::find(uint32_t thread, int64_t waitStart, int64_t knownCorrelation,
                              int64_t knownStreamRow, Record* record) {
    sortOnce();
    if (knownCorrelation >= 0) {
        record->correlation = knownCorrelation;
        const auto start = m_callStart.find(knownCorrelation);
        record->recordNs = start != m_callStart.end() ? start->second : waitStart;
    } else {
        if (thread >= m_calls.size())
            return false;
        const std::vector<Call>& calls = m_calls[thread];
        auto after = std::upper_bound(calls.begin(), calls.end(), waitStart,
                                      [](int64_t t, const Call& call) { return t < call.start; });
        if (after == calls.begin())
            return false;
        record->correlation = std::prev(after)->correlation;
        record->recordNs = std::prev(after)->start;
    }
    record->streamRow = knownStreamRow > 0 ? knownStreamRow : streamBefore(record->correlation);
    return record->streamRow > 0;
}

void KinetoEventRecords::link(format::SessionWriter& writer, uint32_t thread, format::SyncRow& sync,
                              int64_t knownCorrelation, int64_t knownStreamRow) {
    sortOnce();
    if (sync.kind == format::SyncKind::StreamWaitEvent && !sync.streamId)
        if (const int64_t waiting = streamAfter(sync.correlationId); waiting > 0)
            sync.streamId = waiting;
    Record record;
    if (!find(thread, sync.startNs, knownCorrelation, knownStreamRow, &record))
        return;
    if (!sync.eventId) {
        const auto next = kFirstSyntheticEventId - static_cast<int64_t>(m_syntheticIds.size());
        sync.eventId = m_syntheticIds.try_emplace(record.correlation, next).first->second;
    }
    if (firstUse(*sync.eventId, record.correlation))
        writer.addCudaEvent({record.streamRow, *sync.eventId, record.correlation, record.recordNs});
}

} // namespace stallscope::model
