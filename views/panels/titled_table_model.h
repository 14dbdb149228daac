// TitledTableModel: a flat table whose columns have fixed titles. It answers columnCount and the
// horizontal header from the subclass's columnTitle(); other headers fall back to Qt's numbering.
#pragma once

#include <QAbstractTableModel>

namespace stallscope::views {

class TitledTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

protected:
    TitledTableModel(int columnCount, QObject* parent);
    // The translated title of column `section` (0 <= section < columnCount).
    virtual QString columnTitle(int section) const = 0;
    // What the column's figures are (Qt::ToolTipRole of its header): a share says what it is a
    // share of. Empty: no tooltip.
    virtual QString columnToolTip(int) const { return {}; }
    // Whether the first click on the column's header sorts largest first (what people want for
    // counts and times; Qt::InitialSortOrderRole): every column but the first, the name.
    virtual bool sortsLargestFirst(int section) const { return section > 0; }

private:
    int m_columnCount;
};

} // namespace stallscope::views
