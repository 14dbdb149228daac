// KinetoThreadResolver: the part of a Kineto import that must wait for the end of each file, done
// thread by thread once it is read (KinetoConverter buffers it per thread while events stream by):
// the Python stack of each sync (the python_function calls enclosing its start on its thread,
// else its op chain), whether a cudaMemcpy* blocked on pageable memory (its gpu_memcpy may come
// later), the stream and event a cuda_sync event gave it, and range depths. Syncs and ranges are
// written clipped to the file's profiler window. It also interns the session's stacks.
#pragma once

#include "format/session_rows.h"
#include "model/interop/kineto_import_stats.h"
#include "model/interop/kineto_window.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace stallscope::format {
class SessionWriter;
}

namespace stallscope::model {

class KinetoCallSpool;
class KinetoEventRecords;
class KinetoOpChains;

class KinetoThreadResolver {
public:
    struct PyCall {
        int64_t start;
        int64_t end;
        int64_t frameId;
    };
    struct PendingSync {
        int64_t start;
        int64_t end;
        int64_t correlation;
        format::SyncKind kind;
        int64_t streamRow = 0; // 0: none
        int64_t eventId = -1;
        int64_t stackId = 0;       // explicit syncs carry theirs
        uint8_t copyCandidate = 0; // 1: cudaMemcpy*Async, 2: synchronous cudaMemcpy*, 3: explicit
    };
    struct PendingRange {
        int64_t start;
        int64_t end;
        int64_t nameId;
    };
    // One thread of a file (a host thread, or a GPU stream's annotations) and what it buffered.
    struct Thread {
        int64_t row = 0;
        int64_t tid = 0;
        uint32_t index = 0;
        std::vector<PyCall> python; // only the calls that enclose a sync (keepEnclosingCalls)
        std::vector<PendingSync> syncs;
        std::vector<PendingRange> ranges;
    };
    // What a cuda_sync event says of the sync with its correlation id.
    struct SyncDetail {
        int64_t streamRow = 0;
        int64_t eventId = -1;
        int64_t recordCorrelation = -1;
        int64_t recordStreamRow = 0;
    };

    // `countRow` is called after every row written: the converter counts rows and commits.
    KinetoThreadResolver(format::SessionWriter& writer, KinetoImportStats& stats,
                         KinetoOpChains& opChains, KinetoEventRecords& eventRecords,
                         std::function<void()> countRow);

    // While a file streams by: what its syncs are resolved against.
    void clearFile();
    void addPageableCopy(int64_t correlation) { m_pageableCopies.insert(correlation); }
    SyncDetail& syncDetail(int64_t correlation) { return m_syncDetails[correlation]; }

    // The stack row of `framesInnermostFirst`, written the first time (session-wide).
    int64_t internStack(const std::vector<int64_t>& framesInnermostFirst);

    // Once the file is read: reads the spooled python_function calls back and keeps, per thread,
    // those that enclose the start of at least one of its syncs. False when the spool failed.
    bool keepEnclosingCalls(KinetoCallSpool& calls,
                            const std::vector<std::unique_ptr<Thread>>& threads);
    // Writes the thread's syncs and ranges inside `window` and frees its buffers. `syncsListed`:
    // the file lists its syncs (a Stallscope export, explicit syncs), none are derived from calls.
    void writeThread(Thread& thread, const KinetoWindow::Span& window, bool syncsListed);

private:
    void resolveSyncs(Thread& thread);
    void writeRanges(Thread& thread);
    // Clips [start, end) to the file's window; false (counted) when it lies wholly outside.
    bool clipToWindow(int64_t& start, int64_t& end);

    format::SessionWriter& m_writer;
    KinetoImportStats& m_stats;
    KinetoOpChains& m_opChains;
    KinetoEventRecords& m_eventRecords;
    std::function<void()> m_countRow;
    std::unordered_map<std::string, int64_t> m_stacks; // frame ids as bytes -> stack id

    // Per file.
    std::unordered_set<int64_t> m_pageableCopies;          // correlations of DtoH pageable
    std::unordered_map<int64_t, SyncDetail> m_syncDetails; // cuda_sync, by correlation
    KinetoWindow::Span m_span;
    bool m_syncsListed = false;
};

} // namespace stallscope::model
