// WindowNavigation: the main window's keyboard and first-run help (issue 17).
//  * Esc (Edit ▸ Clear Selection, a window-wide shortcut) clears the one selection from any
//    panel; a text field that uses Esc itself (the find box) gets it first.
//  * W/A/S/D and the arrow keys drive the timeline wherever the focus is in the window, except in
//    a field that takes typed text (editsText); the arrows also stay with a table, whose rows
//    they move through. An application event filter hands them to the timeline's own keys.
//  * The "getting around" overlay on the window's first show, once per user (QSettings,
//    kGettingAroundShownKey); Help ▸ Getting Around shows it again; any click or key hides it
//    and still does what it would have done.
#pragma once

#include <QObject>
#include <QPointer>

class QAction;
class QKeyEvent;
class QMainWindow;
class QMenu;
class QWidget;

namespace stallscope::views {
class AnalysisPanels;
class GettingAroundOverlay;
class TimelineWidget;
} // namespace stallscope::views

namespace stallscope::app {

class WindowNavigation : public QObject {
    Q_OBJECT
public:
    // Set once the overlay has shown; set it beforehand (tests, screenshots) to keep it away.
    static constexpr const char* kGettingAroundShownKey = "help/gettingAroundShown";

    // Adds Clear Selection to `edit` and Getting Around to `help`.
    WindowNavigation(QMainWindow* window, views::TimelineWidget* timeline,
                     views::AnalysisPanels* panels, QMenu* edit, QMenu* help);
    ~WindowNavigation() override;

    // The overlay while it shows, else null.
    views::GettingAroundOverlay* gettingAround() const;

    // Whether `widget` takes typed text (an editable line, text, spin or combo box): the keys
    // are its own.
    static bool editsText(const QWidget* widget);

public slots:
    void showGettingAround();
    void hideGettingAround();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    bool forwardToTimeline(QWidget* receiver, const QKeyEvent& key);
    // A plain letter to the menu bar after a menu closed with Esc: the timeline's, with the focus.
    bool leaveMenuBar(QWidget* receiver, const QKeyEvent& key);

    QMainWindow* m_window;
    views::TimelineWidget* m_timeline;
    QAction* m_clearSelection = nullptr;
    QPointer<views::GettingAroundOverlay> m_overlay;
    bool m_shownOnce = false; // the first Show has been seen
};

} // namespace stallscope::app
