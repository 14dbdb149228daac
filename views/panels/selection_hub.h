// SelectionHub: the one selection of the main window — a finding, a sync site, an event, a set of
// highlighted events or a time range — that every view shows (issue 17). Views never talk to
// each other; they ask the hub to select, and AnalysisPanels applies each change to every view
// that can show it. The hub only holds the state, so tests and the window can read it.
#pragma once

#include "model/analysis/insight.h"
#include "model/session/event_ref.h"
#include "views/timeline/event_style.h" // EventRef as a Qt meta-type

#include <QObject>
#include <QString>

namespace stallscope::views {

struct Selection {
    enum class Kind {
        None,
        Finding, // an insight card
        Site,    // a sync site: a source line's syncs (gutter mark, sync-sites table row)
        Event,   // one event clicked on the timeline (a sync, a kernel, …)
        Events,  // events by name (kernel or API call rows, the find box)
        Range,   // a time range dragged on the ruler
    };
    Kind kind = Kind::None;
    int finding = -1;         // the insight card showing it, -1 when none does
    model::SourceSite site;   // its source line; hasLocation() false when it has none
    model::EventRef event;    // the event in focus: the one clicked, else the first highlighted
    model::EventSpans events; // highlighted on the timeline (empty for Event and Range)
    int64_t rangeStartNs = 0;
    int64_t rangeEndNs = 0;
    QString label; // what the status bar names ("train.py:48 in train_step")

    bool isEmpty() const { return kind == Kind::None; }
};

class SelectionHub : public QObject {
    Q_OBJECT
public:
    explicit SelectionHub(QObject* parent = nullptr);

    const Selection& current() const { return m_current; }
    // Replaces the selection and emits changed.
    void select(Selection selection);
    // Back to nothing selected; emits changed (with an empty selection) and cleared, unless
    // nothing was selected.
    void clear();

signals:
    void changed(const stallscope::views::Selection& selection);
    void cleared();

private:
    Selection m_current;
};

} // namespace stallscope::views
