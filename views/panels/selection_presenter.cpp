#include "views/panels/selection_presenter.h"

#include "model/analysis/insight.h"
#include "model/session/session.h"
#include "views/panels/after_fix_preview.h"
#include "views/panels/event_details_widget.h"
#include "views/panels/insight_cards_widget.h"
#include "views/panels/source_view.h"
#include "views/panels/stack_view.h"
#include "views/panels/statistics_tables_widget.h"
#include "views/timeline/timeline_widget.h"

#include <QDockWidget>

namespace stallscope::views {

namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

// The first sync of the spans: the one whose stack stands for them.
model::EventRef firstSync(const model::EventSpans& events) {
    for (const model::EventSpan& span : events)
        if (span.first.kind == model::EventKind::Sync && span.count > 0)
            return span.first;
    return {};
}

} // namespace

SelectionPresenter::SelectionPresenter(Views views, std::function<void(int, int)> showSyncStack,
                                       QObject* parent)
    : QObject(parent), m_views(views), m_showSyncStack(std::move(showSyncStack)) {}

void SelectionPresenter::setSession(std::shared_ptr<const model::Session> session) {
    m_session = std::move(session);
    m_report.reset();
    forgetGhosts();
    m_stackSync = {};
}

void SelectionPresenter::setReport(std::shared_ptr<const model::InsightReport> report) {
    m_report = std::move(report);
    forgetGhosts();
}

void SelectionPresenter::forgetGhosts() {
    m_views.afterFix->clear();
    m_ghostFinding = -1;
}

void SelectionPresenter::apply(const Selection& selection) {
    if (m_applying)
        return;
    m_applying = true;
    m_views.cards->markSelected(selection.finding);
    applyToTimeline(selection);
    // A finding's or a site's syncs: which one the details show is the user's to choose.
    const bool ofSyncs =
        selection.kind == Selection::Kind::Finding || selection.kind == Selection::Kind::Site;
    m_views.details->setChoices(ofSyncs ? selection.events : model::EventSpans{}, selection.event);
    if (selection.site.hasLocation() && (m_views.source->currentFile() != qs(selection.site.file) ||
                                         m_views.source->currentLine() != int(selection.site.line)))
        m_views.source->showLocation(qs(selection.site.file), int(selection.site.line),
                                     selection.site.lineIsDefinition);
    applyToStack(selection);
    applyToTables(selection);
    if (!selection.isEmpty()) {
        m_views.detailsDock->show();
        m_views.detailsDock->raise(); // never focused: the user's focus stays where it is
    }
    showStatus(selection);
    m_applying = false;
}

void SelectionPresenter::applyToTimeline(const Selection& selection) {
    if (selection.isEmpty()) {
        m_views.timeline->clearSelection();
    } else if (selection.events != m_views.timeline->highlightedSpans()) {
        if (selection.events.empty())
            m_views.timeline->clearHighlight();
        else
            m_views.timeline->highlight(selection.events); // frames them, selects the first
    }
    if (selection.event.isValid() && m_views.timeline->selectedEvent() != selection.event)
        m_views.timeline->selectEvent(selection.event);
    // The ghosts belong to a selected finding; anything else removes them.
    const int ghosts = selection.kind == Selection::Kind::Finding ? selection.finding : -1;
    if (ghosts == m_ghostFinding)
        return;
    m_views.afterFix->clear();
    m_ghostFinding = ghosts;
    if (ghosts >= 0 && m_report)
        m_views.afterFix->show(m_report, m_report->insights[size_t(ghosts)]);
}

void SelectionPresenter::applyToStack(const Selection& selection) {
    const model::EventRef sync = selection.event.kind == model::EventKind::Sync
                                     ? selection.event
                                     : firstSync(selection.events);
    if (sync == m_stackSync && sync.isValid())
        return;
    m_stackSync = sync;
    if (sync.isValid())
        m_showSyncStack(sync.lane, int(sync.index));
    else
        m_views.stack->clear();
}

void SelectionPresenter::applyToTables(const Selection& selection) {
    const model::EventKind kind = selection.event.isValid()  ? selection.event.kind
                                  : selection.events.empty() ? model::EventKind::Sync
                                                             : selection.events.front().first.kind;
    if (selection.site.hasLocation() || selection.finding >= 0)
        m_views.tables->markSite(selection.site);
    else if (kind == model::EventKind::Kernel || kind == model::EventKind::ApiCall)
        m_views.tables->markName(kind == model::EventKind::Kernel
                                     ? StatisticsTablesWidget::KernelsTab
                                     : StatisticsTablesWidget::ApiCallsTab,
                                 selection.kind == Selection::Kind::Event && m_session
                                     ? qs(selection.event.name(*m_session))
                                     : selection.label);
    else
        m_views.tables->clearMarks();
}

void SelectionPresenter::showStatus(const Selection& selection) {
    if (selection.isEmpty() || !m_session)
        return emit statusMessage({});
    const int64_t count = model::eventCount(selection.events);
    switch (selection.kind) {
    case Selection::Kind::Event:
    case Selection::Kind::Range:
        return emit statusMessage(selection.label);
    default:
        return emit statusMessage(
            selection.label.isEmpty()
                ? tr("%n event(s) highlighted", nullptr, int(count))
                : tr("%1: %n event(s) highlighted", nullptr, int(count)).arg(selection.label));
    }
}

} // namespace stallscope::views
