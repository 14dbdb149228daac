// The main window's proportions (MainWindow sizes itself to its screen first): the insight list the
// full height of the left side (the bottom docks sit under the timeline only, so a long list of
// findings does not scroll for want of the rows they take), and, on first show, the docks sized
// as shares of the window — the timeline keeps most of it at 1920×1080 and at 1280×800. A layout
// the user saved (QSettings "window/state", restored by SavedLayout) is left as it is.
#pragma once

#include <QByteArray>
#include <QSize>

class QMainWindow;

namespace stallscope::views {
class AnalysisPanels;
}

namespace stallscope::app {

struct DockSizes {
    int insightsWidth = 0; // the left dock
    int bottomHeight = 0;  // source/statistics and stack/details
    int sourceWidth = 0;   // of the bottom area's width (the window's less the insight list)
    int stackWidth = 0;
};

// The dock sizes for a window of this size (pure: tested at both screen sizes).
DockSizes dockSizesFor(QSize window);

// Sizes the window to 85 % of its screen and the docks for it now, and again when it is first shown
// at its real size (unless a saved layout exists).
void arrangeDocks(QMainWindow& window, views::AnalysisPanels& panels);
// Sizes the docks now, for the window's current size; from 1000 px wide the insight list takes
// the bottom-left corner (the whole left side).
void applyDockSizes(QMainWindow& window, views::AnalysisPanels& panels);

// The layout the user left, kept across runs (QSettings "window/geometry" and "window/state"),
// and the default one for View ▸ Reset Layout.
class SavedLayout {
public:
    // Remembers the window's layout as the default, then restores the saved one.
    explicit SavedLayout(QMainWindow& window);
    void save() const;
    // The default layout again, every dock shown.
    void reset() const;

private:
    QMainWindow& m_window;
    QByteArray m_defaultState;
};

} // namespace stallscope::app
