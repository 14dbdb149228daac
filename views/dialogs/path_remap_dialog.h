// PathRemapDialog: edits the path remapping rules ("recorded prefix → prefix on this machine")
// that the source view applies to files not embedded in a session. Rules persist in QSettings
// (loadRules/saveRules). Open it with open(), not exec(): the window stays responsive and tests
// drive it without a nested event loop.
#pragma once

#include "format/path_remap.h"

#include <QDialog>

#include <vector>

class QLabel;
class QSettings;
class QTableWidget;

namespace stallscope::views {

class PathRemapDialog : public QDialog {
    Q_OBJECT
public:
    explicit PathRemapDialog(QWidget* parent = nullptr);

    void setRules(const std::vector<format::PathRemapRule>& rules);
    // The rows with a non-empty "from", in table order.
    std::vector<format::PathRemapRule> rules() const;
    // Adds a row (pre-filled with the directory of `missingPath` when given) and explains.
    void setMissingPath(const QString& missingPath);
    void addRule(const QString& from, const QString& to);
    QTableWidget* table() const { return m_table; }

    static std::vector<format::PathRemapRule> loadRules(QSettings& settings);
    static void saveRules(QSettings& settings, const std::vector<format::PathRemapRule>& rules);

private:
    QLabel* m_hint = nullptr;
    QTableWidget* m_table = nullptr;
};

} // namespace stallscope::views
