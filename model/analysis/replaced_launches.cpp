#include "model/analysis/replaced_launches.h"

#include <algorithm>
#include <unordered_map>

namespace stallscope::model {

namespace {

// Parts of the kernels' names, mangled ("…6select23DeviceSelectSweepKernel…") as demangled.
constexpr std::string_view kDataDependentSizeKernels[] = {
    // CUB: the count (a reduce or scan), the selection, sorting, run-length and unique passes.
    "DeviceReduceSingleTileKernel", "DeviceReduceKernel", "DeviceScanKernel",
    "DeviceScanInitKernel", "DeviceCompactInitKernel", "DeviceSelectSweepKernel", "DeviceRadixSort",
    "RadixSortSingleTile", "DeviceUniqueByKey", "DeviceRleSweep", "DeviceSegmentedRadixSort",
    // ATen: nonzero, advanced indexing and its backward, masked select/scatter,
    // repeat_interleave, unique's adjacent difference, bincount's histogram.
    "Nonzero", "nonzero", "write_indices", "index_elementwise_kernel", "vectorized_gather_kernel",
    "indexing_backward", "masked_select", "masked_scatter", "repeat_interleave",
    "compute_cuda_kernel", "adjacent_difference", "unique", "kernelHistogram1D"};

} // namespace

bool isDataDependentSizeKernel(std::string_view name) {
    return std::any_of(
        std::begin(kDataDependentSizeKernels), std::end(kDataDependentSizeKernels),
        [name](std::string_view part) { return name.find(part) != std::string_view::npos; });
}

std::vector<uint32_t> replacedLaunchesOf(const whatif::RunGraph& graph,
                                         std::span<const EventRef> syncs, int64_t windowStartNs,
                                         int64_t windowEndNs, int maxBridged) {
    const Session& session = graph.session();
    // The steps that might be in a chain: a reach of steps around each sync.
    const auto reach = static_cast<uint32_t>(4 * (maxBridged + 8));
    std::vector<uint32_t> near;
    std::vector<std::pair<int32_t, uint32_t>> origins; // (lane, lane-local step of the sync)
    for (const EventRef& sync : syncs) {
        const int64_t start = session.hostLanes[sync.lane].syncs.start[sync.index];
        const whatif::RunGraph::HostThread& thread = graph.threads()[sync.lane];
        const uint32_t step = thread.stepOfSync[sync.index];
        if (start < windowStartNs || start > windowEndNs || step == whatif::kNone)
            continue;
        origins.emplace_back(sync.lane, step);
        const uint32_t from = step > reach ? step - reach : 0;
        const uint32_t to = std::min<uint32_t>(step + reach, thread.steps.size() - 1);
        for (uint32_t s = from; s <= to; ++s)
            near.push_back(thread.firstStep + s);
    }
    std::sort(near.begin(), near.end());
    near.erase(std::unique(near.begin(), near.end()), near.end());
    if (near.empty())
        return {};
    // What each of those steps launched: a data-dependent-size kernel (1), a copy (2), other (3).
    std::unordered_map<uint32_t, uint8_t> launched;
    for (size_t lane = 0; lane < graph.streams().size(); ++lane) {
        const whatif::RunGraph::Stream& stream = graph.streams()[lane];
        const StreamLane& columns = session.streamLanes[lane];
        for (uint32_t k = 0; k < stream.ops.size(); ++k) {
            const uint32_t step = graph.launchStep(stream.firstOp + k);
            if (step == whatif::kNone || !std::binary_search(near.begin(), near.end(), step))
                continue;
            const auto l = static_cast<int32_t>(lane);
            uint8_t what = 3;
            if (graph.opKind(l, k) == whatif::RunGraph::OpKind::Memcpy)
                what = 2;
            else if (graph.opKind(l, k) == whatif::RunGraph::OpKind::Kernel &&
                     isDataDependentSizeKernel(
                         session.string(columns.kernels.nameId[graph.opIndex(l, k)])))
                what = 1;
            uint8_t& seen = launched[step];
            seen = seen == 0 ? what : std::min(seen, what);
        }
    }
    // From each sync outwards: the chain's steps, bridging a few others.
    std::vector<uint32_t> replaced;
    for (const auto& [lane, origin] : origins) {
        const whatif::RunGraph::HostThread& thread = graph.threads()[lane];
        for (const int direction : {-1, 1}) {
            int bridged = 0;
            for (int64_t s = static_cast<int64_t>(origin) + direction;
                 s >= 0 && s < static_cast<int64_t>(thread.steps.size()) && bridged <= maxBridged;
                 s += direction) {
                const uint32_t global = thread.firstStep + static_cast<uint32_t>(s);
                // Another sync ends the chain: the op's next call, or another op's.
                if (thread.steps[s] & whatif::RunGraph::kSyncStep ||
                    std::binary_search(thread.stepOfSync.begin(), thread.stepOfSync.end(),
                                       static_cast<uint32_t>(s)))
                    break;
                const auto found = launched.find(global);
                const uint8_t what = found == launched.end() ? 0 : found->second;
                if (what == 1 || (what == 2 && bridged == 0)) {
                    replaced.push_back(global);
                    bridged = 0;
                } else {
                    ++bridged;
                }
            }
        }
    }
    std::sort(replaced.begin(), replaced.end());
    replaced.erase(std::unique(replaced.begin(), replaced.end()), replaced.end());
    return replaced;
}

} // namespace stallscope::model
