// KernelTableModel: kernels grouped by name — count, total / average / max time, the launch grid
// (of the first launch; "varies" is not tracked) and the share of all kernel time. Statistics come
// from the session's columns (name_statistics.h); grids from SessionDatabase::kernelDetails.
#pragma once

#include "views/panels/name_stats_table_model.h"

namespace stallscope::model {
class SessionDatabase;
} // namespace stallscope::model

namespace stallscope::views {

class KernelTableModel : public NameStatsTableModel {
    Q_OBJECT
public:
    enum KernelColumn { GridColumn = NameStatsTableModel::ColumnCount, ShareColumn, ColumnCount };

    explicit KernelTableModel(QObject* parent = nullptr);

    // database may be null (no grids then).
    void setSession(std::shared_ptr<const model::Session> session,
                    std::shared_ptr<const model::SessionDatabase> database);

protected:
    QVariant extraData(int row, int column, int role) const override;
    QString extraHeader(int column) const override;
    QString displayName(const std::string& name) const override;

private:
    std::vector<QString> m_grids;
    int64_t m_totalNs = 0;
};

} // namespace stallscope::views
