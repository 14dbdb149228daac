// DrawList: what the timeline paints for one viewport — merged blocks per lane and the labels
// that fit. Built only when the viewport, the canvas size or the data change; painting just walks
// it. Blocks are grouped by lane (lane order), and inside a host lane syncs come after the API
// calls so they paint on top.
#pragma once

#include "model/session/event_ref.h"
#include "views/timeline/lod_summary.h"
#include "views/timeline/timeline_layout.h"
#include "views/timeline/timeline_viewport.h"

#include <QRgb>
#include <QString>

#include <climits>
#include <cstdint>
#include <span>
#include <vector>

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

struct DrawBlock {
    float x0 = 0;       // canvas x, left edge
    float x1 = 0;       // canvas x, right edge; at least x0 + 1 so sub-pixel events stay visible
    uint32_t lane = 0;  // index into TimelineLayout::lanes()
    uint32_t first = 0; // first event's index in its column
    uint32_t count = 0; // events merged into this block
    QRgb color = 0;
    model::EventKind kind = model::EventKind::ApiCall;
    bool stall = false; // a host-blocking interval lies inside (always true for Sync blocks)
    // Share of the lane height to fill, bottom-aligned: 1 for events a pixel wide or more; for
    // merged and sub-pixel blocks it grows with how much of the block's pixels the events cover
    // (kMinFill at least, so nothing vanishes). A thread blocked 0.1 % of the time must not look
    // like one blocked 90 % just because every pixel holds a short sync.
    float fill = 1.0f;
};

struct DrawLabel {
    float x0 = 0;
    float x1 = 0;
    uint32_t lane = 0;
    QRgb color = 0; // the block's colour, to pick a readable text colour
    QString text;
};

class DrawList {
public:
    // Labels are made for single events at least this wide.
    static constexpr double kMinLabelWidth = 36.0;
    static constexpr float kMinFill = 0.25f;

    // Lanes outside the content rows [rowsTop, rowsBottom) (TimelineLane::y) get no blocks: a
    // run of many ranks has more lanes than the pane shows, and each costs a pass over its
    // columns. A GPU-busy track in the rows still sums its device's streams, shown or not.
    // `summaries` (the session's, kept by the caller across builds) spare a zoomed-out build a
    // pass over every event; without, long runs are scanned (lod_merge.h).
    static DrawList build(const model::Session& session, const TimelineLayout& layout,
                          const TimelineViewport& viewport, int rowsTop = INT_MIN,
                          int rowsBottom = INT_MAX, LodSummaries* summaries = nullptr);
    // Whether the lanes of rows [top, bottom) all have their blocks.
    bool covers(int top, int bottom) const { return top >= m_rowsTop && bottom <= m_rowsBottom; }

    const std::vector<DrawBlock>& blocks() const { return m_blocks; }
    std::span<const DrawBlock> laneBlocks(size_t lane) const;
    const std::vector<DrawLabel>& labels() const { return m_labels; }
    // Events represented by the blocks of one kind (the LOD loses none).
    int64_t eventCount(model::EventKind kind) const;
    const TimelineViewport& viewport() const { return m_viewport; }
    // A GPU-busy lane's per-pixel busy shares (viewport().width() values in [0, 1]); empty for
    // other lanes.
    std::span<const float> busyValues(size_t lane) const;
    // Mean of busyValues(lane): the visible range's busy share.
    double busyShare(size_t lane) const;

private:
    void addLane(const model::Session& session, const TimelineLane& lane, uint32_t laneIndex);

    TimelineViewport m_viewport;
    LodSummaries* m_summaries = nullptr; // while building
    int m_rowsTop = INT_MIN, m_rowsBottom = INT_MAX;
    std::vector<DrawBlock> m_blocks;
    std::vector<uint32_t> m_laneBegin; // blocks of lane i: [m_laneBegin[i], m_laneBegin[i + 1])
    std::vector<DrawLabel> m_labels;
    struct BusyTrack {
        uint32_t lane = 0;
        int32_t device = -1;
        double share = 0;
        std::vector<float> values;
    };
    std::vector<BusyTrack> m_busy;
    // While building: per device (index devices.size() for streams without one) the busy pixel
    // sums the stream lanes feed; empty for devices without a busy lane in the layout.
    std::vector<std::vector<double>> m_busyPixels;
    std::vector<bool> m_streamFed;    // per stream lane: its runs went into m_busyPixels
    std::vector<QRgb> m_kernelColors; // while building: by name id, 0 until first used
    size_t busyKey(const model::Session& session, int32_t device) const;
    void finishBusyTracks(const model::Session& session);
};

} // namespace stallscope::views
