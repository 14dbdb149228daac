#include "views/dialogs/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace stallscope::views {

ShortcutsDialog::ShortcutsDialog(const QList<QAction*>& actions, const QString& timelineHelp,
                                 QWidget* parent)
    : QDialog(parent) {
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard Shortcuts"));
    resize(520, 640);
    auto* layout = new QVBoxLayout(this);
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
    layout->addWidget(m_table, 1);
    if (!timelineHelp.isEmpty()) {
        m_timelineHelp = new QLabel(timelineHelp, this);
        m_timelineHelp->setWordWrap(true);
        m_timelineHelp->setTextFormat(Qt::RichText);
        layout->addWidget(m_timelineHelp);
    }
    auto* box = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(box);
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
