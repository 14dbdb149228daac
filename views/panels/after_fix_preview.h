// AfterFixPreview: when a finding's card is selected, replays the finding's fix in the background
// (model/whatif, the replay behind its simulated saving, keeping the per-operation shifts) and
// hands the result to the timeline as "after fix" ghost bars (TimelineWidget::setAfterFix).
// Selecting another finding supersedes the running replay; clear() cancels it and removes the
// ghosts. Findings without a simulated saving get none.
#pragma once

#include "model/analysis/insight.h"
#include "model/whatif/replay.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace stallscope::model {
class JobTracker;
class Session;
} // namespace stallscope::model

namespace stallscope::views {

class TimelineWidget;

class AfterFixPreview : public QObject {
    Q_OBJECT
public:
    AfterFixPreview(TimelineWidget* timeline, QObject* parent = nullptr);
    ~AfterFixPreview() override;

    // Replays `insight` of `report` (on the timeline's session); clears the ghosts first.
    void show(std::shared_ptr<const model::InsightReport> report, const model::Insight& insight);
    void clear();
    bool isRunning() const;
    // Blocks until every replay started has ended (tests; results still arrive as events).
    void waitForDone();

    // The work: the run replayed with the finding's fix in the report's window (its own change
    // where it has one, a launch-bound stretch's graphs; else without its syncs), with the
    // shifts kept. Null when the report has no run graph or the replay was cancelled.
    static std::shared_ptr<const model::whatif::ReplayResult>
    replay(const model::InsightReport& report, const model::Insight& insight,
           const std::atomic<bool>* cancel = nullptr);

signals:
    // The timeline shows the finding's ghosts; savingNs is the finding's simulated saving.
    void shown(qint64 savingNs);

private:
    TimelineWidget* m_timeline;
    model::JobTracker* m_jobs;
};

} // namespace stallscope::views
