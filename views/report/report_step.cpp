#include "views/report/report_step.h"

#include "model/analysis/analysis_window.h"
#include "model/analysis/insight.h"
#include "model/session/session.h"
#include "model/session/session_summary.h"
#include "views/panels/after_fix_preview.h"
#include "views/timeline/timeline_widget.h"

#include <algorithm>
#include <vector>

namespace stallscope::views {

namespace {

// The finding's sync with the median blocked time inside the analysis window: a typical stall,
// not the warm-up's first one.
model::EventRef typicalSync(const model::Session& session, const model::Insight& insight,
                            const model::InsightReport& report) {
    std::vector<std::pair<int64_t, model::EventRef>> syncs;
    for (const model::EventSpan& span : *insight.events)
        if (span.first.kind == model::EventKind::Sync)
            for (uint32_t i = 0; i < span.count; ++i) {
                const model::EventRef sync = span.at(i);
                const int64_t start = sync.start(session);
                if (start >= report.summary.windowStartNs && start < report.summary.windowEndNs)
                    syncs.emplace_back(sync.end(session) - start, sync);
            }
    if (syncs.empty())
        return {};
    std::sort(syncs.begin(), syncs.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second.index < b.second.index;
    });
    return syncs[syncs.size() / 2].second;
}

// The previous sync of the same finding on the same thread, or invalid.
model::EventRef previousSync(const model::Insight& insight, const model::EventRef& sync) {
    model::EventRef best;
    for (const model::EventSpan& span : *insight.events)
        if (span.first.kind == model::EventKind::Sync && span.first.lane == sync.lane)
            for (uint32_t i = 0; i < span.count; ++i) {
                const model::EventRef other = span.at(i);
                if (other.index < sync.index && (!best.isValid() || other.index > best.index))
                    best = other;
            }
    return best;
}

QImage render(TimelineWidget& timeline) {
    const TimelineLayout& layout = timeline.layout();
    int content = 0;
    for (const TimelineLane& lane : layout.lanes())
        content = std::max(content, lane.y + lane.height);
    timeline.resize(1100, std::clamp(TimelineWidget::kRulerHeight + content + 12, 160, 640));
    return timeline.grab().toImage();
}

} // namespace

std::optional<StalledStep> stalledStep(const std::shared_ptr<const model::Session>& session,
                                       const model::InsightReport& report) {
    if (!session || !report.runGraph || &report.runGraph->session() != session.get())
        return std::nullopt;
    for (size_t k = 0; k < report.insights.size(); ++k) {
        const model::Insight& insight = report.insights[k];
        if (!insight.simulated || !insight.events)
            continue;
        const model::EventRef sync = typicalSync(*session, insight, report);
        if (!sync.isValid())
            continue;
        StalledStep step;
        step.insightIndex = int(k);
        const int64_t syncStart = sync.start(*session), syncEnd = sync.end(*session);
        if (const auto recorded = model::stepContaining(*session, syncStart)) {
            step.isRecordedStep = true;
            std::tie(step.startNs, step.endNs) = *recorded;
        } else {
            const model::EventRef previous = previousSync(insight, sync);
            const int64_t blocked = std::max<int64_t>(syncEnd - syncStart, 1000);
            step.startNs = previous.isValid() ? previous.end(*session) : syncStart - 3 * blocked;
            step.endNs = syncEnd;
        }
        const int64_t margin = std::max<int64_t>((step.endNs - step.startNs) / 12, 1000);
        step.startNs -= margin;
        step.endNs += margin;

        TimelineWidget timeline;
        timeline.setSession(session);
        render(timeline); // size first: the visible range is kept in pixels
        timeline.setVisibleRange(step.startNs, step.endNs);
        timeline.selectEvent(sync); // the "waited for" arrow
        const QString span =
            QString::fromStdString(model::formatDuration(step.endNs - step.startNs));
        step.pictures.push_back(
            {QStringLiteral("Recorded: %1 of the run, the selected sync's arrow points at the GPU "
                            "work it waited for")
                 .arg(span),
             render(timeline)});
        auto replay = AfterFixPreview::replay(report, insight);
        if (replay) {
            timeline.setAfterFix({report.runGraph, std::move(replay), insight.savingsNs});
            if (timeline.hasAfterFix())
                step.pictures.push_back(
                    {QStringLiteral("After the fix, as the what-if replay runs it: the outlined "
                                    "bars are where the GPU work moves (%1)")
                         .arg(timeline.afterFixLegend()),
                     render(timeline)});
        }
        return step;
    }
    return std::nullopt;
}

} // namespace stallscope::views
