#include "views/panels/titled_table_model.h"

namespace stallscope::views {

TitledTableModel::TitledTableModel(int columnCount, QObject* parent)
    : QAbstractTableModel(parent), m_columnCount(columnCount) {}

int TitledTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_columnCount;
}

QVariant TitledTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == Qt::InitialSortOrderRole && section >= 0 &&
        section < m_columnCount)
        return int(sortsLargestFirst(section) ? Qt::DescendingOrder : Qt::AscendingOrder);
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section >= 0 &&
        section < m_columnCount) {
        const QString tip = columnToolTip(section);
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= m_columnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    return columnTitle(section);
}

} // namespace stallscope::views
