// KernelTableModel: kernels grouped by name — count, total / average / max time, the launch grid
// (of the first launch; "varies" is not tracked) and the share of all kernel time. Statistics come
// from the session's columns (name_statistics.h); grids from SessionDatabase::kernelDetails.
#pragma once

#include "name_statistics.h"

#include <QAbstractTableModel>

#include <memory>

namespace stallscope::model {
class Session;
class SessionDatabase;
} // namespace stallscope::model

namespace stallscope::views {

class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        CountColumn,
        TotalColumn,
        AverageColumn,
        MaxColumn,
        GridColumn,
        ShareColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit KernelTableModel(QObject* parent = nullptr);

    // database may be null (no grids then).
    void setSession(std::shared_ptr<const model::Session> session,
                    std::shared_ptr<const model::SessionDatabase> database);
    const NameStats* stats(int row) const;
    QString name(int row) const;
    // The kernels of a row, for the timeline.
    model::EventSpans events(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const model::Session> m_session;
    std::vector<NameStats> m_rows;
    std::vector<QString> m_grids;
    int64_t m_totalNs = 0;
};

} // namespace stallscope::views
