#include "views/dialogs/path_remap_dialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>

namespace stallscope::views {

namespace {
const QString kSettingsArray = QStringLiteral("sources/pathRemap");
} // namespace

PathRemapDialog::PathRemapDialog(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("pathRemapDialog"));
    setWindowTitle(tr("Source Path Remapping"));
    resize(640, 320);
    auto* layout = new QVBoxLayout(this);
    m_hint = new QLabel(tr("Sources not embedded in a session are read from disk. When the session "
                           "was recorded elsewhere, map the recorded directory to where the "
                           "sources are on this machine. The longest matching prefix wins."),
                        this);
    m_hint->setWordWrap(true);
    layout->addWidget(m_hint);

    m_table = new QTableWidget(0, 2, this);
    m_table->setHorizontalHeaderLabels({tr("Recorded prefix"), tr("Prefix on this machine")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    layout->addWidget(m_table, 1);

    auto* buttons = new QHBoxLayout;
    auto* add = new QPushButton(tr("&Add"), this);
    connect(add, &QPushButton::clicked, this, [this] {
        addRule({}, {});
        m_table->editItem(m_table->item(m_table->rowCount() - 1, 0));
    });
    auto* browse = new QPushButton(tr("&Browse…"), this);
    browse->setToolTip(tr("Choose the local directory of the selected rule"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        if (row < 0)
            return;
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Local Source Directory"),
                                                              m_table->item(row, 1)->text());
        if (!dir.isEmpty())
            m_table->item(row, 1)->setText(dir);
    });
    auto* remove = new QPushButton(tr("&Remove"), this);
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_table->currentRow() >= 0)
            m_table->removeRow(m_table->currentRow());
    });
    buttons->addWidget(add);
    buttons->addWidget(browse);
    buttons->addWidget(remove);
    buttons->addStretch(1);
    layout->addLayout(buttons);

    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(box);
}

void PathRemapDialog::addRule(const QString& from, const QString& to) {
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, 0, new QTableWidgetItem(from));
    m_table->setItem(row, 1, new QTableWidgetItem(to));
    m_table->setCurrentCell(row, 1);
}

void PathRemapDialog::setRules(const std::vector<format::PathRemapRule>& rules) {
    m_table->setRowCount(0);
    for (const format::PathRemapRule& rule : rules)
        addRule(QString::fromStdString(rule.from), QString::fromStdString(rule.to));
}

std::vector<format::PathRemapRule> PathRemapDialog::rules() const {
    std::vector<format::PathRemapRule> result;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QString from = m_table->item(row, 0)->text().trimmed();
        const QString to = m_table->item(row, 1)->text().trimmed();
        if (!from.isEmpty())
            result.push_back({from.toStdString(), to.toStdString()});
    }
    return result;
}

void PathRemapDialog::setMissingPath(const QString& missingPath) {
    if (missingPath.isEmpty())
        return;
    m_hint->setText(tr("<b>%1</b> was not found.<br>Map the recorded directory to where the "
                       "sources are on this machine; the longest matching prefix wins.")
                        .arg(missingPath.toHtmlEscaped()));
    // Pre-fill the recorded directory unless a rule for it exists already.
    const QString dir = QFileInfo(missingPath).path();
    for (const format::PathRemapRule& rule : rules())
        if (QString::fromStdString(rule.from) == dir)
            return;
    if (dir != QLatin1String("."))
        addRule(dir, {});
}

std::vector<format::PathRemapRule> PathRemapDialog::loadRules(QSettings& settings) {
    std::vector<format::PathRemapRule> rules;
    const int size = settings.beginReadArray(kSettingsArray);
    for (int i = 0; i < size; ++i) {
        settings.setArrayIndex(i);
        const QString from = settings.value(QStringLiteral("from")).toString();
        if (!from.isEmpty())
            rules.push_back({from.toStdString(),
                             settings.value(QStringLiteral("to")).toString().toStdString()});
    }
    settings.endArray();
    return rules;
}

void PathRemapDialog::saveRules(QSettings& settings,
                                const std::vector<format::PathRemapRule>& rules) {
    settings.remove(kSettingsArray);
    settings.beginWriteArray(kSettingsArray, int(rules.size()));
    for (int i = 0; i < int(rules.size()); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("from"), QString::fromStdString(rules[i].from));
        settings.setValue(QStringLiteral("to"), QString::fromStdString(rules[i].to));
    }
    settings.endArray();
}

} // namespace stallscope::views
