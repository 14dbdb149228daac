// NameStatsTableModel: events grouped by name (name_statistics.h) as a table — name, count, total,
// average and max time — with the rows' events for the timeline. ApiCallTableModel shows it as
// is; KernelTableModel adds the launch grid and the share of GPU time.
#pragma once

#include "views/panels/name_statistics.h"
#include "views/panels/titled_table_model.h"

#include <memory>

namespace stallscope::views {

class NameStatsTableModel : public TitledTableModel {
    Q_OBJECT
public:
    // The columns every name table starts with; subclasses number theirs from ColumnCount on.
    enum Column { NameColumn, CountColumn, TotalColumn, AverageColumn, MaxColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    const NameStats* stats(int row) const;
    QString name(int row) const;
    // The events of a row, for the timeline.
    model::EventSpans events(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    // `column` says which lane columns the rows group; `nameHeader` titles the first column.
    NameStatsTableModel(model::EventKind kind, const char* nameHeader, int columnCount,
                        QObject* parent);
    // Sets the session and its rows; call between beginResetModel() and endResetModel().
    void setRows(std::shared_ptr<const model::Session> session, std::vector<NameStats> rows);
    // Display and sort values of a subclass's own columns (section >= ColumnCount).
    virtual QVariant extraData(int row, int column, int role) const;
    virtual QString extraHeader(int column) const;
    virtual QString displayName(const std::string& name) const;
    QString columnTitle(int section) const override;

    std::shared_ptr<const model::Session> m_session;
    std::vector<NameStats> m_rows;

private:
    model::EventKind m_kind;
    const char* m_nameHeader;
};

} // namespace stallscope::views
