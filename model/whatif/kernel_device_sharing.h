// Kernels that cannot run side by side on their GPU at their recorded speed. The replay keeps
// every operation's recorded duration and treats streams as independent, so once a fix lets two
// streams' kernels overlap, each would run as fast as it did alone. Two kernels run side by side
// at that speed only when each has SMs of its own: a kernel with more blocks than half its
// device's SMs fills it, and two such kernels share SMs and take as long together as one after
// the other (cu_pipeline_chunk_syncs in bench/RESULTS.md: two streams' 2.15 ms kernels of 128
// blocks on a 132-SM H100; the fix that let them overlap saved nothing).
//
// So each filling kernel follows the filling kernel of its device that started before it on
// another stream, when the recording shows them one after the other; kernels the recording shows
// overlapping ran side by side, and kernels of unknown grid or device size are left free.
// (GpuActivity's filling busy time asks another question, whether a kernel leaves any SM idle:
// blocks >= SMs.)
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace stallscope::model::whatif {

class RunGraph;

// Whether a kernel of `blocks` blocks fills a device of `smCount` SMs (both known: > 0).
inline bool fillsDevice(int64_t blocks, int64_t smCount) {
    return blocks > 0 && smCount > 0 && 2 * blocks > smCount;
}

// (operation, filling kernel it follows on its device), global operation ids, sorted by
// operation.
std::vector<std::pair<uint32_t, uint32_t>> kernelsFollowingOnTheirDevice(const RunGraph& graph);

} // namespace stallscope::model::whatif
