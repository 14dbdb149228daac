// MeasuredRecorderCost: what the recorder cost the recorded program, measured in the program
// itself by the recorder's overhead probe (format/overhead_probe.h): in each stretch with its
// collection off, the interval between two calls of the loop's sync API, held against the same
// interval recorded in the stretches beside it. The difference, over the GPU-launching calls the
// recording shows in such an interval, is what the recorder added to each launching call; the
// replays take that out (Latencies::recorderLaunchNs) in place of the calibration probe's figure,
// which a C++ loop measured on the machine, not this program.
#pragma once

#include "model/session/session.h"

#include <cstdint>
#include <span>
#include <vector>

namespace stallscope::model::whatif {

struct RecorderCostComparison {
    int64_t offIntervalNs = 0;      // between two calls of the probe's API, collection off
    int64_t onIntervalNs = 0;       // the same, recorded, beside it
    double launchesPerInterval = 0; // GPU-launching calls recorded in one such interval
    double slowdown() const {
        return offIntervalNs > 0
                   ? static_cast<double>(onIntervalNs) / static_cast<double>(offIntervalNs)
                   : 1.0;
    }
    // What the recorder added to each launching call (0 when the recorded run was as fast).
    int64_t launchCostNs() const;
};

struct MeasuredRecorderCost {
    std::vector<RecorderCostComparison> comparisons;
    bool measured() const { return !comparisons.empty(); }
    // The medians over the comparisons, and the spread of the slowdown (a noisy run's range).
    int64_t launchCostNs() const;
    double slowdown() const;
    double lowestSlowdown() const;
    double highestSlowdown() const;
    std::vector<double> slowdowns() const; // one per comparison
    // The comparisons disagree by more than kNoisyProbeSpread: the run's own speed varied that
    // much, and the cost is a range, not a figure.
    bool noisy() const;
};

// How far apart the slowest and fastest comparison's slowdowns may be (0.2: 20 points) before
// the measurement is called noisy.
inline constexpr double kNoisyProbeSpread = 0.2;
// The fewest calls a stretch must count (on or off) for its interval to count.
inline constexpr int64_t kMinProbeCalls = 3;

// The session's probe held against its recorded calls; `launchingCallStarts`: the start of every
// recorded call that launched GPU work, in order (RunGraph knows which did). Nothing measured when
// the session has no probe or its stretches counted too few calls.
MeasuredRecorderCost measureRecorderCost(const Session& session,
                                         std::span<const int64_t> launchingCallStarts);

} // namespace stallscope::model::whatif
