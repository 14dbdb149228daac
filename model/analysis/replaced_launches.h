// The launches a shape-static rewrite takes away (SyncFix::FixedShape: a boolean mask's
// `x[mask]`, `torch.nonzero`, `torch.unique`, `repeat_interleave` without output_size …). Such an
// op counts its output on the GPU, copies the count to the host and waits for it, then launches
// the kernels that fill an output of that size; its backward pass does the same on the autograd
// thread. The rewrite (ignore_index, torch.where, a mask as a weight, nonzero_static) drops that
// whole chain, not only the wait: on bench/corpus's bool_mask_loss each chain is about 15 µs of
// host time per kernel, the bulk of the measured saving.
#pragma once

#include "model/session/event_ref.h"
#include "model/whatif/run_graph.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace stallscope::model {

// Whether a kernel (its name as recorded, mangled or not) is part of a data-dependent-size op:
// CUB's count, scan, select, sort and unique kernels, ATen's nonzero, index, index-backward,
// masked-select and repeat_interleave kernels.
bool isDataDependentSizeKernel(std::string_view name);

// The launches (global step ids, sorted) of the chains around `syncs` inside the window: on each
// sync's thread, the steps before and after it whose kernels are data-dependent-size kernels, or
// that copy the count (a copy next to the chain), over at most `maxBridged` other steps in a row
// (the op's own elementwise kernels between them are kept: they cannot be told from the user's).
std::vector<uint32_t> replacedLaunchesOf(const whatif::RunGraph& graph,
                                         std::span<const EventRef> syncs, int64_t windowStartNs,
                                         int64_t windowEndNs, int maxBridged = 8);

} // namespace stallscope::model
