// StackView: the call stack of the selected sync (StackModel in a table). A caption names the
// sync; clicking a frame that has a file and line asks the source view to open it.
#pragma once

#include "model/session/session_database.h"

#include <QWidget>

#include <unordered_map>
#include <vector>

class QLabel;
class QTableView;

namespace stallscope::views {

class StackModel;

class StackView : public QWidget {
    Q_OBJECT
public:
    explicit StackView(QWidget* parent = nullptr);

    void setStack(const QString& caption, std::vector<model::FrameInfo> frames,
                  const std::unordered_map<int64_t, model::ModuleInfo>* modules);
    void clear(const QString& caption = {});

    StackModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QString caption() const;

signals:
    void sourceRequested(const QString& file, int line, bool lineIsDefinition);

protected:
    // A stack set while the view was hidden (a tabbed dock) is scrolled once it shows.
    void showEvent(QShowEvent* event) override;

private:
    // Brings the user's first frame into view (library and CUDA frames come first, innermost).
    void scrollToUserFrame();

    QLabel* m_caption = nullptr;
    QTableView* m_table = nullptr;
    StackModel* m_model = nullptr;
};

} // namespace stallscope::views
