// ApiCallTableModel: CUDA runtime/driver API calls grouped by name — count, total, average and
// max time — from the session's host-lane columns (name_statistics.h).
#pragma once

#include "name_statistics.h"

#include <QAbstractTableModel>

#include <memory>

namespace stallscope::views {

class ApiCallTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, CountColumn, TotalColumn, AverageColumn, MaxColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    explicit ApiCallTableModel(QObject* parent = nullptr);

    void setSession(std::shared_ptr<const model::Session> session);
    const NameStats* stats(int row) const;
    QString name(int row) const;
    model::EventSpans events(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const model::Session> m_session;
    std::vector<NameStats> m_rows;
};

} // namespace stallscope::views
