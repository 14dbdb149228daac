#include "views/panels/session_summary_widget.h"

#include "model/session/session.h"
#include "model/session/session_summary.h"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace stallscope::views {

namespace {
// Rows per grid column: the summary reads as a short block across the top of the window
// rather than a tall list that steals height from the timeline.
constexpr int kRowsPerColumn = 4;
} // namespace

SessionSummaryWidget::SessionSummaryWidget(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->setSpacing(6);

    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("sessionWarningBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Amber with dark text: readable on light and dark themes alike.
    m_banner->setStyleSheet(
        QStringLiteral("QLabel { background: #FFE08A; color: #3D2E00; border: 1px solid #E0B000;"
                       " border-radius: 3px; padding: 5px 8px; font-weight: bold; }"));
    m_banner->hide();
    layout->addWidget(m_banner);

    m_grid = new QWidget(this);
    m_gridLayout = new QGridLayout(m_grid);
    m_gridLayout->setContentsMargins(0, 0, 0, 0);
    m_gridLayout->setHorizontalSpacing(10);
    m_gridLayout->setVerticalSpacing(2);
    layout->addWidget(m_grid);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
}

void SessionSummaryWidget::clearRows() {
    while (QLayoutItem* item = m_gridLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_lines.clear();
}

void SessionSummaryWidget::setSession(const std::shared_ptr<const model::Session>& session) {
    clearRows();
    m_banner->clear();
    m_banner->hide();
    if (!session)
        return;
    const model::SessionSummary summary = model::SessionSummary::of(*session);
    int index = 0;
    for (const auto& [label, value] : summary.rows) {
        const QString labelText = QString::fromStdString(label);
        const QString valueText = QString::fromStdString(value);
        m_lines << QStringLiteral("%1: %2").arg(labelText, valueText);
        auto* name = new QLabel(labelText + QLatin1Char(':'), m_grid);
        name->setForegroundRole(QPalette::PlaceholderText);
        // Long values (a command line) are cut for display, not for copying: the tooltip and
        // text() keep them whole, and the window does not grow to fit them.
        const QString shown =
            valueText.size() > 90 ? valueText.left(89) + QStringLiteral("…") : valueText;
        auto* content = new QLabel(shown, m_grid);
        content->setTextInteractionFlags(Qt::TextSelectableByMouse);
        content->setToolTip(valueText);
        const int row = index % kRowsPerColumn;
        const int column = (index / kRowsPerColumn) * 2;
        m_gridLayout->addWidget(name, row, column, Qt::AlignRight | Qt::AlignTop);
        m_gridLayout->addWidget(content, row, column + 1, Qt::AlignLeft | Qt::AlignTop);
        m_gridLayout->setColumnStretch(column + 1, 1);
        ++index;
    }
    if (!session->warning.empty()) {
        m_banner->setText(QStringLiteral("⚠ ") + QString::fromStdString(session->warning));
        m_banner->show();
    }
}

QString SessionSummaryWidget::text() const {
    QStringList lines = m_lines;
    if (!m_banner->text().isEmpty())
        lines << m_banner->text();
    return lines.join(QLatin1Char('\n'));
}

QString SessionSummaryWidget::warningText() const {
    return m_banner->text();
}

bool SessionSummaryWidget::isWarningVisible() const {
    return m_banner->isVisibleTo(this) && !m_banner->text().isEmpty();
}

} // namespace stallscope::views
