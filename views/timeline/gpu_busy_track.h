// GpuBusyTrack: per pixel column, the share of time a device has GPU work (kernels, copies,
// memsets on any of its streams). Computed per draw-list build from the level-of-detail runs of
// the device's stream lanes, so its cost follows pixels like the lanes': a run's summed durations
// (MergedRun::coveredPx) are spread over the pixels it spans.
//
// Concurrent streams add up and are capped at 1: inside one pixel, work overlapping in time on
// two streams counts twice until the cap, so a partly busy pixel may read high when streams
// overlap. Events wider than a pixel are exact.
#pragma once

#include "views/timeline/lod_merge.h"
#include "views/timeline/timeline_viewport.h"

#include <cstdint>
#include <vector>

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

class GpuBusyTrack {
public:
    // Stream lanes (Session::streamLanes indexes) of `device`; -1: streams without a device.
    static std::vector<int32_t> streamLanesOf(const model::Session& session, int32_t device);
    // viewport.width() values in [0, 1].
    static std::vector<float> compute(const model::Session& session, int32_t device,
                                      const TimelineViewport& viewport);

    // The pieces, for DrawList::build, which feeds the runs it merges for the stream lanes anyway
    // (one LOD pass per column serves both the lane and the track). `pixels` holds
    // viewport.width() sums of covered pixel shares.
    static void addRun(std::vector<double>& pixels, const MergedRun& run);
    static void addLane(std::vector<double>& pixels, const model::Session& session,
                        int32_t streamLane, const TimelineViewport& viewport);
    static std::vector<float> finish(const std::vector<double>& pixels);
};

} // namespace stallscope::views
