#include "views/dialogs/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QScreen>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace stallscope::views {

ShortcutsDialog::ShortcutsDialog(const QList<QAction*>& actions, const QString& timelineHelp,
                                 QWidget* parent)
    : QDialog(parent) {
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard Shortcuts"));
    auto* layout = new QVBoxLayout(this);
    auto* columns = new QHBoxLayout; // the menu shortcuts left, the timeline's keys right
    layout->addLayout(columns, 1);
    m_table = new QTableWidget(0, 2, this);
    m_table->setHorizontalHeaderLabels({tr("Action"), tr("Keys")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    const auto add = [this](const QString& action, const QString& keys) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, 0, new QTableWidgetItem(action));
        m_table->setItem(row, 1, new QTableWidgetItem(keys));
    };
    for (const QAction* action : actions) {
        if (action->shortcuts().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence& key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        add(action->text().remove(QLatin1Char('&')).remove(QStringLiteral("…")),
            keys.join(QStringLiteral(", ")));
    }
    add(tr("Find box: clear the search and the highlight"), tr("Esc"));
    m_table->sortItems(0);
    m_table->resizeColumnToContents(1);
    // Tall enough for every row (no half-cut last one), as far as the screen allows.
    const int rows = m_table->verticalHeader()->length() +
                     m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth();
    const int room = (parent ? parent->screen() : screen())->availableGeometry().height() - 120;
    m_table->setMinimumHeight(std::min(rows, std::max(200, room)));
    m_table->setMinimumWidth(420);
    m_table->setVerticalScrollMode(QAbstractItemView::ScrollPerItem);
    columns->addWidget(m_table, 3);
    if (!timelineHelp.isEmpty()) {
        m_timelineHelp = new QLabel(timelineHelp, this);
        m_timelineHelp->setWordWrap(true);
        m_timelineHelp->setTextFormat(Qt::RichText);
        m_timelineHelp->setAlignment(Qt::AlignTop | Qt::AlignLeft);
        m_timelineHelp->setMinimumWidth(380);
        columns->addWidget(m_timelineHelp, 2);
    }
    auto* box = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(box);
}

int ShortcutsDialog::fullyVisibleRows() const {
    const QRect view = m_table->viewport()->rect();
    int count = 0;
    for (int row = 0; row < m_table->rowCount(); ++row)
        count += view.contains(m_table->visualItemRect(m_table->item(row, 0))) ? 1 : 0;
    return count;
}

int ShortcutsDialog::rowCount() const {
    return m_table->rowCount();
}

QStringList ShortcutsDialog::entries() const {
    QStringList lines;
    for (int row = 0; row < m_table->rowCount(); ++row)
        lines << m_table->item(row, 0)->text() + QLatin1Char('\t') + m_table->item(row, 1)->text();
    return lines;
}

QString ShortcutsDialog::timelineHelp() const {
    return m_timelineHelp ? m_timelineHelp->text() : QString();
}

} // namespace stallscope::views
