#include "views/compare/compare_view.h"

#include "format/session_meta.h"
#include "views/panels/duration_text.h"

#include "model/compare/compare_output.h"
#include "model/session/session_summary.h"
#include "views/compare/compare_table_model.h"
#include "views/compare/timeline_link.h"
#include "views/panels/panel_widgets.h"
#include "views/timeline/timeline_widget.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace stallscope::views {

namespace {

// "1.05 ms → 812 µs (−22.7 %)"
QString beforeAfter(double before, double after, bool isTime) {
    auto text = [isTime](double value) {
        return isTime ? durationText(value) : QString::fromStdString(model::formatPerUnit(value));
    };
    const QString change = QString::fromStdString(model::formatChange(before, after));
    return QStringLiteral("%1 → %2").arg(text(before), text(after)) +
           (change.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(change));
}

// "1 sync", "20 syncs" (the project ships no translations that would resolve "%n sync(s)").
QString syncs(int count) {
    return count == 1 ? CompareView::tr("1 sync") : CompareView::tr("%1 syncs").arg(count);
}

QString fileName(const ComparedRun& run) {
    return QFileInfo(run.file).fileName().toHtmlEscaped();
}

} // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("compareView"));
    QVBoxLayout* layout = flushColumn(this, 0);
    m_pages = new QStackedWidget(this);
    layout->addWidget(m_pages);

    auto* progressPage = new QWidget(m_pages);
    auto* progressLayout = new QVBoxLayout(progressPage);
    progressLayout->addStretch();
    m_message = new QLabel(progressPage);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    progressLayout->addWidget(m_message);
    m_progress = new QProgressBar(progressPage);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumWidth(320);
    progressLayout->addWidget(m_progress, 0, Qt::AlignHCenter);
    progressLayout->addStretch();
    m_pages->addWidget(progressPage);
    m_pages->addWidget(createComparisonPage());
}

CompareView::~CompareView() = default;

QWidget* CompareView::createTimelinePane(const QString& caption, TimelineWidget** timeline,
                                         QLabel** captionLabel) {
    auto* pane = new QWidget(this);
    QVBoxLayout* layout = flushColumn(pane, 0);
    *captionLabel = new QLabel(caption, pane);
    (*captionLabel)->setContentsMargins(8, 4, 8, 2);
    (*captionLabel)->setTextFormat(Qt::RichText);
    layout->addWidget(*captionLabel);
    *timeline = new TimelineWidget(pane);
    layout->addWidget(*timeline, 1);
    return pane;
}

QWidget* CompareView::createComparisonPage() {
    auto* page = new QWidget(m_pages);
    QVBoxLayout* layout = flushColumn(page, 0);
    m_heading = new QLabel(page);
    m_heading->setObjectName(QStringLiteral("compareHeading"));
    m_heading->setTextFormat(Qt::RichText);
    m_heading->setWordWrap(true);
    m_heading->setContentsMargins(8, 6, 8, 6);
    m_heading->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_heading);

    auto* splitter = m_splitter = new QSplitter(Qt::Vertical, page);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(createTimelinePane(tr("Before"), &m_before, &m_beforeCaption));
    splitter->addWidget(createTimelinePane(tr("After"), &m_after, &m_afterCaption));
    m_link = new TimelineLink(m_before, m_after, this);

    m_model = new CompareTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CompareTableModel::SortRole);
    m_table = new QTableView(splitter);
    m_table->setObjectName(QStringLiteral("compareTable"));
    m_table->setModel(m_proxy);
    setUpListTable(m_table);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the comparison's order until a header click
    m_table->setAlternatingRowColors(true);
    QHeaderView* header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(CompareTableModel::SiteColumn, QHeaderView::Stretch);
    splitter->addWidget(m_table);
    layout->addWidget(splitter, 1);
    connect(splitter, &QSplitter::splitterMoved, this, [this] { m_sizedByUser = true; });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    selectSite(m_proxy->mapToSource(current).row());
            });

    m_status = new QLabel(page);
    m_status->setObjectName(QStringLiteral("compareStatus"));
    m_status->setContentsMargins(8, 4, 8, 4);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    return page;
}

void CompareView::showProgress(const QString& message, double fraction) {
    m_message->setText(message);
    if (fraction < 0) {
        m_progress->setRange(0, 0);
    } else {
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(std::lround(fraction * 1000)));
    }
    m_pages->setCurrentIndex(0);
}

void CompareView::setRuns(std::shared_ptr<const ComparedRuns> runs) {
    m_runs = std::move(runs);
    m_before->setSession(m_runs ? m_runs->before.session : nullptr);
    m_after->setSession(m_runs ? m_runs->after.session : nullptr);
    m_model->setComparison(
        m_runs ? std::shared_ptr<const model::SessionComparison>(m_runs, &m_runs->comparison)
               : nullptr);
    m_status->clear();
    if (!m_runs)
        return;
    showHeading();
    m_pages->setCurrentIndex(1);
    fitPanes();
    m_link->align(m_runs->before.anchorNs, m_runs->after.anchorNs);
    showAlignedStart();
    m_status->setText(tr("Select a site to see its syncs in both runs."));
}

// Both timelines open on what they compare (issue 42: on an empty 704 µs slice): from the aligned
// moment, a few steps of the loop when both runs have steps, else their whole analysis windows,
// as long as the shorter of the two runs.
void CompareView::showAlignedStart() {
    const auto span = [this](const ComparedRun& run) {
        const model::SessionStatistics& s = run.report->summary;
        const int64_t window = std::max<int64_t>(s.windowEndNs - run.anchorNs, 1);
        return m_runs->alignedOnSteps && s.stepNs > 0 ? std::min(window, 5 * s.stepNs) : window;
    };
    if (!m_runs->before.report || !m_runs->after.report)
        return;
    const int64_t shown = std::min(span(m_runs->before), span(m_runs->after));
    m_before->setVisibleRange(m_runs->before.anchorNs, m_runs->before.anchorNs + shown);
}

void CompareView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitPanes();
}

// The table as tall as its rows (at most two fifths), the timelines sharing the rest by their
// lanes' heights, so a run with many threads gets the room and a short table leaves no blank.
void CompareView::fitPanes() {
    if (!m_runs || m_sizedByUser)
        return;
    const int total = m_splitter->height() - 2 * m_splitter->handleWidth();
    if (total < 200)
        return; // not laid out yet
    const int rows = m_table->horizontalHeader()->sizeHint().height() +
                     m_model->rowCount() * m_table->verticalHeader()->defaultSectionSize() +
                     2 * m_table->frameWidth() + 4;
    const int table = std::clamp(rows, total / 6, total * 2 / 5);
    auto wanted = [](const TimelineWidget* timeline, const QLabel* caption) {
        return caption->sizeHint().height() + TimelineWidget::kRulerHeight +
               std::max(timeline->layout().naturalHeight(), 60);
    };
    const double before = wanted(m_before, m_beforeCaption);
    const double after = wanted(m_after, m_afterCaption);
    const int beforeHeight = int(std::lround((total - table) * before / (before + after)));
    m_splitter->setSizes({beforeHeight, total - table - beforeHeight, table});
}

void CompareView::showHeading() {
    const model::SessionComparison& c = m_runs->comparison;
    const bool perStep = m_runs->alignedOnSteps;
    const QString unit = QString::fromStdString(c.unit);
    const QString units =
        perStep ? tr("%1 and %2 steps")
                      .arg(QString::fromStdString(model::formatPerUnit(c.before.units)),
                           QString::fromStdString(model::formatPerUnit(c.after.units)))
                : tr("%1 and %2 of kernel time")
                      .arg(durationText(c.before.units * 1e9), durationText(c.after.units * 1e9));
    QString html =
        tr("<b>Before</b> %1 &nbsp;→&nbsp; <b>After</b> %2 &nbsp;·&nbsp; numbers per %3 (%4 in "
           "the active windows)")
            .arg(fileName(m_runs->before), fileName(m_runs->after), unit.toHtmlEscaped(), units);
    html += QStringLiteral("<br>") +
            tr("%1 %2 &nbsp;·&nbsp; Host blocked %3 &nbsp;·&nbsp; Host syncs %4")
                // Without steps the figures are normalised to the GPU work: say so (issue 42).
                .arg(perStep ? tr("Step time") : tr("Wall time per second of kernel time"),
                     beforeAfter(c.before.stepNs, c.after.stepNs, true),
                     beforeAfter(c.before.hostBlockedNs, c.after.hostBlockedNs, true),
                     beforeAfter(c.before.hostSyncs, c.after.hostSyncs, false));
    if (c.fixedSites > 0)
        html +=
            QStringLiteral(" &nbsp;·&nbsp; ") +
            (c.fixedSites == 1 ? tr("<b>1 fixed site</b>")
                               : tr("<b>%1 fixed sites</b>").arg(c.fixedSites)) +
            (c.achievedSavingNs >= 0
                 ? tr(": predicted saving %1, achieved %2")
                       .arg(durationText(c.predictedSavingNs), durationText(c.achievedSavingNs))
                 // A slower after run achieved nothing (issue 42: "achieved −3.802 s").
                 : tr(": predicted saving %1; <span style='color:#c62828'>the after run is %2 "
                      "slower, nothing achieved</span>")
                       .arg(durationText(c.predictedSavingNs), durationText(-c.achievedSavingNs)));
    if (const QString differs = differentPrograms(*m_runs); !differs.isEmpty())
        html += QStringLiteral("<br><span style='color:#c62828'>%1</span>").arg(differs);
    m_heading->setText(html);
    m_heading->setToolTip(QStringLiteral("%1\n%2").arg(m_runs->before.file, m_runs->after.file));
    const QString origin = perStep ? tr("0 = its first step") : tr("0 = its active window's start");
    m_beforeCaption->setText(tr("<b>Before</b> · %1 · %2").arg(fileName(m_runs->before), origin));
    m_afterCaption->setText(tr("<b>After</b> · %1 · %2").arg(fileName(m_runs->after), origin));
}

QString CompareView::differentPrograms(const ComparedRuns& runs) {
    const auto command = [](const ComparedRun& run) {
        return run.session ? QString::fromStdString(run.session->metaValue(format::meta::kCommand))
                           : QString();
    };
    const QString before = command(runs.before), after = command(runs.after);
    if (before.isEmpty() || after.isEmpty() || before == after)
        return {};
    // The fix changes the program, not usually how it was run: a different command may be
    // another program altogether, whose sites and times do not compare.
    return tr("The runs' commands differ (before: %1; after: %2): a comparison assumes one "
              "program, with and without a fix.")
        .arg(before.left(160).toHtmlEscaped(), after.left(160).toHtmlEscaped());
}

void CompareView::selectSite(int row) {
    const model::SiteComparison* site = m_model->site(row);
    if (!m_runs || !site)
        return;
    const model::EventSpans& before = m_runs->beforeEvents[size_t(row)];
    const model::EventSpans& after = m_runs->afterEvents[size_t(row)];
    for (const auto& [timeline, events] :
         {std::pair{m_before, &before}, std::pair{m_after, &after}}) {
        if (events->empty())
            timeline->clearSelection();
        else
            timeline->highlight(*events); // frames them all: the first is framed below
    }
    // The first sync where the site is, before if it is there; the other run follows.
    if (!before.empty())
        frameFirstSync(m_before, m_runs->before);
    else if (!after.empty())
        frameFirstSync(m_after, m_runs->after);

    const QString label = QString::fromStdString(site->site.label());
    const int beforeCount = int(model::eventCount(before));
    const int afterCount = int(model::eventCount(after));
    QString text;
    if (beforeCount > 0 && afterCount > 0)
        text = tr("%1: %2 before, %3 after.").arg(label, syncs(beforeCount), syncs(afterCount));
    else if (beforeCount > 0)
        text = tr("%1: %2 before; none after — the site is not in the after run.")
                   .arg(label, syncs(beforeCount));
    else if (afterCount > 0)
        text = tr("%1: none before — the site is not in the before run; %2 after.")
                   .arg(label, syncs(afterCount));
    else
        text = tr("%1: no syncs to show in either run.").arg(label);
    m_status->setText(text);
    emit siteSelected(row);
}

// The first sync (highlight() selected it) with a step either side when the runs have steps, so
// the same stretch of the other run shows beside it; without steps, a fiftieth of the window
// either side (the sync alone may be a few µs, which shows nothing of either run).
void CompareView::frameFirstSync(TimelineWidget* timeline, const ComparedRun& run) {
    const model::EventRef first = timeline->selectedEvent();
    if (!first.isValid())
        return;
    const model::RunTotals& totals =
        &run == &m_runs->before ? m_runs->comparison.before : m_runs->comparison.after;
    const int64_t context =
        m_runs->alignedOnSteps ? std::llround(totals.stepNs) : totals.windowNs / 50;
    timeline->setVisibleRange(first.start(*run.session) - context,
                              first.end(*run.session) + context);
}

} // namespace stallscope::views
