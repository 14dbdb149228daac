#include "kernel_table_model.h"

#include "event_ref.h"
#include "session.h"
#include "session_database.h"
#include "session_summary.h"

namespace stallscope::views {

namespace {
QString duration(int64_t ns) {
    return QString::fromStdString(model::formatDuration(ns));
}
} // namespace

KernelTableModel::KernelTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelTableModel::setSession(std::shared_ptr<const model::Session> session,
                                  std::shared_ptr<const model::SessionDatabase> database) {
    beginResetModel();
    m_session = std::move(session);
    m_rows = m_session ? kernelStatsByName(*m_session) : std::vector<NameStats>{};
    m_grids.assign(m_rows.size(), QString());
    m_totalNs = 0;
    for (size_t i = 0; i < m_rows.size(); ++i) {
        const NameStats& row = m_rows[i];
        m_totalNs += row.totalNs;
        if (!database)
            continue;
        // One query per distinct name (hundreds at most), not per kernel.
        const model::KernelColumns& kernels = m_session->streamLanes[row.firstLane].kernels;
        if (auto details = database->kernelDetails(kernels.rowId[row.firstIndex]))
            m_grids[i] = QStringLiteral("(%1, %2, %3) × (%4, %5, %6)")
                             .arg(details->grid[0])
                             .arg(details->grid[1])
                             .arg(details->grid[2])
                             .arg(details->block[0])
                             .arg(details->block[1])
                             .arg(details->block[2]);
    }
    endResetModel();
}

const NameStats* KernelTableModel::stats(int row) const {
    return row >= 0 && row < int(m_rows.size()) ? &m_rows[row] : nullptr;
}

QString KernelTableModel::name(int row) const {
    const NameStats* s = stats(row);
    return s ? kernelDisplayName(m_session->string(s->nameId)) : QString();
}

model::EventSpans KernelTableModel::events(int row) const {
    const NameStats* s = stats(row);
    return s ? spansWithName(*m_session, model::EventColumn::Kernel, s->nameId)
             : model::EventSpans{};
}

int KernelTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int KernelTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const NameStats& s = m_rows[index.row()];
    const double share = m_totalNs > 0 ? double(s.totalNs) / double(m_totalNs) : 0.0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NameColumn:
            return name(index.row());
        case CountColumn:
            return QString::fromStdString(model::formatCount(s.count));
        case TotalColumn:
            return duration(s.totalNs);
        case AverageColumn:
            return duration(s.averageNs());
        case MaxColumn:
            return duration(s.maxNs);
        case GridColumn:
            return m_grids[index.row()];
        case ShareColumn:
            return QString::fromStdString(model::formatShare(share));
        }
    } else if (role == SortRole) {
        switch (index.column()) {
        case NameColumn:
            return name(index.row());
        case CountColumn:
            return qlonglong(s.count);
        case TotalColumn:
            return qlonglong(s.totalNs);
        case AverageColumn:
            return qlonglong(s.averageNs());
        case MaxColumn:
            return qlonglong(s.maxNs);
        case GridColumn:
            return m_grids[index.row()];
        case ShareColumn:
            return share;
        }
    } else if (role == Qt::TextAlignmentRole && index.column() != NameColumn) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    } else if (role == Qt::ToolTipRole && index.column() == NameColumn) {
        return name(index.row());
    }
    return {};
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const names[] = {QT_TR_NOOP("Kernel"),        QT_TR_NOOP("Count"),
                                        QT_TR_NOOP("Total"),         QT_TR_NOOP("Average"),
                                        QT_TR_NOOP("Max"),           QT_TR_NOOP("Grid × block"),
                                        QT_TR_NOOP("GPU time share")};
    return tr(names[section]);
}

} // namespace stallscope::views
