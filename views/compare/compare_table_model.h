// CompareTableModel: one row per sync site of a model::SessionComparison, in its order (fixed and
// new first, then by how far the blocked time moved): status, site, calls and blocked host time
// per unit before and after, and for fixed sites the saving the before run predicted. Display
// text is formatted; SortRole holds raw numbers (the status sorts by how much it asks for
// attention), and the cost columns sort largest first on their first click
// (Qt::InitialSortOrderRole). The status cell is coloured (statusColor).
#pragma once

#include "model/compare/session_compare.h"
#include "views/panels/titled_table_model.h"

#include <QColor>

#include <memory>

namespace stallscope::views {

class CompareTableModel : public TitledTableModel {
    Q_OBJECT
public:
    enum Column {
        StatusColumn,
        SiteColumn,
        CallsBeforeColumn,
        CallsAfterColumn,
        BlockedBeforeColumn,
        BlockedAfterColumn,
        PredictedSavingColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit CompareTableModel(QObject* parent = nullptr);

    void setComparison(std::shared_ptr<const model::SessionComparison> comparison);
    const model::SiteComparison* site(int row) const;

    // Fixed green, better a lighter green, new and worse red; same: none (the table's own).
    static QColor statusColor(model::SiteStatus status);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

protected:
    QString columnTitle(int section) const override;
    bool sortsLargestFirst(int section) const override;

private:
    QVariant display(const model::SiteComparison& site, int column) const;
    QVariant sortKey(const model::SiteComparison& site, int column) const;

    std::shared_ptr<const model::SessionComparison> m_comparison;
};

} // namespace stallscope::views
