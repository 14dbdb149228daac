// StackModel: the frames of one call stack as a table, innermost first, Python and native frames
// merged as the session stores them. Columns: #, function, location, module. User frames come
// back bold (Qt::FontRole); unresolved native frames read module+offset.
#pragma once

#include "model/session/session_database.h"
#include "views/panels/titled_table_model.h"

#include <unordered_map>
#include <vector>

namespace stallscope::views {

class StackModel : public TitledTableModel {
    Q_OBJECT
public:
    enum Column { IndexColumn, FunctionColumn, LocationColumn, ModuleColumn, ColumnCount };
    enum Role { FileRole = Qt::UserRole + 1, LineRole, IsUserRole };

    explicit StackModel(QObject* parent = nullptr);

    // modules: by id (SessionDatabase::modules()), for module names and offsets.
    void setStack(std::vector<model::FrameInfo> frames,
                  const std::unordered_map<int64_t, model::ModuleInfo>* modules);
    void clear();
    const model::FrameInfo* frame(int row) const;
    // The function column's text: the function, or module+0xoffset for unresolved frames.
    QString functionText(int row) const;
    // The frame can be opened in the source view (has a file and a line).
    bool hasSource(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    QString columnTitle(int section) const override;

private:
    QString moduleName(const model::FrameInfo& frame) const;

    std::vector<model::FrameInfo> m_frames;
    std::unordered_map<int64_t, model::ModuleInfo> m_modules;
};

} // namespace stallscope::views
