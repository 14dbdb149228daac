#include "views/panels/sync_site_table_model.h"

#include "model/session/session_summary.h"
#include "views/panels/duration_text.h"

namespace stallscope::views {

SyncSiteTableModel::SyncSiteTableModel(QObject* parent) : TitledTableModel(ColumnCount, parent) {}

void SyncSiteTableModel::setReport(std::shared_ptr<const model::InsightReport> report) {
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

const model::SyncSiteStats* SyncSiteTableModel::site(int row) const {
    if (!m_report || row < 0 || row >= int(m_report->sites.size()))
        return nullptr;
    return &m_report->sites[row];
}

int SyncSiteTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_report ? 0 : int(m_report->sites.size());
}

QVariant SyncSiteTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const model::SyncSiteStats& s = m_report->sites[index.row()];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case SiteColumn:
            return QString::fromStdString(s.site.label());
        case CountColumn:
            return QString::fromStdString(model::formatCount(s.count));
        case CallsColumn:
            return QString::fromStdString(model::formatCount(s.calls));
        case TotalColumn:
            return durationText(s.blockedNs);
        case MedianColumn:
            return durationText(s.medianBlockedNs);
        case ShareColumn:
            return QString::fromStdString(model::siteShareText(s));
        case BubbleColumn:
            return durationText(s.bubbleNs);
        case SavingColumn:
            return s.savingsNs >= 0 ? durationText(s.savingsNs) : QStringLiteral("—");
        }
    } else if (role == SortRole) {
        switch (index.column()) {
        case SiteColumn:
            return QString::fromStdString(s.site.label());
        case CountColumn:
            return qlonglong(s.count);
        case CallsColumn:
            return qlonglong(s.calls);
        case TotalColumn:
            return qlonglong(s.blockedNs);
        case MedianColumn:
            return qlonglong(s.medianBlockedNs);
        case ShareColumn:
            return s.share;
        case BubbleColumn:
            return qlonglong(s.bubbleNs);
        case SavingColumn: // not simulated (-1) sorts below a saving of 0
            return qlonglong(s.savingsNs);
        }
    } else if (role == Qt::TextAlignmentRole && index.column() != SiteColumn) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    } else if (role == Qt::ToolTipRole && index.column() == SiteColumn) {
        return QString::fromStdString(s.site.file + ":" + std::to_string(s.site.line));
    } else if (role == Qt::ToolTipRole && index.column() == ShareColumn) {
        return tr("%1 blocked in the analysis window, %2 over the whole run")
            .arg(durationText(s.windowBlockedNs), durationText(s.blockedNs));
    } else if (role == Qt::ToolTipRole && index.column() == SavingColumn) {
        return s.savingsNs >= 0 ? tr("The run replayed without this site's waits ends this much "
                                     "sooner")
                                : tr("Not simulated: below the replay's share threshold, or not "
                                     "the user's code");
    }
    return {};
}

QString SyncSiteTableModel::columnTitle(int section) const {
    static const char* const names[] = {QT_TR_NOOP("Sync site"),      QT_TR_NOOP("Count"),
                                        QT_TR_NOOP("Calls"),          QT_TR_NOOP("Blocked"),
                                        QT_TR_NOOP("Median"),         QT_TR_NOOP("Window share"),
                                        QT_TR_NOOP("GPU idle after"), QT_TR_NOOP("Saving")};
    return tr(names[section]);
}

QString SyncSiteTableModel::columnToolTip(int section) const {
    switch (section) {
    case CountColumn:
        return tr("Syncs recorded at the site (a call that synced several times counts each)");
    case CallsColumn:
        return tr("Calls the program made at the site, as its finding counts them");
    case TotalColumn:
        return tr("Host time blocked at the site, over the whole session");
    case ShareColumn:
        return tr("The host time blocked at the site in the analysis window (the loop, or the "
                  "window you chose), as a share of that window without the recorder's cost: the "
                  "same share as an insight card's saving. \u2013: no sync in the window");
    case SavingColumn:
        return tr("What removing the site's waits saves, replayed over the analysis window");
    }
    return {};
}

} // namespace stallscope::views
