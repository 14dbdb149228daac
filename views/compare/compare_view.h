// CompareView: two runs side by side (File ▸ Compare With…). On top the runs' names and totals
// per unit — step time, host blocked, the fixed sites' predicted saving against the one achieved;
// below, the before and after timelines one above the other on one time axis (TimelineLink: each
// run's first step at the same x, or its analysis window's start without steps), zoomed and
// panned together; at the bottom the sites with their statuses (CompareTableModel). Selecting a
// site highlights its syncs in both timelines and frames the first; a site absent from one run
// (fixed, new) is highlighted where it is, and the status line says so.
#pragma once

#include "views/compare/compared_runs.h"

#include <QWidget>

#include <memory>

class QLabel;
class QProgressBar;
class QSortFilterProxyModel;
class QSplitter;
class QStackedWidget;
class QTableView;

namespace stallscope::views {

class CompareTableModel;
class TimelineLink;
class TimelineWidget;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);
    ~CompareView() override;

    // A message (and a progress bar) in place of the comparison, while it is being made.
    // fraction < 0: a busy indicator.
    void showProgress(const QString& message, double fraction = -1);
    void setRuns(std::shared_ptr<const ComparedRuns> runs);
    const std::shared_ptr<const ComparedRuns>& runs() const { return m_runs; }

    TimelineWidget* beforeTimeline() const { return m_before; }
    TimelineWidget* afterTimeline() const { return m_after; }
    const TimelineLink* link() const { return m_link; }
    CompareTableModel* tableModel() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }
    QLabel* headingLabel() const { return m_heading; }
    QLabel* statusLabel() const { return m_status; }
    QLabel* progressLabel() const { return m_message; }
    // A warning when the two runs ran different commands; empty when they did not (or one
    // recorded none).
    static QString differentPrograms(const ComparedRuns& runs);

public slots:
    // Highlights site `row` (of tableModel(), not of the sorted view) in both timelines.
    void selectSite(int row);

signals:
    void siteSelected(int row);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    QWidget* createComparisonPage();
    void showAlignedStart();
    QWidget* createTimelinePane(const QString& caption, TimelineWidget** timeline,
                                QLabel** captionLabel);
    void showHeading();
    void frameFirstSync(TimelineWidget* timeline, const ComparedRun& run);
    void fitPanes();

    std::shared_ptr<const ComparedRuns> m_runs;
    QStackedWidget* m_pages = nullptr;
    QLabel* m_message = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_heading = nullptr;
    QLabel* m_beforeCaption = nullptr;
    QLabel* m_afterCaption = nullptr;
    QSplitter* m_splitter = nullptr;
    bool m_sizedByUser = false; // the splitter was dragged: fitPanes() leaves it alone
    TimelineWidget* m_before = nullptr;
    TimelineWidget* m_after = nullptr;
    TimelineLink* m_link = nullptr;
    CompareTableModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace stallscope::views
