// The flight recorder (stallscope-record --ring SECONDS, --trigger-slow-step K): a long job
// recorded with bounded memory and disk, keeping only its last seconds, and written out when
// something happens. Pure state, as CaptureControl: no clock, no CUPTI, no SQL (RingDriver drives
// it from the recorder's writer thread and applies its answers: ring_driver.cpp).
//
// The ring: the session file is written as usual, and every commit leaves a mark — the time, and
// the last row id of each table (format::SessionWriter::RowMarks). Everything that had ended by a
// mark's time was written by then, so once a mark is older than the ring, the rows up to it can
// go and what remains is whole from the mark's time on.
//
// The slow-step trigger (StepClock): a training loop syncs at the same place once a step (the
// loss's .item(), a stream sync). The most frequent call stack whose syncs come at regular
// intervals is taken as the loop's clock, and a step is the time between two of its syncs'
// starts. A step longer than K times the median of the last ones, or one still running that long
// (a hang), asks for a snapshot — unless the program left the loop during it (an evaluation, a
// checkpoint, the end of training): a site that had not synced during the clock's last kWindow
// steps synced again and again, so the step's length says nothing about the loop. One such sync
// alone (a rare branch of the step) leaves the step a step.
#pragma once

#include "format/session_writer.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace stallscope::recorder {

class StepClock {
public:
    // Steps a site must have before it can be the clock, and the steps its median is taken over.
    static constexpr size_t kMinSteps = 16;
    static constexpr size_t kWindow = 64;
    // A site is regular when at least this share of its steps lie within half and twice their
    // median: a loop's one sync a step, not a site called at varying points of it.
    static constexpr double kRegularShare = 0.8;

    struct SlowStep {
        int64_t stackId = 0;
        int64_t startNs = 0;  // the step's start (its clock sync's)
        int64_t lengthNs = 0; // how long it took (or has taken, when still running)
        int64_t medianNs = 0; // the median step before it
        bool stillRunning = false;
    };

    explicit StepClock(double factor = 0) : m_factor(factor) {}
    // A sync (or blocking copy) at call stack `stackId` began at startNs. Whether it lies outside
    // the loop is judged against the clock that the last slowStep chose.
    void syncBegan(int64_t stackId, int64_t startNs);
    // Every sync that ended by seenUpToNs has been passed to syncBegan. A step of the clock
    // slower than the factor, once: the same step is not reported again.
    std::optional<SlowStep> slowStep(int64_t seenUpToNs);
    // The clock's stack, if a site qualifies; and its median step.
    std::optional<int64_t> clockStack() const;
    int64_t medianStepNs(int64_t stackId) const;

private:
    struct Site {
        int64_t syncs = 0;
        int64_t lastStartNs = -1;
        std::deque<int64_t> steps;   // the last kWindow steps
        int64_t stepsNs = 0;         // their sum
        int64_t outsideSinceNs = -1; // its last sync outside the loop
    };
    static int64_t median(const std::deque<int64_t>& steps, size_t skipLast = 0);
    static bool regular(const Site& site);

    double m_factor;
    std::unordered_map<int64_t, Site> m_sites;
    int64_t m_reportedStepStartNs = -1; // the step reported last
    std::optional<int64_t> m_clock;     // the clock slowStep chose last
    int64_t m_outsideLoopNs = -1;       // the program's last excursion from the loop began then
};

class FlightRecorder {
public:
    // At most this many snapshots a process: each is a file the size of the ring.
    static constexpr int kMaxSnapshots = 16;

    struct Cut {
        int64_t atNs = 0;
        format::SessionWriter::RowMarks marks{};
    };

    FlightRecorder(int64_t ringNs, double slowStepFactor)
        : m_ringNs(ringNs), m_clock(slowStepFactor) {}

    int64_t ringNs() const { return m_ringNs; }
    StepClock& clock() { return m_clock; }
    // Everything that ended by nowNs has been written, up to `marks`.
    void written(int64_t nowNs, const format::SessionWriter::RowMarks& marks);
    // The newest mark older than the ring (nowNs - ringNs), and those before it dropped: the
    // rows it marks can go. Nothing when no mark is that old.
    std::optional<Cut> cutDue(int64_t nowNs);

    // Why to write a snapshot now ("slow step: …"), when the step clock (which has no factor
    // without --trigger-slow-step) says so and a snapshot may be taken; nothing otherwise.
    // seenUpToNs as for StepClock::slowStep.
    std::optional<std::string> slowStepTrigger(int64_t seenUpToNs);
    // Whether another snapshot may be written (kMaxSnapshots); counts the one about to be.
    bool takeSnapshot();
    int snapshots() const { return m_snapshots; }

private:
    int64_t m_ringNs;
    StepClock m_clock;
    std::deque<Cut> m_marks; // oldest first
    int m_snapshots = 0;
};

} // namespace stallscope::recorder
