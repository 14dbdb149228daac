#include "views/panels/statistics_tables_widget.h"

#include "views/panels/api_call_table_model.h"
#include "views/panels/kernel_table_model.h"
#include "views/panels/panel_widgets.h"
#include "views/panels/site_event_index.h"
#include "views/panels/sync_site_table_model.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace stallscope::views {

StatisticsTablesWidget::StatisticsTablesWidget(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("statisticsTables"));
    QVBoxLayout* layout = flushColumn(this, 2);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("tableFilter"));
    m_filter->setPlaceholderText(tr("Filter by name…"));
    m_filter->setClearButtonEnabled(true);
    layout->addWidget(m_filter);
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    layout->addWidget(m_tabs, 1);

    m_sites = new SyncSiteTableModel(this);
    m_kernels = new KernelTableModel(this);
    m_apiCalls = new ApiCallTableModel(this);
    // Default order: the biggest cost first, as the models already sort.
    addTable(SyncSitesTab, m_sites, tr("Sync Sites"), SyncSiteTableModel::TotalColumn);
    addTable(KernelsTab, m_kernels, tr("Kernels"), KernelTableModel::TotalColumn);
    addTable(ApiCallsTab, m_apiCalls, tr("API Calls"), ApiCallTableModel::TotalColumn);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        for (QSortFilterProxyModel* proxy : m_proxies)
            proxy->setFilterFixedString(text);
    });
}

QTableView* StatisticsTablesWidget::addTable(Tab tab, QAbstractItemModel* model,
                                             const QString& title, int sortColumn) {
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model);
    proxy->setSortRole(Qt::UserRole); // every model's SortRole: raw numbers
    proxy->setFilterKeyColumn(0);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    auto* table = new QTableView(m_tabs);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->sortByColumn(sortColumn, Qt::DescendingOrder);
    setUpListTable(table);
    table->setAlternatingRowColors(true);
    QHeaderView* header = table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(0, QHeaderView::Stretch);
    connect(table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, tab](const QModelIndex& current) { rowSelected(tab, current); });
    m_proxies[tab] = proxy;
    m_tables[tab] = table;
    m_tabs->addTab(table, title);
    return table;
}

void StatisticsTablesWidget::setSession(std::shared_ptr<const model::Session> session,
                                        std::shared_ptr<const model::SessionDatabase> database) {
    m_kernels->setSession(session, std::move(database));
    m_apiCalls->setSession(std::move(session));
}

void StatisticsTablesWidget::setReport(std::shared_ptr<const model::InsightReport> report) {
    m_sites->setReport(std::move(report));
}

void StatisticsTablesWidget::rowSelected(Tab tab, const QModelIndex& proxyIndex) {
    if (m_marking || !proxyIndex.isValid())
        return;
    const int row = m_proxies[tab]->mapToSource(proxyIndex).row();
    switch (tab) {
    case SyncSitesTab:
        if (const model::SyncSiteStats* site = m_sites->site(row))
            emit syncSiteSelected(*site);
        break;
    case KernelsTab:
        emit eventsSelected(m_kernels->events(row), m_kernels->name(row));
        break;
    case ApiCallsTab:
        emit eventsSelected(m_apiCalls->events(row), m_apiCalls->name(row));
        break;
    }
}

bool StatisticsTablesWidget::markSite(const model::SourceSite& site) {
    for (int row = 0; row < m_sites->rowCount(); ++row)
        if (sameSite(m_sites->site(row)->site, site))
            return markRow(SyncSitesTab, row);
    clearMarks();
    return false;
}

bool StatisticsTablesWidget::markName(Tab tab, const QString& name) {
    const NameStatsTableModel* names = tab == KernelsTab
                                           ? static_cast<const NameStatsTableModel*>(m_kernels)
                                       : tab == ApiCallsTab ? m_apiCalls
                                                            : nullptr;
    for (int row = 0; names && row < names->rowCount(); ++row)
        if (names->name(row) == name)
            return markRow(tab, row);
    clearMarks();
    return false;
}

bool StatisticsTablesWidget::markRow(Tab tab, int sourceRow) {
    const QModelIndex index =
        m_proxies[tab]->mapFromSource(m_proxies[tab]->sourceModel()->index(sourceRow, 0));
    clearMarks();
    if (!index.isValid())
        return false; // filtered out
    m_marking = true;
    m_tabs->setCurrentIndex(tab);
    m_tables[tab]->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                                QItemSelectionModel::Rows);
    m_tables[tab]->scrollTo(index);
    m_marking = false;
    return true;
}

void StatisticsTablesWidget::clearMarks() {
    m_marking = true;
    for (QTableView* table : m_tables)
        table->selectionModel()->clear();
    m_marking = false;
}

} // namespace stallscope::views
