#include "views/panels/after_fix_preview.h"

#include "model/analysis/simulated_savings.h"
#include "model/jobs/job_tracker.h"
#include "model/session/session.h"
#include "views/timeline/timeline_widget.h"

#include <vector>

namespace stallscope::views {

AfterFixPreview::AfterFixPreview(TimelineWidget* timeline, QObject* parent)
    : QObject(parent), m_timeline(timeline), m_jobs(new model::JobTracker(this)) {}

// The tracker, a child, cancels the replay and waits for it when deleted.
AfterFixPreview::~AfterFixPreview() = default;

std::shared_ptr<const model::whatif::ReplayResult>
AfterFixPreview::replay(const model::InsightReport& report, const model::Insight& insight,
                        const std::atomic<bool>* cancel) {
    if (!report.runGraph || !insight.events)
        return nullptr;
    const model::whatif::RunGraph& graph = *report.runGraph;
    // The finding's own change where it has one (launch-bound), else its syncs removed.
    auto siteChange = [&] {
        std::vector<model::EventRef> syncs;
        for (const model::EventSpan& span : *insight.events)
            if (span.first.kind == model::EventKind::Sync)
                for (uint32_t i = 0; i < span.count; ++i)
                    syncs.push_back(span.at(i));
        return model::siteFix(graph, syncs, insight.site.language, insight.operation,
                              report.summary.windowStartNs, report.summary.windowEndNs);
    };
    const model::whatif::WhatIf fix = insight.change ? *insight.change : siteChange();
    model::whatif::ReplayOptions options;
    options.windowStartNs = report.summary.windowStartNs;
    options.windowEndNs = report.summary.windowEndNs;
    options.keepShifts = true;
    options.cancel = cancel;
    model::whatif::ReplayResult result = model::whatif::Replayer(graph).replay(fix, options);
    if (result.cancelled)
        return nullptr;
    result.stepShift = {}; // the ghosts are GPU operations only
    return std::make_shared<const model::whatif::ReplayResult>(std::move(result));
}

void AfterFixPreview::show(std::shared_ptr<const model::InsightReport> report,
                           const model::Insight& insight) {
    clear();
    const std::shared_ptr<const model::Session>& session = m_timeline->session();
    if (!report || !report->runGraph || !insight.simulated || !session ||
        &report->runGraph->session() != session.get())
        return;
    const int64_t savingNs = insight.savingsNs;
    // The session rides along: the graph points into it.
    m_jobs->start(
        [report, insight, session](const model::JobControl& job) {
            return replay(*report, insight, job.cancelFlag());
        },
        [this, report, savingNs](std::shared_ptr<const model::whatif::ReplayResult> result) {
            if (!result)
                return;
            m_timeline->setAfterFix({report->runGraph, std::move(result), savingNs});
            if (m_timeline->hasAfterFix())
                emit shown(savingNs);
        });
}

void AfterFixPreview::clear() {
    if (m_jobs->isRunning())
        m_jobs->cancel();
    m_timeline->clearAfterFix();
}

bool AfterFixPreview::isRunning() const {
    return m_jobs->isRunning();
}

void AfterFixPreview::waitForDone() {
    m_jobs->waitForDone();
}

} // namespace stallscope::views
