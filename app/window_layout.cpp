#include "app/window_layout.h"

#include "views/panels/analysis_panels.h"

#include <QDockWidget>
#include <QEvent>
#include <QMainWindow>
#include <QPointer>
#include <QScreen>
#include <QSettings>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace stallscope::app {

namespace {

// Applies the dock sizes once, when the window is first shown (and laid out at its real size).
class FirstShow : public QObject {
public:
    FirstShow(QMainWindow& window, views::AnalysisPanels& panels)
        : QObject(&window), m_window(&window), m_panels(&panels) {
        window.installEventFilter(this);
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        // The type first: while the window is destroyed its children's removal still reaches this
        // filter, and comparing with m_window would cast an object that is no longer a window.
        if (event->type() == QEvent::Show && watched == m_window) {
            m_window->removeEventFilter(this);
            // After the show's layout pass: the docks then have room to take their sizes.
            QTimer::singleShot(0, this, [this] {
                if (m_window && m_panels)
                    applyDockSizes(*m_window, *m_panels);
                deleteLater();
            });
        }
        return false;
    }

private:
    QPointer<QMainWindow> m_window;
    QPointer<views::AnalysisPanels> m_panels;
};

constexpr int kInsightsBesideBottomFrom = 1000;

int share(int total, double fraction) {
    return static_cast<int>(std::lround(total * fraction));
}

} // namespace

DockSizes dockSizesFor(QSize window) {
    DockSizes sizes;
    // A card needs ~340 px (narrower clips its chips); more than ~440 takes from the timeline.
    sizes.insightsWidth = std::clamp(share(window.width(), 0.22), 340, 440);
    // Source and stack: a dozen lines at least, never more than a third of the height.
    sizes.bottomHeight = std::clamp(share(window.height(), 0.27), 200, 320);
    const int bottomWidth = std::max(400, window.width() - sizes.insightsWidth);
    sizes.sourceWidth = share(bottomWidth, 0.6);
    sizes.stackWidth = bottomWidth - sizes.sourceWidth;
    return sizes;
}

void applyDockSizes(QMainWindow& window, views::AnalysisPanels& panels) {
    const DockSizes sizes = dockSizesFor(window.size());
    // Beside the bottom docks the insight list needs their width too: in a narrow window it stays
    // above them, as the window's minimum width would otherwise pass the screen's.
    window.setCorner(Qt::BottomLeftCorner, window.width() >= kInsightsBesideBottomFrom
                                               ? Qt::LeftDockWidgetArea
                                               : Qt::BottomDockWidgetArea);
    window.resizeDocks({panels.insightsDock()}, {sizes.insightsWidth}, Qt::Horizontal);
    window.resizeDocks({panels.sourceDock()}, {sizes.bottomHeight}, Qt::Vertical);
    window.resizeDocks({panels.sourceDock(), panels.stackDock()},
                       {sizes.sourceWidth, sizes.stackWidth}, Qt::Horizontal);
}

void arrangeDocks(QMainWindow& window, views::AnalysisPanels& panels) {
    // The screen it opens on, not a constant.
    window.resize(window.screen()->availableGeometry().size() * 0.85);
    applyDockSizes(window, panels);
    // The key SavedLayout reads: a layout the user left stays theirs.
    if (!QSettings().contains(QStringLiteral("window/state")))
        new FirstShow(window, panels);
}

SavedLayout::SavedLayout(QMainWindow& window)
    : m_window(window), m_defaultState(window.saveState()) {
    QSettings settings;
    m_window.restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    m_window.restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
}

void SavedLayout::save() const {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), m_window.saveGeometry());
    settings.setValue(QStringLiteral("window/state"), m_window.saveState());
}

void SavedLayout::reset() const {
    m_window.restoreState(m_defaultState);
    for (QDockWidget* dock : m_window.findChildren<QDockWidget*>())
        dock->show();
}

} // namespace stallscope::app
