#include "views/panels/panel_widgets.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QTableView>
#include <QVBoxLayout>

namespace stallscope::views {

QVBoxLayout* flushColumn(QWidget* panel, int spacing) {
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(spacing);
    return layout;
}

void bringForward(QDockWidget* dock) {
    dock->show();
    dock->raise();
    if (QWidget* content = dock->widget())
        content->setFocus(Qt::ShortcutFocusReason);
}

void setUpListTable(QTableView* table) {
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setWordWrap(false);
    table->setTextElideMode(Qt::ElideMiddle);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
}

} // namespace stallscope::views
