// One fact shared by the replay (WhatIf::graphGapNs) and the launch-bound rule's thresholds
// (InsightThresholds' launchBound.graphGapNs), in a header light enough for both.
#pragma once

#include <cstdint>

namespace stallscope::model::whatif {

// How long after its predecessor ends a node of a CUDA graph starts: the median is 128 ns in a
// graph of 6 nodes and 256 ns in one of 12 on an H100 and an H200 alike, measured on replayed
// torch.cuda.CUDAGraphs of tiny kernels and device-to-device copies (bench/RESULTS.md, "The
// CUDA-graph replay's launch, and shares without the recorder").
inline constexpr int64_t kGraphNodeGapNs = 250;

} // namespace stallscope::model::whatif
