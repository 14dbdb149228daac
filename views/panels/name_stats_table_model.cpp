#include "views/panels/name_stats_table_model.h"

#include "model/session/session.h"
#include "model/session/session_summary.h"
#include "views/panels/duration_text.h"

namespace stallscope::views {

NameStatsTableModel::NameStatsTableModel(model::EventKind kind, const char* nameHeader,
                                         int columnCount, QObject* parent)
    : TitledTableModel(columnCount, parent), m_kind(kind), m_nameHeader(nameHeader) {}

void NameStatsTableModel::setRows(std::shared_ptr<const model::Session> session,
                                  std::vector<NameStats> rows) {
    m_session = std::move(session);
    m_rows = std::move(rows);
}

const NameStats* NameStatsTableModel::stats(int row) const {
    return row >= 0 && row < int(m_rows.size()) ? &m_rows[row] : nullptr;
}

QString NameStatsTableModel::displayName(const std::string& name) const {
    return QString::fromStdString(name);
}

QString NameStatsTableModel::name(int row) const {
    const NameStats* s = stats(row);
    return s ? displayName(m_session->string(s->nameId)) : QString();
}

model::EventSpans NameStatsTableModel::events(int row) const {
    const NameStats* s = stats(row);
    return s ? spansWithName(*m_session, m_kind, s->nameId) : model::EventSpans{};
}

int NameStatsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant NameStatsTableModel::extraData(int, int, int) const {
    return {};
}

QString NameStatsTableModel::extraHeader(int) const {
    return {};
}

QVariant NameStatsTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const NameStats& s = m_rows[index.row()];
    if (role == Qt::TextAlignmentRole)
        return index.column() == NameColumn ? QVariant() : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole)
        return index.column() == NameColumn ? name(index.row()) : QVariant();
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool display = role == Qt::DisplayRole;
    switch (index.column()) {
    case NameColumn:
        return name(index.row());
    case CountColumn:
        return display ? QVariant(QString::fromStdString(model::formatCount(s.count)))
                       : QVariant(qlonglong(s.count));
    case TotalColumn:
        return display ? QVariant(durationText(s.totalNs)) : QVariant(qlonglong(s.totalNs));
    case AverageColumn:
        return display ? QVariant(durationText(s.averageNs())) : QVariant(qlonglong(s.averageNs()));
    case MaxColumn:
        return display ? QVariant(durationText(s.maxNs)) : QVariant(qlonglong(s.maxNs));
    default:
        return extraData(index.row(), index.column(), role);
    }
}

QString NameStatsTableModel::columnTitle(int section) const {
    static const char* const names[] = {nullptr, QT_TR_NOOP("Count"), QT_TR_NOOP("Total"),
                                        QT_TR_NOOP("Average"), QT_TR_NOOP("Max")};
    if (section == NameColumn)
        return tr(m_nameHeader);
    return section < ColumnCount ? tr(names[section]) : extraHeader(section);
}

} // namespace stallscope::views
