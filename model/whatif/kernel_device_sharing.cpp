// kernelsFollowingOnTheirDevice (kernel_device_sharing.h).
#include "model/whatif/kernel_device_sharing.h"

#include "model/whatif/run_graph.h"

#include <algorithm>
#include <tuple>

namespace stallscope::model::whatif {

std::vector<std::pair<uint32_t, uint32_t>> kernelsFollowingOnTheirDevice(const RunGraph& graph) {
    const Session& session = graph.session();
    // Per device: (recorded start, recorded end, global operation, stream lane) of its filling
    // kernels.
    std::vector<std::vector<std::tuple<int64_t, int64_t, uint32_t, size_t>>> filling(
        session.devices.size());
    for (size_t l = 0; l < graph.streams().size(); ++l) {
        const RunGraph::Stream& stream = graph.streams()[l];
        if (stream.device < 0 || static_cast<size_t>(stream.device) >= session.devices.size())
            continue;
        const int64_t smCount = session.devices[stream.device].smCount;
        const KernelColumns& kernels = session.streamLanes[l].kernels;
        const auto lane = static_cast<int32_t>(l);
        for (uint32_t k = 0; k < stream.ops.size(); ++k)
            if (graph.opKind(lane, k) == RunGraph::OpKind::Kernel &&
                fillsDevice(kernels.blocksOf(graph.opIndex(lane, k)), smCount))
                filling[stream.device].emplace_back(graph.opStart(lane, k), graph.opEnd(lane, k),
                                                    stream.firstOp + k, l);
    }
    std::vector<std::pair<uint32_t, uint32_t>> follows;
    for (auto& kernels : filling) {
        std::sort(kernels.begin(), kernels.end());
        for (size_t i = 1; i < kernels.size(); ++i) {
            const auto& [start, end, op, lane] = kernels[i];
            const auto& prior = kernels[i - 1];
            // On one stream they follow each other anyway; the recording shows them one after the
            // other, else they ran side by side.
            if (std::get<3>(prior) != lane && std::get<1>(prior) <= start)
                follows.emplace_back(op, std::get<2>(prior));
        }
    }
    std::sort(follows.begin(), follows.end());
    return follows;
}

} // namespace stallscope::model::whatif
