// ApiCallTableModel: CUDA runtime/driver API calls grouped by name — count, total, average and
// max time — from the session's host-lane columns (name_statistics.h).
#pragma once

#include "views/panels/name_stats_table_model.h"

namespace stallscope::views {

class ApiCallTableModel : public NameStatsTableModel {
    Q_OBJECT
public:
    explicit ApiCallTableModel(QObject* parent = nullptr);
    void setSession(std::shared_ptr<const model::Session> session);
};

} // namespace stallscope::views
