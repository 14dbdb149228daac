// FindBox: the toolbar's search field for kernel, API and source function names. Enter runs
// the search (findRequested), Escape clears it and the highlight (the field takes Escape before
// the window's Clear Selection shortcut); the result count shows in the field's tooltip.
#pragma once

#include <QLineEdit>

namespace stallscope::views {

class FindBox : public QLineEdit {
    Q_OBJECT
public:
    explicit FindBox(QWidget* parent = nullptr);
    // Shows "12 events" (or "no match") next to the text after a search.
    void setResultCount(qint64 count);

signals:
    void findRequested(const QString& text);
    void cleared();

protected:
    bool event(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
};

} // namespace stallscope::views
