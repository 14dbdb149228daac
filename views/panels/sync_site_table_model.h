// SyncSiteTableModel: every host-blocking sync site of the insight report — site, function,
// sync records, user-visible calls, total and median blocked time, share of wall time, GPU idle
// after, and the simulated saving of fixing it ("—" for sites the replay did not simulate). Display
// text is formatted; SortRole holds the raw number so the proxy sorts 2 ms after 900 µs.
#pragma once

#include "model/analysis/insight.h"
#include "views/panels/titled_table_model.h"

#include <memory>

namespace stallscope::views {

class SyncSiteTableModel : public TitledTableModel {
    Q_OBJECT
public:
    enum Column {
        SiteColumn,
        CountColumn,
        CallsColumn,
        TotalColumn,
        MedianColumn,
        ShareColumn,
        BubbleColumn,
        SavingColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit SyncSiteTableModel(QObject* parent = nullptr);

    void setReport(std::shared_ptr<const model::InsightReport> report);
    const model::SyncSiteStats* site(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    QString columnTitle(int section) const override;
    QString columnToolTip(int section) const override;

private:
    std::shared_ptr<const model::InsightReport> m_report;
};

} // namespace stallscope::views
