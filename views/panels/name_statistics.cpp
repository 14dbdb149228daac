#include "views/panels/name_statistics.h"

#include <algorithm>
#include <limits>

namespace stallscope::views {

namespace {

template <typename Columns>
void accumulate(std::vector<NameStats>& byId, const Columns& columns, int32_t lane) {
    for (size_t i = 0; i < columns.size(); ++i) {
        const uint32_t id = columns.nameId[i];
        if (id >= byId.size())
            continue; // a dangling string id: counted nowhere rather than crashing
        NameStats& stats = byId[id];
        const int64_t duration = columns.end[i] - columns.start[i];
        if (stats.count++ == 0) {
            stats.firstLane = lane;
            stats.firstIndex = uint32_t(i);
        }
        stats.totalNs += duration;
        stats.maxNs = std::max(stats.maxNs, duration);
    }
}

std::vector<NameStats> compact(std::vector<NameStats> byId) {
    std::vector<NameStats> result;
    for (uint32_t id = 0; id < byId.size(); ++id)
        if (byId[id].count > 0) {
            byId[id].nameId = id;
            result.push_back(byId[id]);
        }
    std::sort(result.begin(), result.end(), [](const NameStats& a, const NameStats& b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.nameId < b.nameId;
    });
    return result;
}

template <typename Columns>
void appendRuns(model::EventSpans& spans, const Columns& columns, const std::vector<bool>& matches,
                model::EventKind kind, int32_t lane) {
    const size_t n = columns.size();
    size_t i = 0;
    while (i < n) {
        const uint32_t id = columns.nameId[i];
        if (id >= matches.size() || !matches[id]) {
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < n && columns.nameId[j] < matches.size() && matches[columns.nameId[j]])
            ++j;
        spans.push_back({{kind, lane, 0, uint32_t(i)}, uint32_t(j - i)});
        i = j;
    }
}

} // namespace

std::vector<NameStats> kernelStatsByName(const model::Session& session) {
    std::vector<NameStats> byId(session.strings.size());
    for (size_t lane = 0; lane < session.streamLanes.size(); ++lane)
        accumulate(byId, session.streamLanes[lane].kernels, int32_t(lane));
    return compact(std::move(byId));
}

std::vector<NameStats> apiCallStatsByName(const model::Session& session) {
    std::vector<NameStats> byId(session.strings.size());
    for (size_t lane = 0; lane < session.hostLanes.size(); ++lane)
        accumulate(byId, session.hostLanes[lane].apiCalls, int32_t(lane));
    return compact(std::move(byId));
}

model::EventSpans spansWithNames(const model::Session& session, model::EventKind kind,
                                 const std::vector<bool>& matches) {
    model::EventSpans spans;
    if (kind == model::EventKind::Kernel) {
        for (size_t lane = 0; lane < session.streamLanes.size(); ++lane)
            appendRuns(spans, session.streamLanes[lane].kernels, matches, kind, int32_t(lane));
    } else if (kind == model::EventKind::ApiCall) {
        for (size_t lane = 0; lane < session.hostLanes.size(); ++lane)
            appendRuns(spans, session.hostLanes[lane].apiCalls, matches, kind, int32_t(lane));
    }
    return spans;
}

model::EventSpans spansWithName(const model::Session& session, model::EventKind kind,
                                uint32_t nameId) {
    std::vector<bool> matches(session.strings.size(), false);
    if (nameId < matches.size())
        matches[nameId] = true;
    return spansWithNames(session, kind, matches);
}

std::pair<int64_t, int64_t> spanExtent(const model::Session& session,
                                       const model::EventSpans& spans) {
    int64_t first = std::numeric_limits<int64_t>::max();
    int64_t last = std::numeric_limits<int64_t>::min();
    for (const model::EventSpan& span : spans) {
        const model::IntervalColumns* columns = span.first.columns(session);
        const uint32_t begin = span.first.index;
        if (!columns || span.count == 0 || size_t(begin) + span.count > columns->size())
            continue;
        first = std::min(first, columns->start[begin]);
        // Events of one lane may nest (API calls): the run's last start is not its last end.
        for (uint32_t i = begin; i < begin + span.count; ++i)
            last = std::max(last, columns->end[i]);
    }
    if (first > last)
        return {0, 0};
    return {first, last};
}

} // namespace stallscope::views
