// The compare view (views/compare): its table holds compareSessions()'s sites with their statuses
// and per-unit numbers, passes QAbstractItemModelTester, colours statuses and sorts cost columns
// largest first; the two timelines share one axis (each run's first step at the same x, or its
// window's start without steps) and follow each other's zoom and pan both ways; clicking a row
// highlights the site's syncs in each run, nothing where the site is absent.
#include "model/analysis/insight_engine.h"
#include "model/compare/session_compare.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/loop_session.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"
#include "views/compare/compare_table_model.h"
#include "views/compare/compare_view.h"
#include "views/compare/compared_runs.h"
#include "views/compare/timeline_link.h"
#include "views/timeline/timeline_widget.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>

using namespace stallscope;
using namespace stallscope::views;
using model::SiteStatus;

namespace {

// The helpers give nothing (null, an empty path) when a run cannot be written, loaded or
// compared, which fails the test.
std::shared_ptr<const model::Session> load(const std::string& path) {
    model::LoadResult loaded = model::SessionLoader::load(path);
    if (!loaded.ok()) {
        STALLSCOPE_FAIL("cannot load %s: %s", path.c_str(), loaded.error.c_str());
        return nullptr;
    }
    return std::shared_ptr<const model::Session>(std::move(loaded.session));
}

std::shared_ptr<const ComparedRuns> compare(const std::string& before, const std::string& after) {
    if (before.empty() || after.empty()) // a run's write failed
        return nullptr;
    auto beforeSession = load(before);
    auto afterSession = load(after);
    if (!beforeSession || !afterSession)
        return nullptr;
    auto runs = compareRuns({beforeSession, nullptr, QString::fromStdString(before), 0},
                            {afterSession, nullptr, QString::fromStdString(after), 0});
    if (!runs)
        STALLSCOPE_FAIL("compareRuns(%s, %s) returned nothing", before.c_str(), after.c_str());
    return runs;
}

// The table's row of the site at file:line, or -1.
int rowOf(const CompareTableModel& model, const std::string& file, int64_t line) {
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.site(row)->site.file == file && model.site(row)->site.line == line)
            return row;
    return -1;
}

QVariant cell(const CompareTableModel& model, int row, int column, int role = Qt::DisplayRole) {
    return model.data(model.index(row, column), role);
}

// Clicks the table's row showing source row `row` of the model.
void clickRow(CompareView& view, int row) {
    const QModelIndex index =
        view.proxy()->mapFromSource(view.tableModel()->index(row, CompareTableModel::SiteColumn));
    QTest::mouseClick(view.table()->viewport(), Qt::LeftButton, Qt::NoModifier,
                      view.table()->visualRect(index).center());
}

int64_t highlighted(const TimelineWidget* timeline) {
    return model::eventCount(timeline->highlightedSpans());
}

} // namespace

class CompareViewTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::string m_base, m_pipelined, m_often;
    model::SyntheticStats m_baseStats;

    std::string path(const char* name) const {
        return m_dir.filePath(QString::fromLatin1(name)).toStdString();
    }
    std::string generate(const char* name, const model::SyntheticOptions& options,
                         model::SyntheticStats* stats = nullptr) {
        std::string error;
        if (!model::writeSyntheticSession(path(name), options, stats, &error)) {
            STALLSCOPE_FAIL("cannot generate %s: %s", path(name).c_str(), error.c_str());
            return {};
        }
        return path(name);
    }
    std::string writeLoop(const char* name, const loop_session::Options& options) {
        const std::string error = loop_session::write(path(name), options);
        if (!error.empty()) {
            STALLSCOPE_FAIL("cannot write %s: %s", path(name).c_str(), error.c_str());
            return {};
        }
        return path(name);
    }
    // A view showing `runs` at a desktop size, on screen.
    static bool show(CompareView& view, std::shared_ptr<const ComparedRuns> runs) {
        view.resize(1400, 900);
        view.show();
        view.setRuns(std::move(runs));
        return QTest::qWaitForWindowExposed(&view);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        model::SyntheticOptions options;
        options.targetEvents = 60'000;
        m_base = generate("base.stallscope", options, &m_baseStats);
        QVERIFY(!m_base.empty());
        options.inLoopSync = false; // the loop's loss.item() removed
        m_pipelined = generate("pipelined.stallscope", options);
        QVERIFY(!m_pipelined.empty());
        options.inLoopSync = true;
        options.pageableEvery = 2; // blocking copies five times as often
        m_often = generate("often.stallscope", options);
        QVERIFY(!m_often.empty());
    }

    // Row for row what compareSessions() says of the same two runs analyzed on their own:
    // statuses, per-unit numbers, the saving shown for fixed sites only; the blocked time per
    // step before adds up to the before run's sites'.
    void tableRowsAreTheComparisonsSites() {
        for (const auto& after : {m_pipelined, m_often}) {
            const auto runs = compare(m_base, after);
            QVERIFY(runs);
            CompareTableModel model;
            QAbstractItemModelTester tester(&model,
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
            model.setComparison(
                std::shared_ptr<const model::SessionComparison>(runs, &runs->comparison));

            const auto beforeSession = load(m_base), afterSession = load(after);
            QVERIFY(beforeSession && afterSession);
            model::SessionDatabase beforeDb, afterDb;
            std::string error;
            QVERIFY(beforeDb.open(m_base, &error) && afterDb.open(after, &error));
            const auto beforeReport = model::InsightEngine::analyze(*beforeSession, beforeDb);
            const auto afterReport = model::InsightEngine::analyze(*afterSession, afterDb);
            const auto expected =
                model::compareSessions({beforeSession.get(), &beforeDb, &beforeReport},
                                       {afterSession.get(), &afterDb, &afterReport});
            QCOMPARE(model.rowCount(), int(expected.sites.size()));
            QVERIFY(model.rowCount() >= 3);
            std::map<std::string, const model::SiteComparison*> byKey;
            for (const auto& site : expected.sites)
                byKey[site.key] = &site;
            double blockedBefore = 0;
            for (int row = 0; row < model.rowCount(); ++row) {
                const model::SiteComparison* site = model.site(row);
                QVERIFY(byKey.count(site->key));
                const model::SiteComparison& want = *byKey[site->key];
                QCOMPARE(cell(model, row, CompareTableModel::StatusColumn).toString(),
                         QString::fromUtf8(model::siteStatusName(want.status).data()));
                QCOMPARE(cell(model, row, CompareTableModel::SiteColumn).toString(),
                         QString::fromStdString(want.site.label()));
                const int sort = CompareTableModel::SortRole;
                QCOMPARE(cell(model, row, CompareTableModel::CallsBeforeColumn, sort).toDouble(),
                         want.before.calls);
                QCOMPARE(cell(model, row, CompareTableModel::CallsAfterColumn, sort).toDouble(),
                         want.after.calls);
                QCOMPARE(cell(model, row, CompareTableModel::BlockedBeforeColumn, sort).toDouble(),
                         want.before.blockedNs);
                QCOMPARE(cell(model, row, CompareTableModel::BlockedAfterColumn, sort).toDouble(),
                         want.after.blockedNs);
                const bool savingShown = !cell(model, row, CompareTableModel::PredictedSavingColumn)
                                              .toString()
                                              .isEmpty();
                QCOMPARE(savingShown,
                         want.status == SiteStatus::Fixed && want.before.savingsNs >= 0);
                if (!want.after.present)
                    QCOMPARE(cell(model, row, CompareTableModel::CallsAfterColumn).toString(),
                             QStringLiteral("—"));
                blockedBefore +=
                    cell(model, row, CompareTableModel::BlockedBeforeColumn, sort).toDouble();
            }
            double sitesBlocked = 0;
            for (const model::SyncSiteStats& stats : beforeReport.sites)
                sitesBlocked += double(stats.blockedNs);
            QVERIFY(std::abs(blockedBefore - sitesBlocked / expected.before.units) < 1.0);
        }
    }

    // The loop's .item() removed: fixed, in green, with its saving; copies more often: worse,
    // in red; unchanged sites have no colour of their own. The heading grades the estimate.
    void statusesAreColouredAndTheHeadingGradesTheEstimate() {
        const auto pipelined = compare(m_base, m_pipelined);
        QVERIFY(pipelined);
        CompareView view;
        view.setRuns(pipelined);
        const CompareTableModel& model = *view.tableModel();
        const int item = rowOf(model, "train.py", 48);
        QVERIFY(item >= 0);
        QCOMPARE(cell(model, item, CompareTableModel::StatusColumn).toString(),
                 QStringLiteral("fixed"));
        QCOMPARE(
            cell(model, item, CompareTableModel::StatusColumn, Qt::BackgroundRole).value<QColor>(),
            CompareTableModel::statusColor(SiteStatus::Fixed));
        QVERIFY(CompareTableModel::statusColor(SiteStatus::Fixed).green() >
                CompareTableModel::statusColor(SiteStatus::Fixed).red());
        const QString heading = view.headingLabel()->text();
        QVERIFY2(heading.contains(QStringLiteral("1 fixed site")), qPrintable(heading));
        QVERIFY2(heading.contains(QStringLiteral("predicted saving")), qPrintable(heading));
        QVERIFY2(heading.contains(QStringLiteral("Step time")), qPrintable(heading));

        const auto oftenRuns = compare(m_base, m_often);
        QVERIFY(oftenRuns);
        CompareView worse;
        worse.setRuns(oftenRuns);
        const CompareTableModel& often = *worse.tableModel();
        const int copy = rowOf(often, "train.py", 53);
        QVERIFY(copy >= 0);
        QCOMPARE(cell(often, copy, CompareTableModel::StatusColumn).toString(),
                 QStringLiteral("worse"));
        const QColor red =
            cell(often, copy, CompareTableModel::StatusColumn, Qt::BackgroundRole).value<QColor>();
        QVERIFY(red.red() > 2 * red.green());
        const int same = rowOf(often, "train.py", 48);
        QCOMPARE(cell(often, same, CompareTableModel::StatusColumn).toString(),
                 QStringLiteral("same"));
        QVERIFY(!cell(often, same, CompareTableModel::StatusColumn, Qt::BackgroundRole).isValid());
    }

    // A click on a cost column's header sorts it largest first; the comparison's own order
    // (fixed and new first) holds until then. The sorted proxy passes the model tester too.
    void costColumnsSortLargestFirst() {
        CompareView view;
        QAbstractItemModelTester tester(view.proxy(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto runs = compare(m_base, m_often);
        QVERIFY(runs);
        QVERIFY(show(view, runs));
        const QModelIndex top = view.proxy()->index(0, CompareTableModel::StatusColumn);
        QCOMPARE(view.proxy()->mapToSource(top).row(), 0);
        QHeaderView* header = view.table()->horizontalHeader();
        const int column = CompareTableModel::BlockedAfterColumn;
        QTest::mouseClick(
            header->viewport(), Qt::LeftButton, Qt::NoModifier,
            QPoint(header->sectionViewportPosition(column) + 5, header->height() / 2));
        QCOMPARE(header->sortIndicatorSection(), column);
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        double largest = 0;
        for (int row = 0; row < view.tableModel()->rowCount(); ++row)
            largest = std::max(largest, view.tableModel()->site(row)->after.blockedNs);
        QCOMPARE(view.proxy()->index(0, column).data(CompareTableModel::SortRole).toDouble(),
                 largest);
        QCOMPARE(view.tableModel()->headerData(CompareTableModel::SiteColumn, Qt::Horizontal,
                                               Qt::InitialSortOrderRole),
                 QVariant(int(Qt::AscendingOrder)));
    }

    // Steps in both runs: each run's first step at the same x, both rulers counting from it; zoom
    // or pan either timeline and the other shows the same stretch of its own run.
    void timelinesShareOneAxisAlignedByStep() {
        const auto runs = compare(writeLoop("aligned0.stallscope", {}),
                                  writeLoop("aligned1.stallscope", {.startNs = 3'500'000}));
        QVERIFY(runs);
        QVERIFY(runs->alignedOnSteps);
        QCOMPARE(runs->comparison.unit, std::string("step"));
        QCOMPARE(runs->before.anchorNs, int64_t(1'000'000));
        QCOMPARE(runs->after.anchorNs, int64_t(3'500'000));
        CompareView view;
        QVERIFY(show(view, runs));
        TimelineWidget* before = view.beforeTimeline();
        TimelineWidget* after = view.afterTimeline();
        QCOMPARE(view.link()->offsetNs(), int64_t(2'500'000));
        QCOMPARE(before->timeOrigin(), int64_t(1'000'000));
        QCOMPARE(after->timeOrigin(), int64_t(3'500'000));
        // Both open on their first steps, five of them (issue 42: on an empty 704 µs slice).
        const int64_t fiveSteps = 5 * runs->before.report->summary.stepNs;
        QVERIFY(fiveSteps > 0);
        QVERIFY(std::abs(before->viewport().visibleStartNs() - 1'000'000) <= 2);
        QVERIFY(std::abs(after->viewport().visibleStartNs() - 3'500'000) <= 2);
        QVERIFY2(std::abs(before->viewport().visibleDurationNs() - double(fiveSteps)) <=
                     0.01 * double(fiveSteps),
                 qPrintable(QString::number(before->viewport().visibleDurationNs())));

        // The same moment of each run, 3.3 ms after its first step, is at the same x.
        auto sameX = [&] {
            const double x = before->xForTime(1'000'000 + 3'300'000);
            return std::abs(after->xForTime(3'500'000 + 3'300'000) - x) < 0.01 &&
                   std::abs(before->viewport().nsPerPixel() - after->viewport().nsPerPixel()) <
                       1e-9 * before->viewport().nsPerPixel() + 1e-6;
        };
        QVERIFY(sameX());
        before->setVisibleRange(1'000'000 + 2'000'000, 1'000'000 + 5'000'000);
        QVERIFY(std::abs(after->viewport().visibleStartNs() - (3'500'000 + 2'000'000)) <= 2);
        QVERIFY(sameX());
        after->zoomAround(after->canvasRect().left() + 200.0, 4.0); // the other way round
        QVERIFY(before->viewport().visibleDurationNs() < 1'000'000);
        QVERIFY(std::abs(before->viewport().visibleStartNs() + 2'500'000 -
                         after->viewport().visibleStartNs()) <= 2);
        QVERIFY(sameX());
        before->panByPixels(-150);
        QVERIFY(sameX());
        after->panByPixels(80);
        QVERIFY(sameX());
    }

    // Without steps the runs line up on their active windows' starts (their first kernels).
    void withoutStepsTheWindowsStartsAlign() {
        const auto runs =
            compare(writeLoop("nosteps0.stallscope", {.steps = false}),
                    writeLoop("nosteps1.stallscope", {.steps = false, .startNs = 7'000'000}));
        QVERIFY(runs);
        QVERIFY(!runs->alignedOnSteps);
        QCOMPARE(runs->comparison.unit, std::string("s of kernel time"));
        QCOMPARE(runs->before.anchorNs, 1'000'000 + loop_session::kKernelOffsetNs);
        QCOMPARE(runs->after.anchorNs, 7'000'000 + loop_session::kKernelOffsetNs);
        CompareView view;
        QVERIFY(show(view, runs));
        QCOMPARE(view.link()->offsetNs(), int64_t(6'000'000));
        view.afterTimeline()->setVisibleRange(7'500'000, 9'000'000);
        QVERIFY(std::abs(view.beforeTimeline()->viewport().visibleStartNs() - 1'500'000) <= 2);
    }

    // A site in both runs (its line moved by an edit): a click highlights its 20 syncs in each
    // and frames the first in the before run, the after run showing the same moment.
    void clickingARowHighlightsTheSiteInBothRuns() {
        const auto runs =
            compare(writeLoop("click0.stallscope", {}),
                    writeLoop("click1.stallscope", {.syncLine = 32, .startNs = 4'000'000}));
        QVERIFY(runs);
        CompareView view;
        QVERIFY(show(view, runs));
        QCOMPARE(view.tableModel()->rowCount(), 1);
        QCOMPARE(view.tableModel()->site(0)->status, SiteStatus::Same);
        QSignalSpy selected(&view, &CompareView::siteSelected);
        clickRow(view, 0);
        QCOMPARE(selected.size(), 1);
        QCOMPARE(highlighted(view.beforeTimeline()), int64_t(loop_session::kSteps));
        QCOMPARE(highlighted(view.afterTimeline()), int64_t(loop_session::kSteps));
        const model::EventRef first = view.beforeTimeline()->selectedEvent();
        QCOMPARE(first.kind, model::EventKind::Sync);
        QCOMPARE(first.start(*runs->before.session), int64_t(1'000'000 + 20'000));
        const TimelineViewport& shown = view.beforeTimeline()->viewport();
        QVERIFY(shown.visibleStartNs() <= 1'020'000 && shown.visibleEndNs() >= 1'600'000);
        QVERIFY(shown.visibleDurationNs() < 5 * loop_session::kStepNs); // the first, not all
        QVERIFY(std::abs(view.afterTimeline()->viewport().visibleStartNs() -
                         (shown.visibleStartNs() + 3'000'000)) <= 2);
        QVERIFY2(view.statusLabel()->text().contains(QStringLiteral("20 syncs before, 20 syncs "
                                                                    "after")),
                 qPrintable(view.statusLabel()->text()));
    }

    // A fixed site is highlighted where it is (the before run) and nowhere in the after run,
    // which the status line says; the counts are the generator's own.
    void aFixedSiteIsHighlightedOnlyWhereItIs() {
        const auto small = compare(writeLoop("fixed0.stallscope", {}),
                                   writeLoop("fixed1.stallscope", {.syncs = false}));
        QVERIFY(small);
        CompareView view;
        QVERIFY(show(view, small));
        QCOMPARE(view.tableModel()->rowCount(), 1);
        QCOMPARE(view.tableModel()->site(0)->status, SiteStatus::Fixed);
        clickRow(view, 0);
        QCOMPARE(highlighted(view.beforeTimeline()), int64_t(loop_session::kSteps));
        QCOMPARE(highlighted(view.afterTimeline()), int64_t(0));
        QVERIFY(!view.afterTimeline()->isHighlighting());
        QVERIFY2(view.statusLabel()->text().contains(QStringLiteral("not in the after run")),
                 qPrintable(view.statusLabel()->text()));

        // The synthetic loop: the .item() site's syncs, as many as the generator wrote.
        CompareView synthetic;
        const auto pipelined = compare(m_base, m_pipelined);
        QVERIFY(pipelined);
        QVERIFY(show(synthetic, pipelined));
        const int item = rowOf(*synthetic.tableModel(), "train.py", 48);
        QVERIFY(item >= 0);
        clickRow(synthetic, item);
        const model::SyntheticSyncSite* truth = m_baseStats.site("train.py", 48);
        QVERIFY(truth);
        QCOMPARE(highlighted(synthetic.beforeTimeline()), truth->count);
        QCOMPARE(highlighted(synthetic.afterTimeline()), int64_t(0));
        // And the other way round: new in the after run, highlighted there only.
        CompareView reversed;
        const auto reversedRuns = compare(m_pipelined, m_base);
        QVERIFY(reversedRuns);
        QVERIFY(show(reversed, reversedRuns));
        const int added = rowOf(*reversed.tableModel(), "train.py", 48);
        QCOMPARE(reversed.tableModel()->site(added)->status, SiteStatus::New);
        clickRow(reversed, added);
        QCOMPARE(highlighted(reversed.beforeTimeline()), int64_t(0));
        QCOMPARE(highlighted(reversed.afterTimeline()), truth->count);
        QVERIFY(reversed.statusLabel()->text().contains(QStringLiteral("not in the before run")));
    }
};

STALLSCOPE_TEST_MAIN(CompareViewTest)
#include "tst_compare_view.moc"
