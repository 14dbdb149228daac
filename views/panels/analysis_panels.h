// AnalysisPanels: the docks around the timeline — insight cards, source view, stack view and
// statistics tables — and the navigation between them. Owns the insight analysis (run through a
// model::JobTracker when a session is set) and a GUI-thread SessionDatabase for stacks, sources and
// kernel details. MainWindow keeps files, menus and settings; this class keeps "what the user looks
// at".
//
// One selection (SelectionHub, issue 17): a card, a gutter mark, a table row, a click or a range on
// the timeline becomes a Selection (made here), and SelectionPresenter shows it in every view
// that can: the card marked, the source on its line, the stack of its first sync, the timeline
// framed and highlighted (the rest dimmed), the table row marked, the details in front, the
// status line. Clearing it anywhere (an empty click on the timeline, Esc) clears it everywhere.
// A selected finding with a simulated saving also gets its "after fix" ghosts (AfterFixPreview).
#pragma once

#include "model/analysis/analysis_window.h"
#include "model/analysis/insight.h"
#include "model/session/session_database.h"
#include "views/panels/selection_hub.h"
#include "views/panels/site_event_index.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <unordered_map>

class QDockWidget;
class QMainWindow;

namespace stallscope::model {
class JobTracker;
class Session;
} // namespace stallscope::model

namespace stallscope::views {

class AfterFixPreview;
class EventDetailsWidget;
class InsightCardsWidget;
class SourceView;
class StackView;
class StatisticsTablesWidget;
class TimelineWidget;
class PathRemapDialog;
class SelectionPresenter;

class AnalysisPanels : public QObject {
    Q_OBJECT
public:
    AnalysisPanels(QMainWindow* window, TimelineWidget* timeline);
    ~AnalysisPanels() override;

    // Starts the analysis of a freshly loaded session (null clears everything), over the active
    // window.
    void setSession(std::shared_ptr<const model::Session> session);
    // Reruns the analysis of the session over `window` (absent: the active window); the new
    // report replaces the current one when it arrives. Nothing without a session.
    void analyzeWindow(std::optional<model::AnalysisWindow> window);
    const std::shared_ptr<const model::InsightReport>& report() const { return m_report; }

    InsightCardsWidget* insightCards() const { return m_cards; }
    SourceView* sourceView() const { return m_source; }
    StackView* stackView() const { return m_stack; }
    StatisticsTablesWidget* tables() const { return m_tables; }
    EventDetailsWidget* details() const { return m_details; }
    QDockWidget* detailsDock() const { return m_detailsDock; }
    QDockWidget* insightsDock() const { return m_insightsDock; }
    QDockWidget* sourceDock() const { return m_sourceDock; }
    QDockWidget* stackDock() const { return m_stackDock; }
    QDockWidget* tablesDock() const { return m_tablesDock; }
    PathRemapDialog* pathRemapDialog() const;
    AfterFixPreview* afterFix() const { return m_afterFix; }

    // The one selection every panel shows.
    SelectionHub* selection() const { return m_selection; }
    // The events highlighted on the timeline by the selection (for tests and the status bar).
    const model::EventSpans& highlightedEvents() const { return m_selection->current().events; }

public slots:
    // Selects events by name (table rows, the find box): highlighted, framed, the first selected.
    void highlightEvents(const stallscope::model::EventSpans& events, const QString& label);
    void clearHighlight(); // clears the whole selection, as Esc does
    void clearSelection();
    // Selects finding `index` of the report, as clicking its card does.
    void selectFinding(int index);
    // Selects a sync site: its syncs highlighted, its line in the source, its row and card marked.
    void selectSite(const stallscope::model::SourceSite& site);
    // Selects one event (a sync also selects its site's line, row and card).
    void selectEvent(const stallscope::model::EventRef& event);
    void selectRange(qint64 startNs, qint64 endNs);
    // Opens the source view on a recorded path and line, raising its dock.
    bool openSource(const QString& file, int line, bool lineIsDefinition = false);
    // The stack view shows the stack of host lane `lane`'s sync `index`.
    void showSyncStack(int lane, int index);
    // Highlights kernels, API calls and sync sites whose name contains text; returns the count.
    int64_t findEvents(const QString& text);
    // Shows the path remapping dialog (pre-filled for missingPath), non-blocking.
    void showPathRemapDialog(const QString& missingPath = {});
    void activateInsight(int index);
    // Selects the n-th event (from 0) of insight `index`'s evidence in the timeline, as a click
    // on it would (details, stack), without highlighting the others. False when out of range.
    bool selectInsightEvent(int index, int64_t n);

signals:
    void statusMessage(const QString& message);
    void analysisStarted();
    void analysisFinished();

private:
    void createDocks();
    void connectPanels();
    void startAnalysis(std::optional<model::AnalysisWindow> window);
    void onReport(std::shared_ptr<const model::InsightReport> report);
    bool defLineSites() const;
    void onSourceChip(const model::SourceSite& site);
    int findingOfSite(const model::SourceSite& site) const;

    QMainWindow* m_window;
    TimelineWidget* m_timeline;
    std::shared_ptr<const model::Session> m_session;
    std::shared_ptr<model::SessionDatabase> m_database;
    std::unordered_map<int64_t, model::ModuleInfo> m_modules;
    std::shared_ptr<const model::InsightReport> m_report;
    model::JobTracker* m_analysis; // a new session's analysis supersedes the previous one
    AfterFixPreview* m_afterFix;   // the selected finding's ghosts
    SiteEventIndex m_siteEvents;
    SelectionHub* m_selection;
    SelectionPresenter* m_presenter = nullptr; // shows the selection in every view

    InsightCardsWidget* m_cards = nullptr;
    SourceView* m_source = nullptr;
    StackView* m_stack = nullptr;
    StatisticsTablesWidget* m_tables = nullptr;
    EventDetailsWidget* m_details = nullptr;
    QDockWidget* m_detailsDock = nullptr;
    QDockWidget* m_insightsDock = nullptr;
    QDockWidget* m_sourceDock = nullptr;
    QDockWidget* m_stackDock = nullptr;
    QDockWidget* m_tablesDock = nullptr;
    PathRemapDialog* m_remapDialog = nullptr;
};

} // namespace stallscope::views
