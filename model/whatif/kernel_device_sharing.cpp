// kernelsFollowingOnTheirDevice (kernel_device_sharing.h).
#include "model/whatif/kernel_device_sharing.h"

#include "model/whatif/run_graph.h"

#include <algorithm>
#include <tuple>
#include <vector>

namespace stallscope::model::whatif {

namespace {

// A filling kernel: its recorded start and end, global operation id and stream lane. Ordered by
// (start, end, operation): the order in which they took their device.
struct FillingKernel {
    int64_t start = 0;
    int64_t end = 0;
    uint32_t op = 0;
    size_t lane = 0;
    bool operator<(const FillingKernel& other) const {
        return std::tie(start, end, op) < std::tie(other.start, other.end, other.op);
    }
};

// One stream's filling kernels, in its FIFO order.
class FillingCursor {
public:
    FillingCursor(const RunGraph& graph, size_t lane, int64_t smCount)
        : m_graph(graph), m_lane(static_cast<int32_t>(lane)),
          m_kernels(graph.session().streamLanes[lane].kernels), m_smCount(smCount) {
        advance();
    }
    bool done() const { return m_next > m_graph.streams()[m_lane].ops.size(); }
    const FillingKernel& head() const { return m_head; }
    // To the stream's next filling kernel; false when it starts before the one it follows
    // (operations out of (start, end) order on their stream: the caller sorts instead).
    bool advance() {
        const RunGraph::Stream& stream = m_graph.streams()[m_lane];
        const FillingKernel previous = m_head;
        for (; m_next < stream.ops.size(); ++m_next) {
            const auto k = static_cast<uint32_t>(m_next);
            if (m_graph.opKind(m_lane, k) == RunGraph::OpKind::Kernel &&
                fillsDevice(m_kernels.blocksOf(m_graph.opIndex(m_lane, k)), m_smCount)) {
                m_head = {m_graph.opStart(m_lane, k), m_graph.opEnd(m_lane, k), stream.firstOp + k,
                          static_cast<size_t>(m_lane)};
                ++m_next;
                const bool inOrder = !m_started || !(m_head < previous);
                m_started = true;
                return inOrder;
            }
        }
        m_next = stream.ops.size() + 1; // done
        return true;
    }

private:
    const RunGraph& m_graph;
    int32_t m_lane;
    const KernelColumns& m_kernels;
    int64_t m_smCount;
    size_t m_next = 0;
    bool m_started = false;
    FillingKernel m_head;
};

// The pairs of one device's filling kernels in the order they took it: `onNext(kernel)` for each.
// The streams' own orders merged, without copying 100 M kernels to sort them; false when a stream
// is out of order.
template <typename OnNext>
bool mergeStreams(const RunGraph& graph, const std::vector<size_t>& lanes, int64_t smCount,
                  OnNext onNext) {
    std::vector<FillingCursor> cursors;
    cursors.reserve(lanes.size());
    for (const size_t lane : lanes)
        cursors.emplace_back(graph, lane, smCount);
    auto later = [&cursors](size_t a, size_t b) { return cursors[b].head() < cursors[a].head(); };
    std::vector<size_t> heap;
    for (size_t c = 0; c < cursors.size(); ++c)
        if (!cursors[c].done())
            heap.push_back(c);
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const size_t c = heap.back();
        onNext(cursors[c].head());
        if (!cursors[c].advance())
            return false;
        if (cursors[c].done())
            heap.pop_back();
        else
            std::push_heap(heap.begin(), heap.end(), later);
    }
    return true;
}

} // namespace

std::vector<std::pair<uint32_t, uint32_t>> kernelsFollowingOnTheirDevice(const RunGraph& graph) {
    const Session& session = graph.session();
    std::vector<std::vector<size_t>> lanesOfDevice(session.devices.size());
    for (size_t l = 0; l < graph.streams().size(); ++l) {
        const int32_t device = graph.streams()[l].device;
        if (device >= 0 && static_cast<size_t>(device) < session.devices.size())
            lanesOfDevice[device].push_back(l);
    }
    std::vector<std::pair<uint32_t, uint32_t>> follows;
    for (size_t d = 0; d < lanesOfDevice.size(); ++d) {
        const int64_t smCount = session.devices[d].smCount;
        const size_t before = follows.size();
        bool first = true;
        FillingKernel prior;
        auto follow = [&](const FillingKernel& kernel) {
            // On one stream they follow each other anyway; the recording shows them one after the
            // other, else they ran side by side.
            if (!first && prior.lane != kernel.lane && prior.end <= kernel.start)
                follows.emplace_back(kernel.op, prior.op);
            first = false;
            prior = kernel;
        };
        if (mergeStreams(graph, lanesOfDevice[d], smCount, follow))
            continue;
        // A stream out of order (equal starts, or a crafted file): every filling kernel sorted.
        follows.resize(before);
        first = true;
        std::vector<FillingKernel> kernels;
        for (const size_t lane : lanesOfDevice[d])
            for (FillingCursor cursor(graph, lane, smCount); !cursor.done(); cursor.advance())
                kernels.push_back(cursor.head());
        std::sort(kernels.begin(), kernels.end());
        for (const FillingKernel& kernel : kernels)
            follow(kernel);
    }
    std::sort(follows.begin(), follows.end());
    return follows;
}

} // namespace stallscope::model::whatif
