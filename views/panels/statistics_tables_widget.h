// StatisticsTablesWidget: the statistics dock — sync sites, kernels and API calls, each a table
// over a QSortFilterProxyModel (click a header to sort), one filter line edit for all three.
// Selecting a row reports its events (kernels, API calls) or its site (sync sites: the main
// window maps a site to its syncs).
#pragma once

#include "model/analysis/insight.h"

#include <QWidget>

#include <memory>

class QAbstractItemModel;
class QLineEdit;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace stallscope::model {
class Session;
class SessionDatabase;
} // namespace stallscope::model

namespace stallscope::views {

class ApiCallTableModel;
class KernelTableModel;
class SyncSiteTableModel;

class StatisticsTablesWidget : public QWidget {
    Q_OBJECT
public:
    enum Tab { SyncSitesTab, KernelsTab, ApiCallsTab };

    explicit StatisticsTablesWidget(QWidget* parent = nullptr);

    void setSession(std::shared_ptr<const model::Session> session,
                    std::shared_ptr<const model::SessionDatabase> database);
    void setReport(std::shared_ptr<const model::InsightReport> report);

    SyncSiteTableModel* syncSiteModel() const { return m_sites; }
    KernelTableModel* kernelModel() const { return m_kernels; }
    ApiCallTableModel* apiCallModel() const { return m_apiCalls; }
    QSortFilterProxyModel* proxy(Tab tab) const { return m_proxies[tab]; }
    QTableView* table(Tab tab) const { return m_tables[tab]; }
    QLineEdit* filterEdit() const { return m_filter; }
    QTabWidget* tabs() const { return m_tabs; }

    // The selection shown elsewhere, marked here without being reported back: the sync site's
    // row, or the kernel or API call row of that name (its tab brought forward). False, with no
    // row marked, when no row shows it.
    bool markSite(const model::SourceSite& site);
    bool markName(Tab tab, const QString& name);
    // No row marked in any table.
    void clearMarks();

signals:
    void syncSiteSelected(const stallscope::model::SyncSiteStats& site);
    void eventsSelected(const stallscope::model::EventSpans& events, const QString& label);

private:
    QTableView* addTable(Tab tab, QAbstractItemModel* model, const QString& title, int sortColumn);
    void rowSelected(Tab tab, const QModelIndex& proxyIndex);
    bool markRow(Tab tab, int sourceRow);

    QLineEdit* m_filter = nullptr;
    QTabWidget* m_tabs = nullptr;
    SyncSiteTableModel* m_sites = nullptr;
    KernelTableModel* m_kernels = nullptr;
    ApiCallTableModel* m_apiCalls = nullptr;
    QSortFilterProxyModel* m_proxies[3] = {};
    QTableView* m_tables[3] = {};
    bool m_marking = false; // rows marked from the selection are not reported back
};

} // namespace stallscope::views
