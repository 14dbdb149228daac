#include "model/analysis/host_samples.h"

#include <algorithm>
#include <string>

namespace stallscope::model {

void HostSamples::build(const Session& session, const SessionDatabase& database,
                        const std::unordered_map<int64_t, ModuleLocation>& modules) {
    m_session = &session;
    m_lines.clear();
    m_lineOfRun.assign(session.hostLanes.size(), {});
    std::unordered_map<uint32_t, int32_t> lineOfStack;
    std::map<std::string, int32_t> lineByKey;
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const SampleColumns& samples = session.hostLanes[l].samples;
        std::vector<int32_t>& lineOfRun = m_lineOfRun[l];
        lineOfRun.reserve(samples.size());
        for (const uint32_t stack : samples.stackId) {
            auto [known, added] = lineOfStack.try_emplace(stack, -1);
            if (added) {
                const SourceSite site = SyncSites::resolve(database.stack(stack), modules);
                if (site.language == SourceLanguage::Python && site.hasLocation()) {
                    const std::string key = site.label();
                    auto [line, isNew] =
                        lineByKey.try_emplace(key, static_cast<int32_t>(m_lines.size()));
                    if (isNew)
                        m_lines.push_back(site);
                    known->second = line->second;
                }
            }
            lineOfRun.push_back(known->second);
        }
    }
}

int64_t HostSamples::tally(int32_t lane, int64_t from, int64_t to,
                           std::map<int32_t, int64_t>& perLine) const {
    if (!m_session || lane < 0 || static_cast<size_t>(lane) >= m_lineOfRun.size() || to <= from)
        return 0;
    const SampleColumns& samples = m_session->hostLanes[lane].samples;
    int64_t total = 0;
    // A run of one sample has end == start: it may lie in [from, to) when its end is `from`.
    for (size_t i = samples.firstEndingAfter(from - 1); i < samples.size() && samples.start[i] < to;
         ++i) {
        const int64_t n = samples.samplesIn(i, from, to);
        if (n == 0)
            continue;
        total += n;
        if (const int32_t line = m_lineOfRun[lane][i]; line >= 0)
            perLine[line] += n;
    }
    return total;
}

std::vector<std::pair<int32_t, int64_t>> namedLines(const std::map<int32_t, int64_t>& perLine,
                                                    int64_t total, int64_t minSamples,
                                                    double minShare, int maxLines) {
    std::vector<std::pair<int32_t, int64_t>> named;
    if (total <= 0 || total < minSamples)
        return named;
    for (const auto& [line, samples] : perLine)
        if (static_cast<double>(samples) >= minShare * static_cast<double>(total))
            named.emplace_back(line, samples);
    std::stable_sort(named.begin(), named.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (named.size() > static_cast<size_t>(std::max(maxLines, 0)))
        named.resize(static_cast<size_t>(std::max(maxLines, 0)));
    return named;
}

} // namespace stallscope::model
