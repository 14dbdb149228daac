// HostSamples: the Python sampler's samples (format v3, HostLane::samples) with each sampled stack
// resolved to a line — the site SyncSites::resolve gives a stack: the user's Python frame, with the
// library frame inside it — so that host time with no CUDA call in it gets a line: the
// straggler's host gap (insight_rank_rules.cpp) and the GPU's idle time (the host-gap finding,
// insight_host_rules.cpp). docs/insights.md, "Sampled lines". Built once per analysis.
#pragma once

#include "model/analysis/insight.h"
#include "model/analysis/sync_sites.h"
#include "model/session/session.h"
#include "model/session/session_database.h"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace stallscope::model {

class HostSamples {
public:
    void build(const Session& session, const SessionDatabase& database,
               const std::unordered_map<int64_t, ModuleLocation>& modules);

    bool empty() const { return m_lines.empty(); }
    // The sampled lines; indexes below refer to this vector.
    const std::vector<SourceSite>& lines() const { return m_lines; }
    // Adds the samples of host lane `lane` that lie in [from, to) to `perLine` (line index ->
    // samples) and returns how many there were (samples without a line count, in no line).
    int64_t tally(int32_t lane, int64_t from, int64_t to,
                  std::map<int32_t, int64_t>& perLine) const;

private:
    const Session* m_session = nullptr;
    std::vector<SourceSite> m_lines;
    std::vector<std::vector<int32_t>> m_lineOfRun; // per host lane, per run; -1: no line
};

// The sampled lines of a tally worth naming, most samples first: at least `minShare` of the
// `total` samples each, at most `maxLines`; none when total < minSamples.
std::vector<std::pair<int32_t, int64_t>> namedLines(const std::map<int32_t, int64_t>& perLine,
                                                    int64_t total, int64_t minSamples,
                                                    double minShare, int maxLines);

} // namespace stallscope::model
