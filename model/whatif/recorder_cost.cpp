#include "model/whatif/recorder_cost.h"

#include "format/session_meta.h"
#include "model/whatif/median_sample.h"

#include <algorithm>
#include <cmath>

namespace stallscope::model::whatif {

namespace {

// The starts of every recorded call named `nameId`, over all host lanes, in order.
std::vector<int64_t> callStarts(const Session& session, uint32_t nameId) {
    std::vector<int64_t> starts;
    for (const HostLane& lane : session.hostLanes)
        for (size_t i = 0; i < lane.apiCalls.size(); ++i)
            if (lane.apiCalls.nameId[i] == nameId)
                starts.push_back(lane.apiCalls.start[i]);
    std::sort(starts.begin(), starts.end());
    return starts;
}

} // namespace

int64_t RecorderCostComparison::launchCostNs() const {
    if (launchesPerInterval <= 0 || onIntervalNs <= offIntervalNs)
        return 0;
    return std::llround(static_cast<double>(onIntervalNs - offIntervalNs) / launchesPerInterval);
}

int64_t MeasuredRecorderCost::launchCostNs() const {
    std::vector<int64_t> costs;
    for (const RecorderCostComparison& comparison : comparisons)
        costs.push_back(comparison.launchCostNs());
    return std::min(upperMedian(costs), format::meta::kMaxRecorderOverheadNs);
}

std::vector<double> MeasuredRecorderCost::slowdowns() const {
    std::vector<double> slowdowns;
    for (const RecorderCostComparison& comparison : comparisons)
        slowdowns.push_back(comparison.slowdown());
    return slowdowns;
}

double MeasuredRecorderCost::slowdown() const {
    std::vector<double> all = slowdowns();
    return upperMedian(all);
}

double MeasuredRecorderCost::lowestSlowdown() const {
    const std::vector<double> all = slowdowns();
    return all.empty() ? 1.0 : *std::min_element(all.begin(), all.end());
}

double MeasuredRecorderCost::highestSlowdown() const {
    const std::vector<double> all = slowdowns();
    return all.empty() ? 1.0 : *std::max_element(all.begin(), all.end());
}

bool MeasuredRecorderCost::noisy() const {
    return highestSlowdown() - lowestSlowdown() > kNoisyProbeSpread;
}

MeasuredRecorderCost measureRecorderCost(const Session& session,
                                         std::span<const int64_t> launchingCallStarts) {
    MeasuredRecorderCost cost;
    if (!session.overheadProbe)
        return cost;
    const auto name =
        std::find(session.strings.begin(), session.strings.end(), session.overheadProbe->api);
    if (name == session.strings.end())
        return cost;
    const std::vector<int64_t> starts =
        callStarts(session, static_cast<uint32_t>(name - session.strings.begin()));
    for (const format::OverheadProbeRecord::OffPhase& off : session.overheadProbe->offPhases) {
        if (off.calls < kMinProbeCalls || off.lastCallNs <= off.firstCallNs)
            continue;
        const int64_t offInterval = (off.lastCallNs - off.firstCallNs) / (off.calls - 1);
        const int64_t lengthNs = off.endNs - off.startNs;
        // The recorded stretches of the same length just before and just after it.
        for (const TimeSpan beside : {TimeSpan{off.startNs - lengthNs, off.startNs},
                                      TimeSpan{off.endNs, off.endNs + lengthNs}}) {
            if (session.notRecordedNsWithin(beside.startNs, beside.endNs) > 0)
                continue; // another stretch of the probe, or capture control's
            const auto first = std::lower_bound(starts.begin(), starts.end(), beside.startNs);
            const auto end = std::lower_bound(first, starts.end(), beside.endNs);
            const int64_t calls = end - first;
            if (calls < kMinProbeCalls || *(end - 1) <= *first)
                continue;
            RecorderCostComparison comparison;
            comparison.offIntervalNs = offInterval;
            comparison.onIntervalNs = (*(end - 1) - *first) / (calls - 1);
            const auto launches =
                std::lower_bound(launchingCallStarts.begin(), launchingCallStarts.end(),
                                 *(end - 1)) -
                std::lower_bound(launchingCallStarts.begin(), launchingCallStarts.end(), *first);
            comparison.launchesPerInterval =
                static_cast<double>(launches) / static_cast<double>(calls - 1);
            cost.comparisons.push_back(comparison);
        }
    }
    return cost;
}

} // namespace stallscope::model::whatif
