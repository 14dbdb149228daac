#include "views/timeline/gpu_busy_track.h"

#include "model/session/session.h"

#include <algorithm>
#include <cmath>

namespace stallscope::views {

namespace {

// Adds `density` × (overlap of [x0, x1) with each pixel) to the pixels [x0, x1) touches.
void addSpan(std::vector<double>& pixels, double x0, double x1, double density) {
    const int width = static_cast<int>(pixels.size());
    const int first = std::max(0, static_cast<int>(std::floor(x0)));
    const int last = std::min(width - 1, static_cast<int>(std::ceil(x1)) - 1);
    for (int p = first; p <= last; ++p) {
        const double overlap = std::min(x1, p + 1.0) - std::max(x0, static_cast<double>(p));
        if (overlap > 0)
            pixels[p] += overlap * density;
    }
}

} // namespace

std::vector<int32_t> GpuBusyTrack::streamLanesOf(const model::Session& session, int32_t device) {
    std::vector<int32_t> lanes;
    for (size_t s = 0; s < session.streamLanes.size(); ++s) {
        const int32_t stream = session.streamLanes[s].streamIndex;
        const bool known = stream >= 0 && static_cast<size_t>(stream) < session.streams.size();
        const int32_t owner = known ? session.streams[stream].deviceIndex : -1;
        if (owner == device || (device < 0 && owner < 0))
            lanes.push_back(static_cast<int32_t>(s));
    }
    return lanes;
}

void GpuBusyTrack::addRun(std::vector<double>& pixels, const MergedRun& run) {
    if (run.count == 1) {
        addSpan(pixels, run.x0, run.x1, 1.0);
        return;
    }
    // A merged run starts inside one pixel column; its events' summed time is spread evenly
    // from its first start to its furthest end (at least that one column).
    const double x1 = std::max(run.x1, std::floor(run.x0) + 1.0);
    const double span = x1 - run.x0;
    addSpan(pixels, run.x0, x1, std::min(1.0, run.coveredPx / span));
}

void GpuBusyTrack::addLane(std::vector<double>& pixels, const model::Session& session,
                           int32_t streamLane, const TimelineViewport& viewport) {
    const model::StreamLane& stream = session.streamLanes[streamLane];
    for (const model::IntervalColumns* columns :
         {static_cast<const model::IntervalColumns*>(&stream.kernels),
          static_cast<const model::IntervalColumns*>(&stream.memcpys),
          static_cast<const model::IntervalColumns*>(&stream.memsets)})
        forEachMergedRun(*columns, viewport, [&](const MergedRun& run) { addRun(pixels, run); });
}

std::vector<float> GpuBusyTrack::finish(const std::vector<double>& pixels) {
    std::vector<float> result(pixels.size());
    for (size_t p = 0; p < pixels.size(); ++p)
        result[p] = static_cast<float>(std::clamp(pixels[p], 0.0, 1.0));
    return result;
}

std::vector<float> GpuBusyTrack::compute(const model::Session& session, int32_t device,
                                         const TimelineViewport& viewport) {
    std::vector<double> pixels(static_cast<size_t>(viewport.width()), 0.0);
    for (int32_t lane : streamLanesOf(session, device))
        addLane(pixels, session, lane, viewport);
    return finish(pixels);
}

} // namespace stallscope::views
