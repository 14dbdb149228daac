// SessionSummaryWidget: the session's summary (command, host, GPUs, duration, counts, status) as
// label/value pairs in a compact grid, with a warning banner above it when the session is not
// complete (cut short, still recording). The rows come from model::SessionSummary, the same
// source as `stallscope --info`, so the window and the terminal never disagree.
#pragma once

#include <QWidget>

#include <memory>

class QGridLayout;
class QLabel;

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

class SessionSummaryWidget : public QWidget {
    Q_OBJECT
public:
    explicit SessionSummaryWidget(QWidget* parent = nullptr);

    void setSession(const std::shared_ptr<const model::Session>& session);
    // All shown text, "Label: value" per line, then the warning (for tests and copying).
    QString text() const;
    QString warningText() const;
    bool isWarningVisible() const;

private:
    void clearRows();

    QLabel* m_banner = nullptr;
    QWidget* m_grid = nullptr;
    QGridLayout* m_gridLayout = nullptr;
    QStringList m_lines;
};

} // namespace stallscope::views
