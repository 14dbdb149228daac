#include "views/timeline/lod_summary.h"

#include <algorithm>

namespace stallscope::views {

ColumnSummary ColumnSummary::of(const model::IntervalColumns& columns) {
    const size_t n = columns.size();
    const size_t groups = (n + kGroup - 1) / kGroup;
    ColumnSummary summary;
    summary.coveredBefore.resize(groups + 1);
    summary.groupEnd.resize(groups);
    int64_t covered = 0;
    for (size_t g = 0; g < groups; ++g) {
        summary.coveredBefore[g] = covered;
        const size_t last = std::min(n, (g + 1) * kGroup);
        int64_t end = columns.end[g * kGroup];
        for (size_t k = g * kGroup; k < last; ++k) {
            covered += columns.end[k] - columns.start[k];
            end = std::max(end, columns.end[k]);
        }
        summary.groupEnd[g] = end;
    }
    summary.coveredBefore[groups] = covered;
    return summary;
}

const ColumnSummary& LodSummaries::of(const model::IntervalColumns& columns) {
    auto found = m_summaries.find(&columns);
    if (found == m_summaries.end())
        found = m_summaries.emplace(&columns, ColumnSummary::of(columns)).first;
    return found->second;
}

} // namespace stallscope::views
