#include "model/interop/kineto_thread_resolver.h"

#include "format/session_enums.h"
#include "format/session_writer.h"
#include "model/interop/kineto_call_spool.h"
#include "model/interop/kineto_event_records.h"
#include "model/interop/kineto_op_chains.h"

#include <algorithm>
#include <utility>

namespace stallscope::model {

using format::SyncKind;

KinetoThreadResolver::KinetoThreadResolver(format::SessionWriter& writer, KinetoImportStats& stats,
                                           KinetoOpChains& opChains,
                                           KinetoEventRecords& eventRecords,
                                           std::function<void()> countRow)
    : m_writer(writer), m_stats(stats), m_opChains(opChains), m_eventRecords(eventRecords),
      m_countRow(std::move(countRow)) {}

void KinetoThreadResolver::clearFile() {
    m_pageableCopies.clear();
    m_syncDetails.clear();
    m_span = {};
    m_syncsListed = false;
}

int64_t KinetoThreadResolver::internStack(const std::vector<int64_t>& frames) {
    std::string key(reinterpret_cast<const char*>(frames.data()), frames.size() * sizeof(int64_t));
    auto it = m_stacks.find(key);
    if (it != m_stacks.end())
        return it->second;
    const uint64_t hash = std::hash<std::string>{}(key);
    const int64_t id = m_writer.addStack(hash, frames);
    m_stacks.emplace(std::move(key), id);
    return id;
}

// Binary search over each thread's sorted sync starts.
bool KinetoThreadResolver::keepEnclosingCalls(KinetoCallSpool& calls,
                                              const std::vector<std::unique_ptr<Thread>>& threads) {
    std::vector<std::vector<int64_t>> syncStarts(threads.size());
    for (size_t i = 0; i < threads.size(); ++i) {
        for (const PendingSync& sync : threads[i]->syncs)
            syncStarts[i].push_back(sync.start);
        std::sort(syncStarts[i].begin(), syncStarts[i].end());
    }
    return calls.forEach([&](const KinetoCallSpool::Call& call) {
        const std::vector<int64_t>& starts = syncStarts[call.thread];
        auto it = std::lower_bound(starts.begin(), starts.end(), call.start);
        if (it != starts.end() && *it < call.end)
            threads[call.thread]->python.push_back({call.start, call.end, call.frameId});
    });
}

void KinetoThreadResolver::writeThread(Thread& thread, const KinetoWindow::Span& window,
                                       bool syncsListed) {
    m_span = window;
    m_syncsListed = syncsListed;
    resolveSyncs(thread);
    writeRanges(thread);
}

bool KinetoThreadResolver::clipToWindow(int64_t& start, int64_t& end) {
    const bool keep = m_span.clip(start, end);
    m_stats.windowDroppedRows += keep ? 0 : 1;
    return keep;
}

void KinetoThreadResolver::resolveSyncs(Thread& thread) {
    // Python stacks: sweep the thread's python_function intervals (properly nested, sorted by
    // start, longer first on ties) against its syncs; the open intervals at a sync's start are
    // its enclosing chain.
    std::sort(thread.python.begin(), thread.python.end(), [](const PyCall& a, const PyCall& b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::sort(thread.syncs.begin(), thread.syncs.end(),
              [](const PendingSync& a, const PendingSync& b) { return a.start < b.start; });
    std::vector<const PyCall*> open;
    std::vector<int64_t> frames;
    // The chain under one innermost call never changes (open only grows and shrinks at its
    // back): its stack is interned once, not once per sync, which cost depth × syncs when many
    // syncs ran inside deeply nested calls.
    const PyCall* internedTop = nullptr;
    int64_t internedStack = 0;
    size_t next = 0;
    for (PendingSync& sync : thread.syncs) {
        const bool isExplicit = sync.copyCandidate == 3;
        int64_t recordCorrelation = -1, recordStreamRow = 0;
        if (m_syncsListed && !isExplicit)
            continue; // a Stallscope export lists its syncs: don't derive them a second time
        if (sync.copyCandidate == 1 || sync.copyCandidate == 2) {
            if (m_pageableCopies.count(sync.correlation))
                sync.kind = SyncKind::PageableCopy;
            else if (sync.copyCandidate == 1)
                continue; // an async copy that did not block the host
        }
        if (!isExplicit) {
            const int64_t t = sync.start;
            while (next < thread.python.size() && thread.python[next].start <= t) {
                const PyCall& call = thread.python[next++];
                while (!open.empty() && open.back()->end <= call.start)
                    open.pop_back();
                open.push_back(&call);
            }
            while (!open.empty() && open.back()->end <= t)
                open.pop_back();
            if (!open.empty() && open.back() != internedTop) {
                frames.clear();
                for (auto it = open.rbegin();
                     it != open.rend() && frames.size() < size_t(format::kMaxStackDepth); ++it)
                    frames.push_back((*it)->frameId);
                internedStack = internStack(frames);
                internedTop = open.back();
            }
            if (!open.empty())
                sync.stackId = internedStack;
            else // no Python stack: the op chain (or the sync's kind) names it
                sync.stackId = internStack(
                    {m_opChains.frameAt(thread.tid, t, format::syncKindName(int(sync.kind)))});
            auto detail = m_syncDetails.find(sync.correlation);
            if (detail != m_syncDetails.end()) {
                sync.streamRow = detail->second.streamRow;
                sync.eventId = detail->second.eventId;
                recordCorrelation = detail->second.recordCorrelation;
                recordStreamRow = detail->second.recordStreamRow;
            }
        }
        format::SyncRow row;
        row.threadId = thread.row;
        row.kind = sync.kind;
        row.startNs = sync.start;
        row.endNs = sync.end;
        row.correlationId = sync.correlation;
        if (sync.streamRow != 0)
            row.streamId = sync.streamRow;
        if (sync.eventId >= 0)
            row.eventId = sync.eventId;
        if (sync.stackId != 0)
            row.stackId = sync.stackId;
        if (!clipToWindow(row.startNs, row.endNs))
            continue;
        if (row.kind == SyncKind::Event || row.kind == SyncKind::StreamWaitEvent)
            m_eventRecords.link(m_writer, thread.index, row, recordCorrelation, recordStreamRow);
        m_writer.addSync(row);
        ++m_stats.syncs;
        m_countRow();
    }
    std::vector<PyCall>().swap(thread.python);
    std::vector<PendingSync>().swap(thread.syncs);
}

void KinetoThreadResolver::writeRanges(Thread& thread) {
    std::sort(thread.ranges.begin(), thread.ranges.end(),
              [](const PendingRange& a, const PendingRange& b) {
                  return a.start != b.start ? a.start < b.start : a.end > b.end;
              });
    std::vector<int64_t> openEnds;
    for (const PendingRange& range : thread.ranges) {
        while (!openEnds.empty() && openEnds.back() <= range.start)
            openEnds.pop_back();
        format::RangeRow row;
        row.threadId = thread.row;
        row.kind = format::RangeKind::Scope;
        row.nameId = range.nameId;
        row.startNs = range.start;
        row.endNs = range.end;
        if (!clipToWindow(row.startNs, row.endNs))
            continue;
        row.depth = std::min<int64_t>(static_cast<int64_t>(openEnds.size()), 255);
        m_writer.addRange(row);
        m_countRow();
        openEnds.push_back(range.end);
    }
    std::vector<PendingRange>().swap(thread.ranges);
}

} // namespace stallscope::model
