#include "model/analysis/simulated_savings.h"

#include "format/session_meta.h"
#include "format/session_schema.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace stallscope::model {

GpuPowerCap gpuPowerCap(const Session& session, const InsightThresholds& thresholds) {
    GpuPowerCap cap;
    cap.busySamples = session.metaCount(format::meta::kGpuPowerBusySamples).value_or(-1);
    cap.cappedSamples = session.metaCount(format::meta::kGpuPowerCappedSamples).value_or(-1);
    cap.capped = cap.busySamples >= thresholds.powerCap.minBusySamples && cap.cappedSamples >= 0 &&
                 cap.cappedSamples <= cap.busySamples &&
                 static_cast<double>(cap.cappedSamples) >=
                     thresholds.powerCap.minCappedShare * static_cast<double>(cap.busySamples);
    return cap;
}

int64_t savedAtPowerCap(int64_t filledIdleNs, const GpuPowerCap& cap,
                        const InsightThresholds& thresholds) {
    if (!cap.capped || filledIdleNs <= 0)
        return filledIdleNs;
    const double kept = 1.0 - std::clamp(thresholds.powerCap.slowdownShare, 0.0, 1.0);
    return std::llround(kept * static_cast<double>(filledIdleNs));
}

whatif::WhatIf siteFix(const Session& session, std::span<const EventRef> syncs,
                       SourceLanguage language, int64_t windowStartNs, int64_t windowEndNs) {
    whatif::WhatIf fix;
    for (const EventRef& sync : syncs) {
        const int64_t start = session.hostLanes[sync.lane].syncs.start[sync.index];
        if (start >= windowStartNs && start <= windowEndNs)
            fix.removedSyncs.push_back(sync);
    }
    fix.removeStatementTime = language == SourceLanguage::Python;
    return fix;
}

bool SimulatedSavings::build(const Session& session, const SessionDatabase& database,
                             const SyncSites& sites, int64_t windowStartNs, int64_t windowEndNs,
                             const InsightThresholds& thresholds, const std::atomic<bool>* cancel) {
    m_saving.assign(sites.siteCount(), -1);
    m_gpuTimeRemoved.assign(sites.siteCount(), 0);
    // The CUDA events (empty without the file or its events) are read from the database on
    // another thread while the graph's steps and streams are built; this thread does not use the
    // connection meanwhile.
    std::vector<CudaEventInfo> cudaEvents; // needed by the build only
    std::thread reader([&cudaEvents, &database] { cudaEvents = database.cudaEvents(); });
    m_graph = std::make_shared<whatif::RunGraph>();
    const bool built = m_graph->build(
        session,
        [&cudaEvents, &reader]() -> std::span<const CudaEventInfo> {
            reader.join();
            return cudaEvents;
        },
        cancel);
    if (reader.joinable())
        reader.join();
    if (!built)
        return false;

    whatif::ReplayOptions options;
    options.windowStartNs = windowStartNs;
    options.windowEndNs = windowEndNs;
    options.cancel = cancel;
    const whatif::Replayer replayer(*m_graph);

    // Sites worth a replay: the largest by blocked time (SyncSites' order).
    const auto windowNs = static_cast<double>(std::max<int64_t>(windowEndNs - windowStartNs, 1));
    std::vector<int32_t> chosen;
    for (size_t s = 0; s < sites.siteCount() &&
                       chosen.size() < static_cast<size_t>(thresholds.simulation.maxSites);
         ++s) {
        const SyncSiteStats& stats = sites.stats()[s];
        if (!stats.isUserFinding())
            continue;
        if (static_cast<double>(format::addSaturated(stats.blockedNs, stats.bubbleNs)) / windowNs <
            thresholds.simulation.minBlockedShare)
            break;
        chosen.push_back(static_cast<int32_t>(s));
    }
    // The unmodified replay is one more job for the two workers: the savings compare against it.
    // Both sides leave out the recorder's own cost where the session measured it.
    whatif::WhatIf withoutRecorder;
    withoutRecorder.withoutRecorderOverhead = true;
    whatif::ReplayResult baseline;
    std::vector<int64_t> replayedEnd(chosen.size(), 0);
    std::vector<char> replayed(chosen.size(), 0); // per chosen site, written by one worker
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i <= chosen.size(); i = next++) {
            if (i == chosen.size()) {
                baseline = replayer.replay(withoutRecorder, options);
                continue;
            }
            whatif::WhatIf changes =
                siteFix(session, sites.syncsOf(chosen[i]), sites.stats()[chosen[i]].site.language,
                        windowStartNs, windowEndNs);
            changes.withoutRecorderOverhead = true;
            if (changes.removedSyncs.empty()) {
                m_saving[chosen[i]] = 0;
                continue;
            }
            const whatif::ReplayResult after = replayer.replay(changes, options);
            if (after.cancelled)
                return;
            replayedEnd[i] = after.windowEndNs;
            replayed[i] = 1;
            m_gpuTimeRemoved[chosen[i]] = after.gpuTimeRemovedNs;
        }
    };
    std::thread helper;
    if (!chosen.empty() && std::thread::hardware_concurrency() > 1)
        helper = std::thread(work);
    work();
    if (helper.joinable())
        helper.join();
    if ((cancel && cancel->load()) || baseline.cancelled)
        return false;
    m_powerCap = gpuPowerCap(session, thresholds);
    for (size_t i = 0; i < chosen.size(); ++i) {
        if (!replayed[i])
            continue;
        int64_t saving = std::max<int64_t>(0, baseline.windowEndNs - replayedEnd[i]);
        // At the power cap, the GPU idle time the fix fills costs clock speed; GPU time the fix
        // removes (copies made pinned) is saved whole.
        const int64_t removed = m_gpuTimeRemoved[chosen[i]];
        if (saving > removed)
            saving = removed + savedAtPowerCap(saving - removed, m_powerCap, thresholds);
        m_saving[chosen[i]] = saving;
    }
    return true;
}

} // namespace stallscope::model
