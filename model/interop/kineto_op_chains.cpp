#include "model/interop/kineto_op_chains.h"

#include "format/session_writer.h"

#include <algorithm>
#include <cctype>

namespace stallscope::model {

namespace {

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

// Every step has its own ProfilerStep#N: naming a site by it would split one site per step.
bool isProfilerStep(std::string_view name) {
    return name.starts_with("ProfilerStep#");
}

} // namespace

bool KinetoOpChains::isCpuOpCategory(std::string_view category) {
    return equalsIgnoringCase(category, "cpu_op") || equalsIgnoringCase(category, "operator");
}

uint32_t KinetoOpChains::nameIndex(std::string_view name, bool annotation) {
    std::string key = (annotation ? "a:" : "o:") + std::string(name);
    auto [entry, added] = m_nameIndex.try_emplace(std::move(key), uint32_t(m_names.size()));
    if (added) {
        m_names.emplace_back(name);
        m_isAnnotation.push_back(annotation);
    }
    return entry->second;
}

uint32_t KinetoOpChains::threadIndex(int64_t tid) {
    auto [entry, added] = m_threadIndex.try_emplace(tid, uint32_t(m_tids.size()));
    if (added) {
        m_tids.push_back(tid);
        m_threads.emplace_back();
    }
    return entry->second;
}

void KinetoOpChains::addOp(int64_t tid, int64_t start, int64_t end, std::string_view name) {
    m_spool.append({start, end, nameIndex(name, false), threadIndex(tid)});
}

void KinetoOpChains::addAnnotation(int64_t tid, int64_t start, int64_t end, std::string_view name) {
    if (!isProfilerStep(name))
        m_spool.append({start, end, nameIndex(name, true), threadIndex(tid)});
}

bool KinetoOpChains::keepEnclosing(
    const std::unordered_map<int64_t, std::vector<int64_t>>& syncStartsByTid) {
    std::vector<const std::vector<int64_t>*> starts(m_tids.size(), nullptr);
    for (size_t i = 0; i < m_tids.size(); ++i) {
        auto found = syncStartsByTid.find(m_tids[i]);
        if (found != syncStartsByTid.end())
            starts[i] = &found->second;
    }
    const bool ok = m_spool.forEach([&](const KinetoCallSpool::Call& call) {
        const std::vector<int64_t>* syncs = starts[call.thread];
        if (!syncs)
            return;
        auto it = std::lower_bound(syncs->begin(), syncs->end(), call.start);
        if (it != syncs->end() && *it < call.end)
            m_threads[call.thread].kept.push_back({call.start, call.end, call.frameId});
    });
    m_spool.clear();
    for (Thread& thread : m_threads) // outer first on equal starts
        std::sort(thread.kept.begin(), thread.kept.end(), [](const Interval& a, const Interval& b) {
            return a.start != b.start ? a.start < b.start : a.end > b.end;
        });
    return ok;
}

std::string KinetoOpChains::chainName(const std::vector<std::string_view>& ops,
                                      std::string_view annotation) {
    std::string name;
    for (std::string_view op : ops)
        name += (name.empty() ? "" : " ← ") + std::string(op);
    if (!annotation.empty())
        name += (name.empty() ? "in " : " in ") + std::string(annotation);
    return name;
}

int64_t KinetoOpChains::frameAt(int64_t tid, int64_t time, std::string_view syncKind) {
    const auto index = m_threadIndex.find(tid);
    if (index == m_threadIndex.end())
        return frameNamed(outsideAnyOp(syncKind));
    Thread& thread = m_threads[index->second];
    // Open what starts by `time`, close what ended: what stays open encloses it.
    while (thread.next < thread.kept.size() && thread.kept[thread.next].start <= time) {
        const Interval& interval = thread.kept[thread.next++];
        while (!thread.open.empty() && thread.open.back()->end <= interval.start)
            thread.open.pop_back();
        thread.open.push_back(&interval);
    }
    std::vector<std::string_view> ops;
    std::string_view annotation;
    for (const Interval* interval : thread.open) {
        if (interval->end <= time)
            continue; // ended before: a sibling still on the stack under a longer one
        if (m_isAnnotation[interval->name])
            annotation = m_names[interval->name]; // the innermost wins
        else
            ops.push_back(m_names[interval->name]);
    }
    if (ops.empty() && annotation.empty())
        return frameNamed(outsideAnyOp(syncKind));
    return frameNamed(chainName(ops, annotation));
}

std::string KinetoOpChains::outsideAnyOp(std::string_view syncKind) {
    return std::string(syncKind) + " outside any op";
}

int64_t KinetoOpChains::frameNamed(const std::string& name) {
    auto [frame, added] = m_frames.try_emplace(name, 0);
    if (added) {
        format::FrameRow row;
        row.kind = format::FrameKind::Python; // no file: SyncSites names the site by function
        row.function = name;
        frame->second = m_writer.addFrame(row);
    }
    return frame->second;
}

void KinetoOpChains::clearFile() {
    m_spool.clear();
    m_tids.clear();
    m_threadIndex.clear();
    m_threads.clear();
}

} // namespace stallscope::model
