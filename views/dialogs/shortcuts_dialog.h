// ShortcutsDialog: Help ▸ Keyboard Shortcuts — every menu action that has a shortcut (read from
// the actions, so the list cannot go stale) plus the timeline's own keys and gestures
// (TimelineWidget::navigationHelp, passed in as HTML) beside them. The table is as tall as its
// rows, so none is cut off (it scrolls only on a screen too short for them).
#pragma once

#include <QDialog>
#include <QList>

class QAction;
class QLabel;
class QTableWidget;

namespace stallscope::views {

class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    ShortcutsDialog(const QList<QAction*>& actions, const QString& timelineHelp,
                    QWidget* parent = nullptr);
    // "Action\tKeys" lines, for tests.
    QStringList entries() const;
    QString timelineHelp() const;
    // Rows in the table, and how many of them show whole in its viewport now.
    int rowCount() const;
    int fullyVisibleRows() const;

private:
    QTableWidget* m_table = nullptr;
    QLabel* m_timelineHelp = nullptr;
};

} // namespace stallscope::views
