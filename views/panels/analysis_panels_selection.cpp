// AnalysisPanels' selection half: what the user selects in any panel becomes the one Selection
// (SelectionHub), and applySelection brings every view to it. Applying is idempotent — a view
// already showing its part is left alone — so a click inside a finding's highlight keeps the
// highlight, the framing and the ghosts, and only moves the selected event.
#include "views/panels/analysis_panels.h"

#include "model/session/session.h"
#include "model/session/session_summary.h"
#include "views/panels/after_fix_preview.h"
#include "views/panels/event_details_widget.h"
#include "views/panels/insight_card.h"
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

// The sync the details show for a finding or a site: its median one, the typical cost (issue 42:
// the first, 10.8 µs, was not what the site's syncs cost).
model::EventRef typicalSync(const model::Session& session, const model::EventSpans& events) {
    return model::medianEvent(session, events, model::EventKind::Sync);
}

} // namespace

int AnalysisPanels::findingOfSite(const model::SourceSite& site) const {
    if (!m_report || site.file.empty())
        return -1;
    for (size_t i = 0; i < m_report->insights.size(); ++i)
        if (m_report->insights[i].siteIndex >= 0 && sameSite(m_report->insights[i].site, site))
            return int(i);
    return -1;
}

void AnalysisPanels::selectFinding(int index) {
    if (!m_report || index < 0 || index >= int(m_report->insights.size()))
        return;
    const model::Insight& insight = m_report->insights[size_t(index)];
    Selection selection;
    selection.kind = Selection::Kind::Finding;
    selection.finding = index;
    selection.site = insight.site;
    if (insight.events)
        selection.events = *insight.events;
    if (m_session)
        selection.event = typicalSync(*m_session, selection.events);
    selection.label = qs(insight.title);
    m_selection->select(std::move(selection));
}

void AnalysisPanels::selectSite(const model::SourceSite& site) {
    Selection selection;
    selection.kind = Selection::Kind::Site;
    selection.site = site;
    selection.finding = findingOfSite(site);
    selection.events = m_siteEvents.eventsFor(site);
    if (m_session)
        selection.event = typicalSync(*m_session, selection.events);
    selection.label = qs(site.label());
    m_selection->select(std::move(selection));
}

void AnalysisPanels::highlightEvents(const model::EventSpans& events, const QString& label) {
    Selection selection;
    selection.kind = Selection::Kind::Events;
    selection.events = events;
    selection.label = label;
    m_selection->select(std::move(selection));
}

void AnalysisPanels::selectEvent(const model::EventRef& event) {
    if (!m_session || !event.isIn(*m_session))
        return clearSelection();
    const Selection& current = m_selection->current();
    Selection selection;
    // An event of the highlight keeps it (and its finding): the user looks through its events.
    if (!current.events.empty() && spansContain(current.events, event)) {
        selection = current;
    } else {
        selection.kind = Selection::Kind::Event;
        selection.label = qs(event.name(*m_session));
    }
    selection.event = event;
    if (event.kind == model::EventKind::Sync)
        if (const auto site = m_siteEvents.siteOf(event)) {
            selection.site = *site;
            if (selection.kind == Selection::Kind::Event)
                selection.finding = findingOfSite(*site);
        }
    m_selection->select(std::move(selection));
}

void AnalysisPanels::selectRange(qint64 startNs, qint64 endNs) {
    Selection selection;
    selection.kind = Selection::Kind::Range;
    selection.rangeStartNs = startNs;
    selection.rangeEndNs = endNs;
    selection.label = tr("Range of %1").arg(qs(model::formatDuration(endNs - startNs)));
    m_selection->select(std::move(selection));
}

void AnalysisPanels::clearSelection() {
    m_selection->clear();
}

void AnalysisPanels::clearHighlight() {
    clearSelection();
}

// A card's source chip: that finding selected (timeline, stack, table follow) and the source in
// front, on its line.
void AnalysisPanels::onSourceChip(const model::SourceSite& site) {
    const int selected = m_cards->selectedIndex();
    const InsightCard* card = m_cards->card(selected);
    if (!card || !sameSite(card->insight().site, site))
        for (size_t i = 0; i < m_cards->cards().size(); ++i)
            if (sameSite(m_cards->cards()[i]->insight().site, site)) {
                m_cards->activate(int(i));
                break;
            }
    openSource(qs(site.file), int(site.line), site.lineIsDefinition);
}

void AnalysisPanels::applySelection(const Selection& selection) {
    if (m_applying)
        return;
    m_applying = true;
    m_cards->markSelected(selection.finding);
    applyToTimeline(selection);
    // A finding's or a site's syncs: which one the details show is the user's to choose.
    const bool ofSyncs =
        selection.kind == Selection::Kind::Finding || selection.kind == Selection::Kind::Site;
    m_details->setChoices(ofSyncs ? selection.events : model::EventSpans{}, selection.event);
    if (selection.site.hasLocation() && (m_source->currentFile() != qs(selection.site.file) ||
                                         m_source->currentLine() != int(selection.site.line)))
        m_source->showLocation(qs(selection.site.file), int(selection.site.line),
                               selection.site.lineIsDefinition);
    applyToStack(selection);
    applyToTables(selection);
    if (!selection.isEmpty()) {
        m_detailsDock->show();
        m_detailsDock->raise(); // never focused: the user's focus stays where it is
    }
    showStatus(selection);
    m_applying = false;
}

void AnalysisPanels::applyToTimeline(const Selection& selection) {
    if (selection.isEmpty()) {
        m_timeline->clearSelection();
    } else if (selection.events != m_timeline->highlightedSpans()) {
        if (selection.events.empty())
            m_timeline->clearHighlight();
        else
            m_timeline->highlight(selection.events); // frames them, selects the first
    }
    if (selection.event.isValid() && m_timeline->selectedEvent() != selection.event)
        m_timeline->selectEvent(selection.event);
    // The ghosts belong to a selected finding; anything else removes them.
    const int ghosts = selection.kind == Selection::Kind::Finding ? selection.finding : -1;
    if (ghosts == m_ghostFinding)
        return;
    m_afterFix->clear();
    m_ghostFinding = ghosts;
    if (ghosts >= 0 && m_report)
        m_afterFix->show(m_report, m_report->insights[size_t(ghosts)]);
}

void AnalysisPanels::applyToStack(const Selection& selection) {
    const model::EventRef sync = selection.event.kind == model::EventKind::Sync
                                     ? selection.event
                                     : firstSync(selection.events);
    if (sync == m_stackSync && sync.isValid())
        return;
    m_stackSync = sync;
    if (sync.isValid())
        showSyncStack(sync.lane, int(sync.index));
    else
        m_stack->clear();
}

void AnalysisPanels::applyToTables(const Selection& selection) {
    const model::EventKind kind = selection.event.isValid()  ? selection.event.kind
                                  : selection.events.empty() ? model::EventKind::Sync
                                                             : selection.events.front().first.kind;
    if (selection.site.hasLocation() || selection.finding >= 0)
        m_tables->markSite(selection.site);
    else if (kind == model::EventKind::Kernel || kind == model::EventKind::ApiCall)
        m_tables->markName(kind == model::EventKind::Kernel ? StatisticsTablesWidget::KernelsTab
                                                            : StatisticsTablesWidget::ApiCallsTab,
                           selection.kind == Selection::Kind::Event && m_session
                               ? qs(selection.event.name(*m_session))
                               : selection.label);
    else
        m_tables->clearMarks();
}

void AnalysisPanels::showStatus(const Selection& selection) {
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
