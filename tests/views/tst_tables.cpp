// The statistics tables: per-name kernel and API-call statistics from the session columns, the
// sync-site model from a report, sorting and filtering through the proxies, row selection
// reporting the right events; every model (and proxy) passes QAbstractItemModelTester.
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "tests/support/test_suite.h"
#include "tests/views/insight_session.h"
#include "views/panels/api_call_table_model.h"
#include "views/panels/kernel_table_model.h"
#include "views/panels/name_statistics.h"
#include "views/panels/statistics_tables_widget.h"
#include "views/panels/sync_site_table_model.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using namespace stallscope::views;
namespace fixture = insight_session;

class TablesTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const model::Session> m_session;
    std::shared_ptr<model::SessionDatabase> m_database;

    static std::shared_ptr<const model::InsightReport> report() {
        auto report = std::make_shared<model::InsightReport>();
        const auto python = model::SourceLanguage::Python;
        report->sites = {
            {.site = {"/p/train.py", 48, "train_step", python},
             .count = 10,
             .calls = 9,
             .savingsNs = 7'500'000,
             .blockedNs = 10'000'000,
             .medianBlockedNs = 1'000'000,
             .windowBlockedNs = 8'000'000,
             .share = 0.4},
            {.site = {"/p/model.py", 12, "forward", python},
             .count = 4,
             .calls = 4,
             .blockedNs = 80'000,
             .medianBlockedNs = 20'000}, // in start-up only: outside the window
        };
        return report;
    }

    static int rowOf(const QAbstractItemModel* model, const QString& name) {
        for (int row = 0; row < model->rowCount(); ++row)
            if (model->index(row, 0).data().toString() == name)
                return row;
        return -1;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QString path;
        m_database = fixture::writeAndOpen(m_dir, &path);
        QVERIFY(m_database);
        model::LoadResult result = model::SessionLoader::load(path.toStdString());
        QVERIFY2(result.ok(), result.error.c_str());
        m_session = std::shared_ptr<const model::Session>(std::move(result.session));
    }

    void kernelModel() {
        KernelTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(m_session, m_database);
        QCOMPARE(model.rowCount(), 2);
        const int gemm = rowOf(&model, QString::fromLatin1(fixture::kGemm));
        QVERIFY(gemm >= 0);
        const int count = fixture::kSteps * fixture::kLaunchesPerStep / 2;
        QCOMPARE(model.stats(gemm)->count, int64_t(count));
        QCOMPARE(model.stats(gemm)->totalNs, int64_t(count) * 100'000);
        QCOMPARE(model.stats(gemm)->maxNs, int64_t(100'000));
        QCOMPARE(model.index(gemm, KernelTableModel::AverageColumn).data().toString(),
                 QStringLiteral("100 µs"));
        QCOMPARE(model.index(gemm, KernelTableModel::ShareColumn).data().toString(),
                 QStringLiteral("50.0 %"));
        QCOMPARE(model.index(gemm, KernelTableModel::GridColumn).data().toString(),
                 QStringLiteral("(128, 1, 1) × (256, 1, 1)"));
        // The row's events: every gemm, however they interleave with relu.
        const model::EventSpans spans = model.events(gemm);
        QCOMPARE(model::eventCount(spans), int64_t(count));
        for (const model::EventSpan& span : spans)
            for (uint32_t i = 0; i < span.count; ++i)
                QCOMPARE(span.at(i).name(*m_session), std::string(fixture::kGemm));
        model.setSession(nullptr, nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void apiCallModel() {
        ApiCallTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(m_session);
        const int launch = rowOf(&model, QStringLiteral("cudaLaunchKernel"));
        const int sync = rowOf(&model, QStringLiteral("cudaStreamSynchronize"));
        QVERIFY(launch >= 0 && sync >= 0);
        QCOMPARE(model.stats(launch)->count, int64_t(fixture::kSteps * fixture::kLaunchesPerStep));
        QCOMPARE(model.stats(sync)->count, int64_t(fixture::kSteps));
        QCOMPARE(model.stats(sync)->averageNs(), fixture::kSyncNs);
        QCOMPARE(sync, 0); // largest total first
        QCOMPARE(model::eventCount(model.events(sync)), int64_t(fixture::kSteps));
    }

    void syncSiteModel() {
        SyncSiteTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReport(report());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, SyncSiteTableModel::SiteColumn).data().toString(),
                 QStringLiteral("train.py:48 in train_step"));
        QCOMPARE(model.index(0, SyncSiteTableModel::TotalColumn).data().toString(),
                 QStringLiteral("10 ms"));
        QCOMPARE(model.index(0, SyncSiteTableModel::ShareColumn).data().toString(),
                 QStringLiteral("40.0 %"));
        QCOMPARE(model.index(0, SyncSiteTableModel::ShareColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("8 ms blocked in the analysis window, 10 ms over the whole run"));
        QCOMPARE(model.index(1, SyncSiteTableModel::ShareColumn).data().toString(),
                 QStringLiteral("\u2013"));
        // Each share says what it is a share of (issue 42: a card's 27.7 % beside this 7.8 %).
        QCOMPARE(model.headerData(SyncSiteTableModel::ShareColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Window share"));
        QVERIFY(model.headerData(SyncSiteTableModel::ShareColumn, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("same share as an insight card's saving")));
        QVERIFY(!model.headerData(SyncSiteTableModel::SiteColumn, Qt::Horizontal, Qt::ToolTipRole)
                     .isValid());
        QCOMPARE(model.index(1, SyncSiteTableModel::MedianColumn)
                     .data(SyncSiteTableModel::SortRole)
                     .toLongLong(),
                 20'000LL);
        model.setReport(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    // Calls and the simulated saving: "—" where the replay did not simulate the site; sorting
    // by saving puts the simulated sites first; the columns add up to the report's numbers.
    void syncSiteCallsAndSavings() {
        auto sites = std::make_shared<model::InsightReport>(*report());
        sites->sites.push_back({.site = {"/p/data.py", 7, "load", model::SourceLanguage::Python},
                                .count = 3,
                                .calls = 2,
                                .savingsNs = 0,
                                .blockedNs = 30'000});
        SyncSiteTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReport(sites);
        QCOMPARE(model.headerData(SyncSiteTableModel::CallsColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Calls"));
        QCOMPARE(model.headerData(SyncSiteTableModel::SavingColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Saving"));
        QCOMPARE(model.index(0, SyncSiteTableModel::CallsColumn).data().toString(),
                 QStringLiteral("9"));
        QCOMPARE(model.index(0, SyncSiteTableModel::SavingColumn).data().toString(),
                 QStringLiteral("7.5 ms"));
        QCOMPARE(model.index(1, SyncSiteTableModel::SavingColumn).data().toString(),
                 QStringLiteral("—"));
        QCOMPARE(model.index(2, SyncSiteTableModel::SavingColumn).data().toString(),
                 QStringLiteral("0 ns"));
        qlonglong calls = 0, savings = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            calls += model.index(row, SyncSiteTableModel::CallsColumn)
                         .data(SyncSiteTableModel::SortRole)
                         .toLongLong();
            const qlonglong saving = model.index(row, SyncSiteTableModel::SavingColumn)
                                         .data(SyncSiteTableModel::SortRole)
                                         .toLongLong();
            savings += std::max(saving, 0LL);
        }
        QCOMPARE(calls, 9LL + 4 + 2);
        QCOMPARE(savings, 7'500'000LL);

        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(SyncSiteTableModel::SortRole);
        proxy.sort(SyncSiteTableModel::SavingColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("train.py:48 in train_step"));
        QCOMPARE(proxy.index(1, 0).data().toString(), QStringLiteral("data.py:7 in load"));
        QCOMPARE(proxy.index(2, SyncSiteTableModel::SavingColumn).data().toString(),
                 QStringLiteral("—")); // not simulated: last
        proxy.sort(SyncSiteTableModel::CallsColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, SyncSiteTableModel::CallsColumn).data().toString(),
                 QStringLiteral("2"));
    }

    void widgetSortsFiltersAndSelects() {
        StatisticsTablesWidget widget;
        widget.resize(900, 400);
        // Proxies too: what the views see must be a valid model at every step.
        QAbstractItemModelTester t0(widget.proxy(StatisticsTablesWidget::SyncSitesTab),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t1(widget.proxy(StatisticsTablesWidget::KernelsTab),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(widget.proxy(StatisticsTablesWidget::ApiCallsTab),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        widget.setSession(m_session, m_database);
        widget.setReport(report());
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));

        // Sort by count, ascending: 2 ms sorts after 900 µs by value, not by text.
        QSortFilterProxyModel* apis = widget.proxy(StatisticsTablesWidget::ApiCallsTab);
        apis->sort(ApiCallTableModel::CountColumn, Qt::AscendingOrder);
        QCOMPARE(apis->index(0, 0).data().toString(), QStringLiteral("cudaDeviceSynchronize"));
        QCOMPARE(apis->index(apis->rowCount() - 1, 0).data().toString(),
                 QStringLiteral("cudaLaunchKernel"));

        // Filtering narrows every table.
        widget.filterEdit()->setText(QStringLiteral("SGEMM"));
        QSortFilterProxyModel* kernels = widget.proxy(StatisticsTablesWidget::KernelsTab);
        QCOMPARE(kernels->rowCount(), 1);
        QCOMPARE(apis->rowCount(), 0);
        widget.filterEdit()->clear();
        QCOMPARE(kernels->rowCount(), 2);

        // Clicking a kernel row reports that kernel's events.
        QSignalSpy events(&widget, &StatisticsTablesWidget::eventsSelected);
        widget.tabs()->setCurrentIndex(StatisticsTablesWidget::KernelsTab);
        QTableView* table = widget.table(StatisticsTablesWidget::KernelsTab);
        const int row = rowOf(kernels, QString::fromLatin1(fixture::kRelu));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualRect(kernels->index(row, 0)).center());
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.front().at(1).toString(), QString::fromLatin1(fixture::kRelu));
        QCOMPARE(model::eventCount(events.front().at(0).value<model::EventSpans>()),
                 int64_t(fixture::kSteps * fixture::kLaunchesPerStep / 2));

        // A sync-site row reports the site.
        QSignalSpy sites(&widget, &StatisticsTablesWidget::syncSiteSelected);
        widget.tabs()->setCurrentIndex(StatisticsTablesWidget::SyncSitesTab);
        QTableView* siteTable = widget.table(StatisticsTablesWidget::SyncSitesTab);
        QTest::mouseClick(siteTable->viewport(), Qt::LeftButton, {},
                          siteTable->visualRect(siteTable->model()->index(1, 0)).center());
        // (Focusing the table may first make row 0 current: the click's row comes last.)
        QVERIFY(!sites.isEmpty());
        QCOMPARE(sites.back().at(0).value<model::SyncSiteStats>().site.line, int64_t(12));
    }

    // The first click on a count or time column sorts largest first (the cost people look for);
    // on the name column it sorts A to Z. A real click on the header, through the proxy.
    void firstClickSortsCostsLargestFirst() {
        StatisticsTablesWidget widget;
        widget.resize(900, 400);
        widget.setSession(m_session, m_database);
        widget.setReport(report());
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        widget.tabs()->setCurrentIndex(StatisticsTablesWidget::ApiCallsTab);
        QTableView* table = widget.table(StatisticsTablesWidget::ApiCallsTab);
        QSortFilterProxyModel* apis = widget.proxy(StatisticsTablesWidget::ApiCallsTab);
        QHeaderView* header = table->horizontalHeader();
        auto clickHeader = [&](int column) {
            QTest::mouseClick(
                header->viewport(), Qt::LeftButton, Qt::NoModifier,
                QPoint(header->sectionViewportPosition(column) + 5, header->height() / 2));
        };
        clickHeader(ApiCallTableModel::CountColumn);
        QCOMPARE(header->sortIndicatorSection(), int(ApiCallTableModel::CountColumn));
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        QCOMPARE(apis->index(0, 0).data().toString(), QStringLiteral("cudaLaunchKernel"));
        clickHeader(ApiCallTableModel::NameColumn);
        QCOMPARE(header->sortIndicatorOrder(), Qt::AscendingOrder);
        QCOMPARE(apis->index(0, 0).data().toString(), QStringLiteral("cudaDeviceSynchronize"));
        // Every table of the widget follows the same rule.
        for (auto tab : {StatisticsTablesWidget::SyncSitesTab, StatisticsTablesWidget::KernelsTab,
                         StatisticsTablesWidget::ApiCallsTab}) {
            QAbstractItemModel* model = widget.proxy(tab)->sourceModel();
            QCOMPARE(model->headerData(0, Qt::Horizontal, Qt::InitialSortOrderRole),
                     QVariant(int(Qt::AscendingOrder)));
            for (int column = 1; column < model->columnCount(); ++column)
                QCOMPARE(model->headerData(column, Qt::Horizontal, Qt::InitialSortOrderRole),
                         QVariant(int(Qt::DescendingOrder)));
        }
    }
};

STALLSCOPE_TEST_MAIN(TablesTest)
#include "tst_tables.moc"
