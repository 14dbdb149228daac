// What a CUDA runtime or driver entry point does, told by its name (so versioned and
// per-thread-stream variants are covered without a list of ids): the one classification of API
// names that the recorder and the analysis share.
#pragma once

#include <string_view>

namespace stallscope::format {

// cudaMalloc*, cuMemAlloc*, cudaHostAlloc, cuMemHostAlloc, not the stream-ordered
// cudaMallocAsync / cuMemAllocAsync: an allocation that a buffer allocated once would not repeat.
constexpr bool isAllocationCall(std::string_view name) {
    const bool allocates = name.starts_with("cudaMalloc") || name.starts_with("cuMemAlloc") ||
                           name.starts_with("cudaHostAlloc") || name.starts_with("cuMemHostAlloc");
    return allocates && name.find("Async") == std::string_view::npos;
}

} // namespace stallscope::format
