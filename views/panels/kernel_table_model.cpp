#include "views/panels/kernel_table_model.h"

#include "model/session/session.h"
#include "model/session/session_database.h"
#include "model/session/session_summary.h"
#include "views/timeline/event_style.h"

namespace stallscope::views {

KernelTableModel::KernelTableModel(QObject* parent)
    : NameStatsTableModel(model::EventKind::Kernel, QT_TR_NOOP("Kernel"), ColumnCount, parent) {}

void KernelTableModel::setSession(std::shared_ptr<const model::Session> session,
                                  std::shared_ptr<const model::SessionDatabase> database) {
    beginResetModel();
    std::vector<NameStats> rows = session ? kernelStatsByName(*session) : std::vector<NameStats>{};
    setRows(std::move(session), std::move(rows));
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

QString KernelTableModel::displayName(const std::string& name) const {
    return kernelDisplayName(name);
}

QVariant KernelTableModel::extraData(int row, int column, int role) const {
    const NameStats& s = m_rows[row];
    const double share = m_totalNs > 0 ? double(s.totalNs) / double(m_totalNs) : 0.0;
    if (column == GridColumn)
        return m_grids[row];
    if (column == ShareColumn)
        return role == SortRole ? QVariant(share)
                                : QVariant(QString::fromStdString(model::formatShare(share)));
    return {};
}

QString KernelTableModel::extraHeader(int column) const {
    return column == GridColumn ? tr("Grid × block") : tr("GPU time share");
}

} // namespace stallscope::views
