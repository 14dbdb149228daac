// KinetoEventRecords: the cudaEventRecord calls of one trace file, so that event syncs
// (cudaEventSynchronize) and cudaStreamWaitEvent get the cuda_events row a recorded session has
// — the event, the stream it was recorded on and the record call's correlation — and with it
// the operation they waited for (what-if run graph, "waited for" links). Kineto names the record
// only where it traced CUDA events (wait_on_cuda_event_record_corr_id, wait_on_stream); else the
// record is the last cudaEventRecord* call on the waiting thread before the wait, and its stream
// that of the last GPU operation launched before it (correlation ids grow with every call).
#pragma once

#include "format/session_rows.h"

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace stallscope::format {
class SessionWriter;
}

namespace stallscope::model {

class KinetoEventRecords {
public:
    struct Record {
        int64_t streamRow = 0; // 0: unknown
        int64_t correlation = 0;
        int64_t recordNs = 0;
    };

    // Event ids the importer makes up count down from the top of the 32-bit range sessions
    // store; CUPTI's count up from 1, so the two never meet in a real trace.
    static constexpr int64_t kFirstSyntheticEventId = 0xFFFFFFFF;

    static bool isRecordCall(std::string_view apiName);

    void clear();
    void addRecordCall(uint32_t thread, int64_t start, int64_t correlation);
    void addGpuOperation(int64_t correlation, int64_t streamRow);

    // Writes the cuda_events row of the record the event sync or stream-wait-event `sync` on
    // converter thread `thread` waited for, once per record. A wait Kineto gave no event id
    // (a cudaStreamWaitEvent without cuda_sync events) gets one per record call, counting down
    // from kFirstSyntheticEventId, and a stream wait without its stream the stream of the first GPU
    // operation launched after it (what PyTorch's wait_event() is followed by).
    void link(format::SessionWriter& writer, uint32_t thread, format::SyncRow& sync,
              int64_t knownCorrelation, int64_t knownStreamRow);
    // The record a wait on `thread` starting at `waitStart` waited for. `knownCorrelation` and
    // `knownStreamRow` (<= 0: unknown) are what Kineto said. False when no record is found.
    bool find(uint32_t thread, int64_t waitStart, int64_t knownCorrelation, int64_t knownStreamRow,
              Record* record);
    // True the first time (event id, record correlation) is seen: write its cuda_events row.
    bool firstUse(int64_t eventId, int64_t correlation) {
        return m_written.emplace(eventId, correlation).second;
    }

private:
    struct Call {
        int64_t start;
        int64_t correlation;
    };
    struct PairHash {
        size_t operator()(const std::pair<int64_t, int64_t>& p) const {
            return std::hash<int64_t>{}(p.first * 1000003 ^ p.second);
        }
    };
    void sortOnce();
    int64_t streamBefore(int64_t correlation) const;
    int64_t streamAfter(int64_t correlation) const;

    std::vector<std::vector<Call>> m_calls;           // per converter thread index
    std::unordered_map<int64_t, int64_t> m_callStart; // record correlation -> call start
    // (correlation, stream row) of every GPU operation, 8 bytes each: CUPTI's correlation ids
    // are 32-bit, and a trace has far fewer than 2^32 streams.
    struct GpuOp {
        uint32_t correlation;
        uint32_t streamRow;
        bool operator<(const GpuOp& other) const { return correlation < other.correlation; }
    };
    std::vector<GpuOp> m_gpuOps;
    std::unordered_set<std::pair<int64_t, int64_t>, PairHash> m_written;
    std::unordered_map<int64_t, int64_t> m_syntheticIds; // record correlation -> made-up id
    bool m_sorted = false;
};

} // namespace stallscope::model
