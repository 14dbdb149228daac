#include "api_call_table_model.h"

#include "session_summary.h"

namespace stallscope::views {

namespace {
QString duration(int64_t ns) {
    return QString::fromStdString(model::formatDuration(ns));
}
} // namespace

ApiCallTableModel::ApiCallTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ApiCallTableModel::setSession(std::shared_ptr<const model::Session> session) {
    beginResetModel();
    m_session = std::move(session);
    m_rows = m_session ? apiCallStatsByName(*m_session) : std::vector<NameStats>{};
    endResetModel();
}

const NameStats* ApiCallTableModel::stats(int row) const {
    return row >= 0 && row < int(m_rows.size()) ? &m_rows[row] : nullptr;
}

QString ApiCallTableModel::name(int row) const {
    const NameStats* s = stats(row);
    return s ? QString::fromStdString(m_session->string(s->nameId)) : QString();
}

model::EventSpans ApiCallTableModel::events(int row) const {
    const NameStats* s = stats(row);
    return s ? spansWithName(*m_session, model::EventColumn::ApiCall, s->nameId)
             : model::EventSpans{};
}

int ApiCallTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ApiCallTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ApiCallTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const NameStats& s = m_rows[index.row()];
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
        }
    } else if (role == Qt::TextAlignmentRole && index.column() != NameColumn) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant ApiCallTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const names[] = {QT_TR_NOOP("API call"), QT_TR_NOOP("Count"),
                                        QT_TR_NOOP("Total"), QT_TR_NOOP("Average"),
                                        QT_TR_NOOP("Max")};
    return tr(names[section]);
}

} // namespace stallscope::views
