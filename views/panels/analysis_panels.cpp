#include "views/panels/analysis_panels.h"

#include "format/session_meta.h"
#include "model/analysis/insight_engine.h"
#include "model/analysis/insight_recommendations.h"
#include "model/jobs/job_tracker.h"
#include "model/session/session.h"
#include "model/session/session_summary.h"
#include "views/dialogs/path_remap_dialog.h"
#include "views/panels/after_fix_preview.h"
#include "views/panels/event_details_widget.h"
#include "views/panels/insight_card.h"
#include "views/panels/insight_cards_widget.h"
#include "views/panels/name_statistics.h"
#include "views/panels/selection_presenter.h"
#include "views/panels/source_view.h"
#include "views/panels/stack_view.h"
#include "views/panels/statistics_tables_widget.h"
#include "views/timeline/event_style.h"
#include "views/timeline/timeline_widget.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QSettings>

#include <algorithm>

namespace stallscope::views {

namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

// The sync the details show for a finding or a site: its median one, the typical cost (issue 42:
// the first, 10.8 µs, was not what the site's syncs cost).
model::EventRef typicalSync(const model::Session& session, const model::EventSpans& events) {
    return model::medianEvent(session, events, model::EventKind::Sync);
}

QDockWidget* makeDock(QMainWindow* window, const QString& title, const QString& objectName,
                      QWidget* content) {
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(objectName); // saveState/restoreState key
    dock->setWidget(content);
    return dock;
}

} // namespace

AnalysisPanels::AnalysisPanels(QMainWindow* window, TimelineWidget* timeline)
    : QObject(window), m_window(window), m_timeline(timeline),
      m_analysis(new model::JobTracker(this)), m_afterFix(new AfterFixPreview(timeline, this)),
      m_selection(new SelectionHub(this)) {
    createDocks();
    connectPanels();
    QSettings settings;
    m_source->resolver().setRules(PathRemapDialog::loadRules(settings));
}

// The tracker, a child, cancels the analysis and waits for it when deleted.
AnalysisPanels::~AnalysisPanels() = default;

void AnalysisPanels::createDocks() {
    m_cards = new InsightCardsWidget(m_window);
    m_source = new SourceView(m_window);
    m_stack = new StackView(m_window);
    m_tables = new StatisticsTablesWidget(m_window);
    m_details = new EventDetailsWidget(m_window);
    m_insightsDock = makeDock(m_window, tr("Insights"), QStringLiteral("insightsDock"), m_cards);
    m_sourceDock = makeDock(m_window, tr("Source"), QStringLiteral("sourceDock"), m_source);
    m_stackDock = makeDock(m_window, tr("Stack"), QStringLiteral("stackDock"), m_stack);
    m_tablesDock = makeDock(m_window, tr("Statistics"), QStringLiteral("tablesDock"), m_tables);
    m_detailsDock = makeDock(m_window, tr("Details"), QStringLiteral("detailsDock"), m_details);
    m_insightsDock->setMinimumWidth(300);
    m_window->addDockWidget(Qt::LeftDockWidgetArea, m_insightsDock);
    // Bottom: source (tabbed with the statistics) left, the stack right of it.
    m_window->addDockWidget(Qt::BottomDockWidgetArea, m_sourceDock);
    m_window->splitDockWidget(m_sourceDock, m_stackDock, Qt::Horizontal);
    m_window->tabifyDockWidget(m_sourceDock, m_tablesDock);
    m_window->tabifyDockWidget(m_stackDock, m_detailsDock);
    m_sourceDock->raise();
    m_stackDock->raise();
    m_window->resizeDocks({m_insightsDock}, {400}, Qt::Horizontal);
    m_window->resizeDocks({m_sourceDock}, {300}, Qt::Vertical);
    m_window->resizeDocks({m_sourceDock, m_stackDock}, {700, 420}, Qt::Horizontal);
    m_presenter = new SelectionPresenter(
        {m_timeline, m_cards, m_source, m_stack, m_tables, m_details, m_detailsDock, m_afterFix},
        [this](int lane, int index) { showSyncStack(lane, index); }, this);
}

void AnalysisPanels::connectPanels() {
    connect(m_cards, &InsightCardsWidget::insightActivated, this,
            [this](int index, const model::Insight&) { selectFinding(index); });
    connect(m_cards, &InsightCardsWidget::sourceRequested, this, &AnalysisPanels::onSourceChip);
    connect(m_stack, &StackView::sourceRequested, this, &AnalysisPanels::openSource);
    connect(m_source, &SourceView::remapRequested, this, &AnalysisPanels::showPathRemapDialog);
    connect(m_source, &SourceView::siteActivated, this,
            [this](const model::SyncSiteStats& site) { selectSite(site.site); });
    connect(m_tables, &StatisticsTablesWidget::syncSiteSelected, this,
            [this](const model::SyncSiteStats& site) { selectSite(site.site); });
    connect(m_tables, &StatisticsTablesWidget::eventsSelected, this,
            &AnalysisPanels::highlightEvents);
    // The timeline shows its own selection in the details panel; what the user selects there
    // becomes the selection of every panel (not what applySelection itself makes it select).
    connect(m_timeline, &TimelineWidget::eventSelected, this, [this](const model::EventRef& event) {
        m_details->showEventDetails(event);
        if (!m_presenter->isApplying())
            selectEvent(event);
    });
    connect(m_timeline, &TimelineWidget::rangeSelected, this, [this](qint64 start, qint64 end) {
        m_details->showRange(start, end);
        if (!m_presenter->isApplying())
            selectRange(start, end);
    });
    connect(m_timeline, &TimelineWidget::selectionCleared, this, [this] {
        m_details->clear();
        m_presenter->forgetGhosts();
        if (!m_presenter->isApplying())
            clearSelection();
    });
    connect(m_selection, &SelectionHub::changed, m_presenter, &SelectionPresenter::apply);
    connect(m_presenter, &SelectionPresenter::statusMessage, this, &AnalysisPanels::statusMessage);
    // First, median or slowest of the selected finding's syncs: the same selection, that sync.
    connect(m_details, &EventDetailsWidget::syncChosen, this, [this](const model::EventRef& sync) {
        Selection chosen = m_selection->current();
        chosen.event = sync;
        m_selection->select(std::move(chosen));
    });
    connect(m_afterFix, &AfterFixPreview::shown, this, [this](qint64 savingNs) {
        emit statusMessage(tr("After fix (green outlines): the run ends %1 sooner")
                               .arg(QString::fromStdString(model::formatDuration(savingNs))));
    });
}

void AnalysisPanels::setSession(std::shared_ptr<const model::Session> session) {
    m_analysis->cancel(); // silent: nothing listens to cancelled(); a new start() supersedes anyway
    clearSelection();     // refers to the previous session's events
    m_presenter->setSession(session);
    m_session = std::move(session);
    m_report.reset();
    m_modules.clear();
    m_database.reset();
    m_source->clear();
    m_stack->clear();
    m_details->setSession(m_session);
    if (m_session) {
        auto database = std::make_shared<model::SessionDatabase>();
        std::string error;
        if (database->open(*m_session, &error)) {
            m_database = std::move(database);
            for (model::ModuleInfo& module : m_database->modules())
                m_modules.emplace(module.id, std::move(module));
        }
    }
    m_source->resolver().setDatabase(m_database);
    m_siteEvents.reset(m_session, m_database, nullptr);
    m_tables->setSession(m_session, m_database);
    m_tables->setReport(nullptr);
    if (!m_session) {
        m_cards->clear();
        return;
    }
    startAnalysis(std::nullopt);
}

void AnalysisPanels::analyzeWindow(std::optional<model::AnalysisWindow> window) {
    if (m_session)
        startAnalysis(std::move(window));
}

void AnalysisPanels::startAnalysis(std::optional<model::AnalysisWindow> window) {
    m_cards->setMessage(tr("Analyzing…"));
    emit analysisStarted();
    m_analysis->start(
        [session = m_session, window = std::move(window)](const model::JobControl& job) {
            model::AnalysisOptions options;
            options.cancel = job.cancelFlag();
            options.window = window;
            return std::make_shared<const model::InsightReport>(
                model::InsightEngine::analyzeFile(*session, options));
        },
        [this](std::shared_ptr<const model::InsightReport> report) {
            onReport(std::move(report));
        });
}

bool AnalysisPanels::defLineSites() const {
    return m_session && m_session->metaValue(format::meta::kPythonLineKind) == "def";
}

void AnalysisPanels::onReport(std::shared_ptr<const model::InsightReport> report) {
    // A finding of the previous report is no longer on a card; its ghosts go with it.
    if (m_selection->current().kind == Selection::Kind::Finding)
        clearSelection();
    m_presenter->setReport(report);
    m_report = std::move(report);
    m_siteEvents.reset(m_session, m_database, m_report);
    m_cards->setReport(m_report, defLineSites());
    m_tables->setReport(m_report);
    m_source->setSites(m_report->sites);
    if (!m_selection->current().isEmpty()) { // a site, an event or a range: its card, if any
        Selection selection = m_selection->current();
        selection.finding = findingOfSite(selection.site);
        m_selection->select(std::move(selection));
    }
    // Show the top finding's line right away: the guilty line is on screen before any click.
    if (m_source->currentFile().isEmpty() && !m_report->insights.empty()) {
        const model::SourceSite& top = m_report->insights.front().site;
        if (top.hasLocation() && !top.lineIsDefinition)
            m_source->showLocation(QString::fromStdString(top.file), int(top.line));
    }
    emit statusMessage(tr("%n finding(s)", nullptr, int(m_report->insights.size())));
    emit analysisFinished();
}

// Making selections: what the user picks in any panel becomes the one Selection (SelectionHub);
// SelectionPresenter shows it in every view.

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

void AnalysisPanels::activateInsight(int index) {
    m_cards->activate(index);
}

bool AnalysisPanels::selectInsightEvent(int index, int64_t n) {
    if (!m_report || index < 0 || index >= int(m_report->insights.size()) || n < 0)
        return false;
    for (const model::EventSpan& span : *m_report->insights[size_t(index)].events) {
        if (n < int64_t(span.count)) {
            m_timeline->selectEvent(span.at(uint32_t(n)));
            return true;
        }
        n -= span.count;
    }
    return false;
}

bool AnalysisPanels::openSource(const QString& file, int line, bool lineIsDefinition) {
    m_sourceDock->show();
    m_sourceDock->raise();
    return m_source->showLocation(file, line, lineIsDefinition);
}

void AnalysisPanels::showSyncStack(int lane, int index) {
    if (!m_session || lane < 0 || lane >= int(m_session->hostLanes.size()))
        return;
    const model::HostLane& host = m_session->hostLanes[lane];
    if (index < 0 || index >= int(host.syncs.size()))
        return;
    const auto kind = static_cast<format::SyncKind>(host.syncs.kind[index]);
    QString thread;
    if (host.threadIndex >= 0 && host.threadIndex < int(m_session->threads.size()))
        thread =
            QString::fromStdString(m_session->threadLabel(m_session->threads[host.threadIndex]));
    const QString caption =
        tr("<b>%1</b> on %2, blocked %3 at +%4")
            .arg(QString::fromStdString(model::syncKindLabel(kind)), thread.toHtmlEscaped(),
                 QString::fromStdString(model::formatDuration(host.syncs.duration(index))),
                 QString::fromStdString(
                     model::formatDuration(host.syncs.start[index] - m_session->startNs)));
    std::vector<model::FrameInfo> frames;
    if (m_database && host.syncs.stackId[index] != 0)
        frames = m_database->stack(host.syncs.stackId[index]);
    m_stack->setStack(caption, std::move(frames), &m_modules);
}

int64_t AnalysisPanels::findEvents(const QString& text) {
    const QString needle = text.trimmed();
    if (!m_session || needle.isEmpty()) {
        clearHighlight();
        return 0;
    }
    std::vector<bool> matches(m_session->strings.size(), false);
    for (size_t id = 1; id < matches.size(); ++id)
        matches[id] =
            QString::fromStdString(m_session->strings[id]).contains(needle, Qt::CaseInsensitive);
    model::EventSpans events = spansWithNames(*m_session, model::EventKind::Kernel, matches);
    const model::EventSpans calls = spansWithNames(*m_session, model::EventKind::ApiCall, matches);
    events.insert(events.end(), calls.begin(), calls.end());
    // Source functions: the syncs of every site whose function matches.
    if (m_report)
        for (const model::SyncSiteStats& site : m_report->sites)
            if (QString::fromStdString(site.site.function).contains(needle, Qt::CaseInsensitive)) {
                const model::EventSpans syncs = m_siteEvents.eventsFor(site.site);
                events.insert(events.end(), syncs.begin(), syncs.end());
            }
    const int64_t count = model::eventCount(events);
    if (count == 0) {
        clearHighlight();
        emit statusMessage(tr("No kernel, API call or function matches “%1”.").arg(needle));
        return 0;
    }
    highlightEvents(events, tr("“%1”").arg(needle));
    return count;
}

PathRemapDialog* AnalysisPanels::pathRemapDialog() const {
    return m_remapDialog && m_remapDialog->isVisible() ? m_remapDialog : nullptr;
}

void AnalysisPanels::showPathRemapDialog(const QString& missingPath) {
    if (!m_remapDialog) {
        m_remapDialog = new PathRemapDialog(m_window);
        connect(m_remapDialog, &QDialog::accepted, this, [this] {
            const std::vector<format::PathRemapRule> rules = m_remapDialog->rules();
            QSettings settings;
            PathRemapDialog::saveRules(settings, rules);
            m_source->resolver().setRules(rules);
            m_source->reload();
        });
    }
    m_remapDialog->setRules(m_source->resolver().rules());
    m_remapDialog->setMissingPath(missingPath);
    m_remapDialog->open(); // window-modal, returns at once
}

} // namespace stallscope::views
