// KinetoConverter, once a file is read: its profiler window, the Python stacks and event records
// of its syncs, its ranges, the process's span and the session's import meta. What it does while
// events stream by is in kineto_converter.cpp.
#include "model/interop/kineto_converter.h"

#include "format/session_enums.h"
#include "format/session_meta.h"
#include "format/session_writer.h"

#include <algorithm>
#include <climits>

namespace stallscope::model {

using format::SyncKind;

// Reads the spooled python_function calls back and keeps, per thread, those that enclose the
// start of at least one of its syncs (binary search over the sorted sync starts).
bool KinetoConverter::keepEnclosingCalls() {
    std::vector<std::vector<int64_t>> syncStarts(m_threads.size());
    for (size_t i = 0; i < m_threads.size(); ++i) {
        for (const PendingSync& sync : m_threads[i]->syncs)
            syncStarts[i].push_back(sync.start);
        std::sort(syncStarts[i].begin(), syncStarts[i].end());
    }
    return m_pythonCalls.forEach([&](const KinetoCallSpool::Call& call) {
        const std::vector<int64_t>& starts = syncStarts[call.thread];
        auto it = std::lower_bound(starts.begin(), starts.end(), call.start);
        if (it != starts.end() && *it < call.end)
            m_threads[call.thread]->python.push_back({call.start, call.end, call.frameId});
    });
}

void KinetoConverter::resolveWindow() {
    for (const auto& thread : m_threads)
        for (const PendingSync& sync : thread->syncs)
            m_window.addSync(sync.start, sync.end);
    m_span = m_fileIsExport ? KinetoWindow::Span() : m_window.resolve(); // exports: as recorded
    if (!m_span.valid() || m_lastNs == INT64_MIN)
        return;
    m_stats.windowClippedNs += std::max<int64_t>(0, m_span.startNs - m_firstNs) +
                               std::max<int64_t>(0, m_lastNs - m_span.endNs);
    m_windowLabels += (m_windowLabels.empty() ? "" : "; ") +
                      (m_stats.files > 1 ? m_fileName + ": " + m_span.label : m_span.label);
}

bool KinetoConverter::clipToWindow(int64_t& start, int64_t& end) {
    const bool keep = m_span.clip(start, end);
    m_stats.windowDroppedRows += keep ? 0 : 1;
    return keep;
}

void KinetoConverter::resolveThread(ThreadState& thread) {
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
        if ((m_fileExplicitSyncs > 0 || m_fileIsExport) && !isExplicit)
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
        countRow();
    }
    std::vector<PyCall>().swap(thread.python);
    std::vector<PendingSync>().swap(thread.syncs);
}

void KinetoConverter::writeRanges(ThreadState& thread) {
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
        countRow();
        openEnds.push_back(range.end);
    }
    std::vector<PendingRange>().swap(thread.ranges);
}

bool KinetoConverter::finishFile(std::string* error) {
    if (m_fileEvents > 0 && m_fileKnownEvents == 0) {
        *error = "not a PyTorch profiler (Kineto) trace: none of its " +
                 std::to_string(m_fileEvents) +
                 " events has a Kineto category (cuda_runtime, kernel, python_function, ...)";
        return false;
    }
    if (!keepEnclosingCalls()) {
        *error = "cannot spool Python calls to a temporary file";
        return false;
    }
    m_pythonCalls.clear();
    std::unordered_map<int64_t, std::vector<int64_t>> syncStartsByTid;
    for (const auto& thread : m_threads) {
        std::vector<int64_t>& starts = syncStartsByTid[thread->tid];
        for (const PendingSync& sync : thread->syncs)
            starts.push_back(sync.start);
        std::sort(starts.begin(), starts.end());
    }
    if (!m_opChains.keepEnclosing(syncStartsByTid)) {
        *error = "cannot spool CPU ops to a temporary file";
        return false;
    }
    resolveWindow();
    for (auto& thread : m_threads) {
        resolveThread(*thread);
        writeRanges(*thread);
        auto name = m_threadNames.find(thread->tid);
        if (name != m_threadNames.end() && thread->tid >= 0)
            m_writer.setThreadName(thread->row, name->second);
    }
    if (m_processRow != 0 && m_lastNs != INT64_MIN) {
        m_writer.finishProcess(m_processRow, m_span.valid() ? m_span.endNs : m_lastNs,
                               std::nullopt);
        m_processStarts.emplace_back(m_processRow, m_span.valid() ? m_span.startNs : m_firstNs);
        if (m_span.valid() && m_window.writtenRowsOutside(m_span))
            m_windowsToClip.push_back({m_processRow, m_span.startNs, m_span.endNs});
    }
    m_writer.commit();
    m_rowsSinceCommit = 0;
    return true;
}

void KinetoConverter::writeMeta() {
    auto join = [](const std::map<std::string, int64_t>& counts) {
        std::string text;
        for (const auto& [name, count] : counts)
            text += (text.empty() ? "" : " ") + name + "=" + std::to_string(count);
        return text;
    };
    m_writer.setMeta(format::meta::kImportFormat, "kineto");
    // Kineto's timestamps are the profiler's host clock in µs, not necessarily CLOCK_MONOTONIC.
    m_writer.setMeta(format::meta::kClock, "kineto-host-us");
    m_writer.setMeta(format::meta::kImportFiles, std::to_string(m_stats.files));
    m_writer.setMeta(format::meta::kImportEvents, std::to_string(m_stats.events));
    m_writer.setMeta(format::meta::kImportIgnoredCategories, join(m_stats.ignoredCategories));
    m_writer.setMeta(format::meta::kImportUnknownCategories, join(m_stats.unknownCategories));
    int64_t unknown = 0;
    for (const auto& [name, count] : m_stats.unknownCategories)
        unknown += count;
    m_writer.setMeta(format::meta::kImportUnknownEvents, std::to_string(unknown));
    m_writer.setMeta(format::meta::kImportWindow, m_windowLabels.empty() ? "none" : m_windowLabels);
    m_writer.setMeta(format::meta::kImportWindowClippedNs, std::to_string(m_stats.windowClippedNs));
    m_writer.setMeta(format::meta::kPythonLineKind,
                     "def"); // frames.column = -1: see python_frame_name.h
}

} // namespace stallscope::model
