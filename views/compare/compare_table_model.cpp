#include "views/compare/compare_table_model.h"

#include "model/compare/compare_output.h"
#include "model/session/session_summary.h"
#include "views/panels/duration_text.h"
#include "views/panels/insight_card.h"
#include "views/timeline/timeline_palette.h"

#include <QFont>

#include <cmath>

namespace stallscope::views {

namespace {

// A count or time per unit, "—" on the side where the site is absent.
QString perUnit(const model::SiteNumbers& numbers, double value, bool isTime) {
    if (!numbers.present)
        return QStringLiteral("—");
    return isTime ? durationText(value) : QString::fromStdString(model::formatPerUnit(value));
}

// Sorting by status, descending, puts what asks for attention first.
int attention(model::SiteStatus status) {
    switch (status) {
    case model::SiteStatus::New:
        return 4;
    case model::SiteStatus::Worse:
        return 3;
    case model::SiteStatus::Fixed:
        return 2;
    case model::SiteStatus::Better:
        return 1;
    case model::SiteStatus::Same:
        return 0;
    }
    return 0;
}

bool isCostColumn(int column) {
    return column >= CompareTableModel::CallsBeforeColumn &&
           column <= CompareTableModel::PredictedSavingColumn;
}

} // namespace

CompareTableModel::CompareTableModel(QObject* parent) : TitledTableModel(ColumnCount, parent) {}

void CompareTableModel::setComparison(std::shared_ptr<const model::SessionComparison> comparison) {
    beginResetModel();
    m_comparison = std::move(comparison);
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1); // the unit is in the titles
}

const model::SiteComparison* CompareTableModel::site(int row) const {
    if (!m_comparison || row < 0 || row >= int(m_comparison->sites.size()))
        return nullptr;
    return &m_comparison->sites[size_t(row)];
}

QColor CompareTableModel::statusColor(model::SiteStatus status) {
    const QColor green(TimelinePalette::afterFix()); // the colour of "sooner" on the timeline
    switch (status) {
    case model::SiteStatus::Fixed:
        return green;
    case model::SiteStatus::Better: // halfway to white
        return QColor((green.red() + 255) / 2, (green.green() + 255) / 2, (green.blue() + 255) / 2);
    case model::SiteStatus::New:
    case model::SiteStatus::Worse:
        return InsightCard::severityColor(model::Severity::High);
    case model::SiteStatus::Same:
        break;
    }
    return {};
}

int CompareTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_comparison ? 0 : int(m_comparison->sites.size());
}

QVariant CompareTableModel::display(const model::SiteComparison& s, int column) const {
    switch (column) {
    case StatusColumn:
        return QString::fromUtf8(model::siteStatusName(s.status).data());
    case SiteColumn:
        return QString::fromStdString(s.site.label());
    case CallsBeforeColumn:
        return perUnit(s.before, s.before.calls, false);
    case CallsAfterColumn:
        return perUnit(s.after, s.after.calls, false);
    case BlockedBeforeColumn:
        return perUnit(s.before, s.before.blockedNs, true);
    case BlockedAfterColumn:
        return perUnit(s.after, s.after.blockedNs, true);
    case PredictedSavingColumn:
        return s.status == model::SiteStatus::Fixed && s.before.savingsNs >= 0
                   ? durationText(s.before.savingsNs)
                   : QString();
    }
    return {};
}

QVariant CompareTableModel::sortKey(const model::SiteComparison& s, int column) const {
    switch (column) {
    case StatusColumn:
        return attention(s.status);
    case SiteColumn:
        return QString::fromStdString(s.site.label());
    case CallsBeforeColumn:
        return s.before.calls;
    case CallsAfterColumn:
        return s.after.calls;
    case BlockedBeforeColumn:
        return s.before.blockedNs;
    case BlockedAfterColumn:
        return s.after.blockedNs;
    case PredictedSavingColumn: // none (-1) sorts below a saving of 0
        return s.status == model::SiteStatus::Fixed ? s.before.savingsNs : -1.0;
    }
    return {};
}

QVariant CompareTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const model::SiteComparison& s = m_comparison->sites[size_t(index.row())];
    const bool status = index.column() == StatusColumn;
    switch (role) {
    case Qt::DisplayRole:
        return display(s, index.column());
    case SortRole:
        return sortKey(s, index.column());
    case Qt::TextAlignmentRole:
        if (status)
            return int(Qt::AlignCenter);
        return index.column() == SiteColumn ? QVariant() : int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::BackgroundRole:
        if (const QColor colour = statusColor(s.status); status && colour.isValid())
            return colour;
        return {};
    case Qt::ForegroundRole:
        if (const QColor colour = statusColor(s.status); status && colour.isValid())
            return QColor(TimelinePalette::textOn(colour.rgb()));
        return {};
    case Qt::FontRole:
        if (status && s.status != model::SiteStatus::Same) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == SiteColumn)
            return QString::fromStdString(s.key);
        if (index.column() == PredictedSavingColumn && s.status == model::SiteStatus::Fixed)
            return tr("What the before run's replay without this site's waits predicted; the "
                      "header compares the sum with the step time actually saved");
        return {};
    }
    return {};
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role == Qt::ToolTipRole && orientation == Qt::Horizontal && isCostColumn(section) &&
        m_comparison)
        return tr("Per %1 of each run").arg(QString::fromStdString(m_comparison->unit));
    return TitledTableModel::headerData(section, orientation, role);
}

bool CompareTableModel::sortsLargestFirst(int section) const {
    return isCostColumn(section) || section == StatusColumn;
}

QString CompareTableModel::columnTitle(int section) const {
    // "Calls/step before"; without steps the unit is a second of kernel time.
    const QString per =
        !m_comparison || m_comparison->unit == "step" ? tr("/step") : tr("/s kernels");
    switch (section) {
    case StatusColumn:
        return tr("Status");
    case SiteColumn:
        return tr("Sync site");
    case CallsBeforeColumn:
        return tr("Calls%1 before").arg(per);
    case CallsAfterColumn:
        return tr("Calls%1 after").arg(per);
    case BlockedBeforeColumn:
        return tr("Blocked%1 before").arg(per);
    case BlockedAfterColumn:
        return tr("Blocked%1 after").arg(per);
    case PredictedSavingColumn:
        return tr("Predicted saving%1").arg(per);
    }
    return {};
}

} // namespace stallscope::views
