#include "recorder/flight_recorder.h"

#include <algorithm>
#include <cstdio>

namespace stallscope::recorder {

namespace {

// "4.21 s", "812.3 ms", "35.0 us": a step's length in a snapshot's reason.
std::string stepText(int64_t ns) {
    char text[32];
    if (ns >= 1'000'000'000)
        snprintf(text, sizeof(text), "%.2f s", double(ns) / 1e9);
    else if (ns >= 1'000'000)
        snprintf(text, sizeof(text), "%.1f ms", double(ns) / 1e6);
    else
        snprintf(text, sizeof(text), "%.1f us", double(ns) / 1e3);
    return text;
}

} // namespace

void StepClock::syncBegan(int64_t stackId, int64_t startNs) {
    if (stackId < 0)
        return; // no stack (--no-stacks): no site to tell steps by
    Site& site = m_sites[stackId];
    if (m_clock && stackId != *m_clock) {
        const Site& clock = m_sites.at(*m_clock);
        if (site.lastStartNs < clock.lastStartNs - clock.stepsNs) // not during the clock's window
            site.outsideSinceNs = startNs;
        else if (site.outsideSinceNs >= 0) // its second sync out there: the program left the loop
            m_outsideLoopNs = std::max(m_outsideLoopNs, site.outsideSinceNs);
    }
    ++site.syncs;
    if (site.lastStartNs >= 0 && startNs > site.lastStartNs) {
        site.steps.push_back(startNs - site.lastStartNs);
        site.stepsNs += site.steps.back();
        if (site.steps.size() > kWindow) {
            site.stepsNs -= site.steps.front();
            site.steps.pop_front();
        }
    }
    if (startNs > site.lastStartNs)
        site.lastStartNs = startNs; // syncs of several threads may come slightly out of order
}

int64_t StepClock::median(const std::deque<int64_t>& steps, size_t skipLast) {
    std::vector<int64_t> sorted(steps.begin(), steps.end() - std::ptrdiff_t(skipLast));
    if (sorted.empty())
        return 0;
    std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2),
                     sorted.end());
    return sorted[sorted.size() / 2];
}

bool StepClock::regular(const Site& site) {
    if (site.steps.size() < kMinSteps)
        return false;
    const int64_t middle = median(site.steps);
    const auto near = std::count_if(site.steps.begin(), site.steps.end(), [middle](int64_t step) {
        return step * 2 >= middle && step <= middle * 2;
    });
    return double(near) >= kRegularShare * double(site.steps.size());
}

std::optional<int64_t> StepClock::clockStack() const {
    std::optional<int64_t> best;
    int64_t bestSyncs = 0;
    for (const auto& [stackId, site] : m_sites)
        if ((site.syncs > bestSyncs || (site.syncs == bestSyncs && best && stackId < *best)) &&
            regular(site)) {
            best = stackId;
            bestSyncs = site.syncs;
        }
    return best;
}

int64_t StepClock::medianStepNs(int64_t stackId) const {
    const auto found = m_sites.find(stackId);
    return found == m_sites.end() ? 0 : median(found->second.steps);
}

std::optional<StepClock::SlowStep> StepClock::slowStep(int64_t seenUpToNs) {
    if (m_factor <= 0)
        return std::nullopt;
    // The clock is chosen among sites regular so far; the step just ended is left out of the
    // median it is held against.
    const std::optional<int64_t> clock = clockStack();
    m_clock = clock;
    if (!clock)
        return std::nullopt;
    const Site& site = m_sites.at(*clock);
    const int64_t last = site.steps.back();
    const int64_t before = median(site.steps, 1);
    const double limit = m_factor * double(before);
    SlowStep slow{*clock, site.lastStartNs - last, last, before, false};
    if (double(last) <= limit) {
        // The step under way: no sync of the clock has ended since lastStartNs.
        const int64_t running = seenUpToNs - site.lastStartNs;
        if (double(running) <= limit)
            return std::nullopt;
        slow = {*clock, site.lastStartNs, running, before, true};
    }
    if (slow.startNs == m_reportedStepStartNs || m_outsideLoopNs >= slow.startNs)
        return std::nullopt; // reported already, or the program left the loop in it
    m_reportedStepStartNs = slow.startNs;
    return slow;
}

void FlightRecorder::written(int64_t nowNs, const format::SessionWriter::RowMarks& marks) {
    m_marks.push_back({nowNs, marks});
}

std::optional<FlightRecorder::Cut> FlightRecorder::cutDue(int64_t nowNs) {
    std::optional<Cut> due;
    while (!m_marks.empty() && m_marks.front().atNs <= nowNs - m_ringNs) {
        due = m_marks.front();
        m_marks.pop_front();
    }
    return due;
}

std::optional<std::string> FlightRecorder::slowStepTrigger(int64_t seenUpToNs) {
    if (m_snapshots >= kMaxSnapshots)
        return std::nullopt;
    const std::optional<StepClock::SlowStep> slow = m_clock.slowStep(seenUpToNs);
    if (!slow)
        return std::nullopt;
    char factor[32];
    snprintf(factor, sizeof(factor), "%.1f", double(slow->lengthNs) / double(slow->medianNs));
    return "slow step: " + stepText(slow->lengthNs) + (slow->stillRunning ? " and running" : "") +
           ", " + factor + "x the median step of " + stepText(slow->medianNs);
}

bool FlightRecorder::takeSnapshot() {
    if (m_snapshots >= kMaxSnapshots)
        return false;
    ++m_snapshots;
    return true;
}

} // namespace stallscope::recorder
