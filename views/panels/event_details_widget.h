// EventDetailsWidget: the details panel of the timeline's selection. For an event: name, lane,
// start/end (since the session start), duration, correlation id, and per kind grid/block
// (kernels), bytes and copy direction (copies), or for a sync its kind, blocked time, the GPU work
// it waited for, the call that launched that work, and the call stack (Python and native frames;
// unresolved ones as module+offset). For a time range: its summary (GPU busy, blocked time,
// counts per kind).
//
// Wiring (main window): timeline.eventSelected → showEventDetails, timeline.rangeSelected →
// showRange, timeline.selectionCleared → clear. (Not named showEvent: QWidget::showEvent is a
// virtual event handler, and an overload would make connect() ambiguous.)
#pragma once

#include "views/timeline/event_style.h"

#include <QString>
#include <QWidget>

#include <array>
#include <memory>

class QTextBrowser;
class QToolButton;

namespace stallscope::model {
class Session;
class SessionDatabase;
} // namespace stallscope::model

namespace stallscope::views {

class EventDetailsWidget : public QWidget {
    Q_OBJECT
public:
    explicit EventDetailsWidget(QWidget* parent = nullptr);
    ~EventDetailsWidget() override;

    // The session's files (Session::files()) are opened read-only on demand for stacks and kernel
    // launch parameters; without `readFiles` those are left out.
    void setSession(std::shared_ptr<const model::Session> session, bool readFiles = true);
    // What is shown, as plain text (for tests and copying).
    QString text() const;
    // A finding's or a site's syncs: which of them the panel shows is the user's choice (the
    // median by default, issue 42), offered as First / Median / Slowest above the details;
    // `shown` is checked. Empty spans, or a single sync, hide the choice.
    void setChoices(const model::EventSpans& syncs, const model::EventRef& shown);

signals:
    // The user chose which of the syncs to show.
    void syncChosen(const stallscope::model::EventRef& sync);

public slots:
    void showEventDetails(const stallscope::model::EventRef& event);
    void showRange(qint64 startNs, qint64 endNs);
    void clear();

private:
    const model::SessionDatabase* database();
    QString eventHtml(const model::EventRef& event);
    QString syncHtml(const model::EventRef& event);
    QString stackHtml(uint32_t stackId);
    QString time(int64_t ns) const; // "+1.250 ms" since the session start

    std::shared_ptr<const model::Session> m_session;
    bool m_readFiles = false;
    std::unique_ptr<model::SessionDatabase> m_database;
    bool m_databaseTried = false;
    QString m_databaseError;
    QTextBrowser* m_browser = nullptr;
    QWidget* m_choiceRow = nullptr;
    // First, median, slowest: the buttons and the syncs they show.
    std::array<QToolButton*, 3> m_choiceButtons{};
    std::array<model::EventRef, 3> m_choiceEvents{};
};

} // namespace stallscope::views
