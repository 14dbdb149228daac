#include "views/timeline/draw_list.h"

#include "format/session_schema.h"
#include "model/session/collective_names.h"
#include "model/session/session.h"
#include "model/session/session_summary.h"
#include "views/timeline/event_style.h"
#include "views/timeline/gpu_busy_track.h"
#include "views/timeline/lod_merge.h"
#include "views/timeline/timeline_palette.h"

#include <algorithm>

namespace stallscope::views {

namespace {

// "void at::native::vectorized_elementwise_kernel<4, Relu>(int, ...)" ->
// "vectorized_elementwise_kernel": the part of a demangled kernel name that helps inside a block
// (the full name is one hover away).
QString shortKernelName(const std::string& name) {
    QString text = kernelDisplayName(name);
    text.replace(QLatin1String("(anonymous namespace)"), QLatin1String("anon"));
    if (text.startsWith(QLatin1String("void ")))
        text.remove(0, 5);
    int scopeEnd = 0;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c == QLatin1Char('<') || c == QLatin1Char('(')) {
            text.truncate(i);
            break;
        }
        if (c == QLatin1Char(':') && i + 1 < text.size() && text[i + 1] == QLatin1Char(':'))
            scopeEnd = i + 2;
    }
    const QString base = text.mid(scopeEnd);
    return base.isEmpty() ? QString::fromStdString(name) : base;
}

// Whether a sync overlaps [startNs, endNs), asked with ascending startNs (a lane's runs in order):
// the first sync that may overlap only moves forward, so each question goes on from the last
// answer instead of searching the column (SyncColumns::firstEndingAfter from scratch walks every
// sync of the longest one's duration, per block).
class SyncOverlap {
public:
    explicit SyncOverlap(const model::SyncColumns& syncs) : m_syncs(syncs) {}
    bool operator()(int64_t startNs, int64_t endNs) {
        const size_t n = m_syncs.size();
        // Syncs starting before startNs - maxDuration end by startNs: none overlaps.
        m_next = detail::gallopBy(m_next, n, startNs - m_syncs.maxDuration,
                                  [&](size_t i) { return m_syncs.start[i]; });
        while (m_next < n && m_syncs.end[m_next] <= startNs && m_syncs.start[m_next] < startNs)
            ++m_next;
        return m_next < n && m_syncs.start[m_next] < endNs;
    }

private:
    const model::SyncColumns& m_syncs;
    size_t m_next = 0; // SyncColumns::firstEndingAfter(the last startNs asked)
};

} // namespace

DrawList DrawList::build(const model::Session& session, const TimelineLayout& layout,
                         const TimelineViewport& viewport, int rowsTop, int rowsBottom,
                         LodSummaries* summaries) {
    DrawList list;
    list.m_viewport = viewport;
    list.m_summaries = summaries;
    list.m_rowsTop = rowsTop;
    list.m_rowsBottom = rowsBottom;
    const auto& lanes = layout.lanes();
    auto shown = [&](const TimelineLane& lane) {
        return lane.y < rowsBottom && lane.y + lane.height > rowsTop;
    };
    list.m_laneBegin.reserve(lanes.size() + 1);
    list.m_busyPixels.resize(session.devices.size() + 1);
    list.m_streamFed.assign(session.streamLanes.size(), false);
    list.m_kernelColors.assign(session.strings.size(), 0);
    for (const TimelineLane& lane : lanes)
        if (lane.kind == LaneKind::GpuBusy && shown(lane))
            list.m_busyPixels[list.busyKey(session, lane.source)].assign(
                static_cast<size_t>(viewport.width()), 0.0);
    // About a block per pixel of each lane shown at low zoom: one allocation, not a dozen.
    const auto shownLanes = std::count_if(lanes.begin(), lanes.end(), shown);
    list.m_blocks.reserve(static_cast<size_t>(shownLanes) *
                          static_cast<size_t>(std::max(0, viewport.width())));
    for (size_t i = 0; i < lanes.size(); ++i) {
        list.m_laneBegin.push_back(static_cast<uint32_t>(list.m_blocks.size()));
        if (shown(lanes[i]))
            list.addLane(session, lanes[i], static_cast<uint32_t>(i));
    }
    list.m_laneBegin.push_back(static_cast<uint32_t>(list.m_blocks.size()));
    list.finishBusyTracks(session);
    list.m_kernelColors = {};
    list.m_summaries = nullptr;
    return list;
}

void DrawList::addLane(const model::Session& session, const TimelineLane& lane,
                       uint32_t laneIndex) {
    // Emits the merged runs of one column; colorOf(first) and labelOf(first) see the run's first
    // event, stallOf(run) says whether a stall lies inside.
    // GPU work also feeds its device's busy track from the same runs (null: no track shown).
    std::vector<double>* busy = nullptr;
    auto addRuns = [&](const model::IntervalColumns& columns, model::EventKind kind, auto&& colorOf,
                       auto&& labelOf, auto&& stallOf) {
        forEachMergedRun(columns, m_viewport, m_summaries, [&](const MergedRun& run) {
            if (busy)
                GpuBusyTrack::addRun(*busy, run);
            DrawBlock block;
            block.x0 = static_cast<float>(std::max(run.x0, -1.0));
            block.x1 = static_cast<float>(
                std::min(std::max(run.x1, run.x0 + 1.0), m_viewport.width() + 1.0));
            block.x1 = std::max(block.x1, block.x0 + 1.0f);
            block.lane = laneIndex;
            block.first = static_cast<uint32_t>(run.first);
            block.count = static_cast<uint32_t>(run.count);
            block.color = colorOf(run.first);
            block.kind = kind;
            block.stall = stallOf(run);
            if (run.x1 - run.x0 < 1.0 || run.count > 1) {
                const double span = std::max(1.0, static_cast<double>(block.x1 - block.x0));
                const double coverage = std::clamp(run.coveredPx / span, 0.0, 1.0);
                block.fill = static_cast<float>(kMinFill + (1.0 - kMinFill) * coverage);
            }
            m_blocks.push_back(block);
            if (run.count == 1 && block.x1 - block.x0 >= kMinLabelWidth) {
                QString text = labelOf(run.first);
                if (!text.isEmpty())
                    m_labels.push_back(
                        {block.x0, block.x1, laneIndex, block.color, std::move(text)});
            }
        });
    };
    auto name = [&](uint32_t id) { return QString::fromStdString(session.string(id)); };
    auto never = [](const MergedRun&) { return false; };

    switch (lane.kind) {
    case LaneKind::ProcessHeader:
    case LaneKind::DeviceHeader:
        return;
    case LaneKind::GpuBusy: { // values come from the stream lanes' runs: finishBusyTracks()
        BusyTrack track;
        track.lane = laneIndex;
        track.device = lane.source;
        m_busy.push_back(std::move(track));
        return;
    }
    case LaneKind::HostThread: {
        const model::HostLane& host = session.hostLanes[lane.source];
        const auto& calls = host.apiCalls;
        SyncOverlap overlapsSync(host.syncs);
        addRuns(
            calls, model::EventKind::ApiCall, [](size_t) { return TimelinePalette::apiCall(); },
            [&](size_t i) {
                // The sync painted over a blocking call carries the label instead.
                return overlapsSync(calls.start[i], calls.end[i]) ? QString()
                                                                  : name(calls.nameId[i]);
            },
            [&](const MergedRun& run) {
                // A merged block that hides a stall is flagged (the sync blocks painted over it
                // carry the stall colour at any zoom level; issue 6's tooltips read the flag).
                return run.count > 1 &&
                       overlapsSync(calls.start[run.first], calls.end[run.first + run.count - 1]);
            });
        const auto& syncs = host.syncs;
        addRuns(
            syncs, model::EventKind::Sync, [](size_t) { return TimelinePalette::stall(); },
            [&](size_t i) {
                return QStringLiteral("blocked %1")
                    .arg(QString::fromStdString(model::formatDuration(syncs.duration(i))));
            },
            [](const MergedRun&) { return true; });
        return;
    }
    case LaneKind::Range: {
        const model::HostLane& host = session.hostLanes[lane.source];
        if (lane.depth < 0 || static_cast<size_t>(lane.depth) >= host.rangesByDepth.size())
            return;
        const auto& ranges = host.rangesByDepth[lane.depth];
        const QRgb color = TimelinePalette::range(lane.depth);
        addRuns(
            ranges, model::EventKind::Range, [color](size_t) { return color; },
            [&](size_t i) { return name(ranges.nameId[i]); }, never);
        return;
    }
    case LaneKind::Stream: {
        const model::StreamLane& stream = session.streamLanes[lane.source];
        const int32_t streamIndex = stream.streamIndex;
        const int32_t device =
            streamIndex >= 0 && static_cast<size_t>(streamIndex) < session.streams.size()
                ? session.streams[streamIndex].deviceIndex
                : -1;
        std::vector<double>& pixels = m_busyPixels[busyKey(session, device)];
        if (!pixels.empty() && !m_streamFed[lane.source]) {
            busy = &pixels;
            m_streamFed[lane.source] = true;
        }
        const auto& kernels = stream.kernels;
        addRuns(
            kernels, model::EventKind::Kernel,
            [&](size_t i) {
                // One palette lookup per kernel name: it hashes the name.
                QRgb& color = m_kernelColors[kernels.nameId[i]];
                if (color == 0)
                    color = TimelinePalette::kernel(session.string(kernels.nameId[i]));
                return color;
            },
            [&](size_t i) {
                // NCCL's kernels say their size when the recording has it.
                if (const format::CollectiveCallRow* call =
                        session.collectiveCall(kernels.rowId[i]))
                    return QString::fromStdString(
                        model::collectiveLabel(session.string(kernels.nameId[i]), *call));
                return shortKernelName(session.string(kernels.nameId[i]));
            },
            never);
        const auto& copies = stream.memcpys;
        addRuns(
            copies, model::EventKind::Memcpy,
            [&](size_t i) { return TimelinePalette::memcpy(copies.copyKind[i]); },
            [&](size_t i) {
                return QStringLiteral("Memcpy %1 %2")
                    .arg(copyKindName(copies.copyKind[i]),
                         QString::fromStdString(
                             model::formatBytes(static_cast<int64_t>(copies.bytes[i]))));
            },
            never);
        const auto& sets = stream.memsets;
        addRuns(
            sets, model::EventKind::Memset, [](size_t) { return TimelinePalette::memset(); },
            [&](size_t i) {
                return QStringLiteral("Memset %1")
                    .arg(QString::fromStdString(
                        model::formatBytes(static_cast<int64_t>(sets.bytes[i]))));
            },
            never);
        return;
    }
    }
}

std::span<const DrawBlock> DrawList::laneBlocks(size_t lane) const {
    if (lane + 1 >= m_laneBegin.size())
        return {};
    return std::span<const DrawBlock>(m_blocks.data() + m_laneBegin[lane],
                                      m_laneBegin[lane + 1] - m_laneBegin[lane]);
}

size_t DrawList::busyKey(const model::Session& session, int32_t device) const {
    return device >= 0 && static_cast<size_t>(device) < session.devices.size()
               ? static_cast<size_t>(device)
               : session.devices.size();
}

// Streams collapsed out of the layout (a collapsed device keeps its busy track) are merged here.
void DrawList::finishBusyTracks(const model::Session& session) {
    for (BusyTrack& track : m_busy) {
        std::vector<double>& pixels = m_busyPixels[busyKey(session, track.device)];
        for (int32_t lane : GpuBusyTrack::streamLanesOf(session, track.device))
            if (!m_streamFed[lane]) {
                GpuBusyTrack::addLane(pixels, session, lane, m_viewport);
                m_streamFed[lane] = true;
            }
        track.values = GpuBusyTrack::finish(pixels);
        double sum = 0;
        for (float value : track.values)
            sum += value;
        track.share = track.values.empty() ? 0.0 : sum / static_cast<double>(track.values.size());
    }
    m_busyPixels.clear();
    m_busyPixels.shrink_to_fit();
    m_streamFed.clear();
    m_streamFed.shrink_to_fit();
}

std::span<const float> DrawList::busyValues(size_t lane) const {
    for (const BusyTrack& track : m_busy)
        if (track.lane == lane)
            return track.values;
    return {};
}

double DrawList::busyShare(size_t lane) const {
    for (const BusyTrack& track : m_busy)
        if (track.lane == lane)
            return track.share;
    return 0.0;
}

int64_t DrawList::eventCount(model::EventKind kind) const {
    int64_t total = 0;
    for (const DrawBlock& block : m_blocks)
        if (block.kind == kind)
            total += block.count;
    return total;
}

} // namespace stallscope::views
