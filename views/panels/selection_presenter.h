// SelectionPresenter: brings every view to the one Selection (SelectionHub::changed, issue 17):
// the card marked, the timeline framed and highlighted (the selected finding's after-fix ghosts
// with it), the details' choice of sync, the source on its line, the stack of its sync, the table
// row marked, the status line. Applying is idempotent — a view already showing its part is left
// alone — so a click inside a finding's highlight keeps the highlight, the framing and the
// ghosts, and only moves the selected event. AnalysisPanels makes the selections; this shows them.
#pragma once

#include "views/panels/selection_hub.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QDockWidget;

namespace stallscope::model {
class Session;
struct InsightReport;
} // namespace stallscope::model

namespace stallscope::views {

class AfterFixPreview;
class EventDetailsWidget;
class InsightCardsWidget;
class SourceView;
class StackView;
class StatisticsTablesWidget;
class TimelineWidget;

class SelectionPresenter : public QObject {
    Q_OBJECT
public:
    struct Views {
        TimelineWidget* timeline = nullptr;
        InsightCardsWidget* cards = nullptr;
        SourceView* source = nullptr;
        StackView* stack = nullptr;
        StatisticsTablesWidget* tables = nullptr;
        EventDetailsWidget* details = nullptr;
        QDockWidget* detailsDock = nullptr;
        AfterFixPreview* afterFix = nullptr;
    };
    // `showSyncStack(lane, index)` puts that sync's stack in the stack view.
    SelectionPresenter(Views views, std::function<void(int, int)> showSyncStack, QObject* parent);

    // A new session or report: the ghosts and the stack shown belong to the old one.
    void setSession(std::shared_ptr<const model::Session> session);
    void setReport(std::shared_ptr<const model::InsightReport> report);
    // The timeline cleared its own selection: its ghosts went with it.
    void forgetGhosts();
    // While a selection is applied, the views' own signals are not new selections.
    bool isApplying() const { return m_applying; }

public slots:
    void apply(const stallscope::views::Selection& selection);

signals:
    void statusMessage(const QString& message);

private:
    void applyToTimeline(const Selection& selection);
    void applyToTables(const Selection& selection);
    void applyToStack(const Selection& selection);
    void showStatus(const Selection& selection);

    Views m_views;
    std::function<void(int, int)> m_showSyncStack;
    std::shared_ptr<const model::Session> m_session;
    std::shared_ptr<const model::InsightReport> m_report;
    bool m_applying = false;
    int m_ghostFinding = -1;     // the finding whose after-fix ghosts show (or are replayed)
    model::EventRef m_stackSync; // the sync the stack view shows
};

} // namespace stallscope::views
