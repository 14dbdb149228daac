#include "views/panels/api_call_table_model.h"

namespace stallscope::views {

ApiCallTableModel::ApiCallTableModel(QObject* parent)
    : NameStatsTableModel(model::EventKind::ApiCall, QT_TR_NOOP("API call"), ColumnCount, parent) {}

void ApiCallTableModel::setSession(std::shared_ptr<const model::Session> session) {
    beginResetModel();
    std::vector<NameStats> rows = session ? apiCallStatsByName(*session) : std::vector<NameStats>{};
    setRows(std::move(session), std::move(rows));
    endResetModel();
}

} // namespace stallscope::views
