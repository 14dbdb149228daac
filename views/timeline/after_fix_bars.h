// AfterFixBars: the timeline's "after fix" ghosts. A finding's what-if replay (model/whatif) moves
// the GPU operations; the ghosts are the moved operations' replayed intervals, drawn as
// translucent outlines in their own stream lanes over the recorded bars. The replay's
// per-operation shifts are shared, never copied; per viewport, a lane yields at most one ghost per
// pixel column (a run of sub-pixel operations merges, as in lod_merge.h), so the cost follows
// pixels, not operations.
#pragma once

#include "model/session/event_ref.h"
#include "model/whatif/replay.h"
#include "model/whatif/run_graph.h"
#include "views/timeline/timeline_layout.h"
#include "views/timeline/timeline_viewport.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace stallscope::views {

// One finding's replayed run: the graph it was replayed on and the replay (with keepShifts).
struct AfterFix {
    std::shared_ptr<const model::whatif::RunGraph> graph;
    std::shared_ptr<const model::whatif::ReplayResult> replay;
    int64_t savingNs = 0; // the finding's simulated saving: the legend's number

    // A graph and a replay that kept a start and an end shift per operation.
    bool isValid() const;
};

struct GhostBlock {
    float x0 = 0;         // canvas x of the first operation's replayed start
    float x1 = 0;         // canvas x of the furthest replayed end, at least x0 + 1
    uint32_t lane = 0;    // index into TimelineLayout::lanes()
    uint32_t firstOp = 0; // lane-local operation index (RunGraph::Stream::ops)
    uint32_t count = 0;   // operations merged into this ghost
};

class AfterFixBars {
public:
    // The replayed [start, end) of operation `op` of stream lane `lane`.
    static std::pair<int64_t, int64_t> replayed(const AfterFix& fix, int32_t lane, uint32_t op);
    // The lane-local operation of a kernel, memcpy or memset, or nothing for other events.
    static std::optional<uint32_t> operationOf(const model::whatif::RunGraph& graph,
                                               const model::EventRef& event);
    // The ghosts of the stream lanes of `layout` visible in `viewport`, lane by lane, in start
    // order. Operations the replay left in place get none.
    static std::vector<GhostBlock> build(const AfterFix& fix, const TimelineLayout& layout,
                                         const TimelineViewport& viewport);
};

} // namespace stallscope::views
