// StackModel: the frames of one call stack as a table, innermost first, Python and native frames
// merged as the session stores them. Columns: #, function, location, module. User frames come
// back bold (Qt::FontRole); unresolved native frames read module+offset. The frames every
// recorded sync stack starts with (the recorder's callback, CUPTI, the driver:
// format::isAboveApiCallModule) are folded into one row that unfolds when activated (issue 42:
// the user's line was frame #21).
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
    // The frame a row shows; null for the folded row.
    const model::FrameInfo* frame(int row) const;
    // How many innermost frames are the recorder's and the driver's; the folded row stands for
    // them while folded.
    int foldedFrames() const { return m_aboveApiCall; }
    bool isFoldRow(int row) const { return row == 0 && m_aboveApiCall > 0 && !m_unfolded; }
    // Shows the folded frames in place of their row (once per stack).
    void unfold();
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

    // The frame index a row shows (rows after the folded row shift by the folded count).
    int frameIndex(int row) const;

    std::vector<model::FrameInfo> m_frames;
    std::unordered_map<int64_t, model::ModuleInfo> m_modules;
    int m_aboveApiCall = 0;
    bool m_unfolded = false;
};

} // namespace stallscope::views
