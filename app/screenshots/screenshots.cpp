// stallscope-screenshots: makes the README's pictures of the main window (docs/images/) by doing
// what a user would — open the session, wait for the analysis, click a finding, select a sync,
// bring a dock forward, switch the palette — through MainWindow's public API, then grabs the
// window to PNG. scripts/screenshots.sh runs every scenario; not installed.
//   stallscope-screenshots SCENARIO SESSION OUT.png   exit 0 once written, 1 on a load or write
//                                                     failure, 2 on bad usage
//   stallscope-screenshots --list                     the scenario names, one a line
//   stallscope-screenshots on-screen|on-screen-sync|shortcuts|record SESSION OUT.png
//                        the window at the size of the screen it opens on (run under
//                        xvfb-run -s "-screen 0 1280x800x24" to see a laptop's), the same with
//                        a sync selected, Help ▸ Keyboard Shortcuts, and File ▸ Record with
//                        light mode ticked (not README pictures, so not listed)
//   stallscope-screenshots compare BEFORE AFTER OUT.png
//                        File ▸ Compare With…: the comparison window with its top site selected
//                        (a scenario of two runs, so not a README picture and not listed)
#include "app/batch_commands.h"
#include "app/color_scheme.h"
#include "app/compare_launcher.h"
#include "app/main_window.h"
#include "app/window_navigation.h"
#include "model/session/collective_names.h"
#include "model/session/session.h"
#include "views/compare/compare_view.h"
#include "views/dialogs/record_dialog.h"
#include "views/dialogs/shortcuts_dialog.h"
#include "views/panels/after_fix_preview.h"
#include "views/panels/analysis_panels.h"
#include "views/timeline/timeline_widget.h"

#include <QApplication>
#include <QDialog>
#include <QDockWidget>
#include <QScreen>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

namespace {

using stallscope::app::ColorScheme;
using stallscope::app::MainWindow;
using stallscope::app::printError;
using stallscope::app::WindowNavigation;

struct Scenario {
    const char* name; // also the picture's name in docs/images/
    QSize size;
    ColorScheme scheme;
    // What the user does once the analysis has ended; false (after saying why) if it could not.
    std::function<bool(MainWindow&)> act;
};

// The comparison scenario: what the user does in the comparison window once it is ready.
struct CompareScenario {
    const char* name;
    QSize size;
    std::function<bool(stallscope::views::CompareView&)> act;
};

const CompareScenario kCompareScenarios[] = {
    // The top site (fixed and new come first) selected: its syncs highlighted in both runs.
    {"compare",
     {1800, 1100},
     [](stallscope::views::CompareView& view) {
         if (view.table()->model()->rowCount() == 0) {
             printError(QStringLiteral("the runs have no sync sites to compare"));
             return false;
         }
         view.table()->selectRow(0);
         return true;
     }},
};

// Selects the n-th sync of the top finding and frames it with the work it waited for and that
// work's launch call, with its details in front.
bool selectSyncOfTopFinding(MainWindow& window, int64_t n) {
    if (!window.panels()->selectInsightEvent(0, n)) {
        printError(QStringLiteral("the top finding has no sync %1").arg(n));
        return false;
    }
    stallscope::views::TimelineWidget& timeline = *window.timelineWidget();
    const auto& session = *window.session();
    const auto& link = timeline.syncLink();
    int64_t start = link.sync.start(session);
    const int64_t end = link.sync.end(session);
    for (const auto& linked : {link.work, link.launch})
        if (linked.isValid())
            start = std::min(start, linked.start(session));
    const int64_t margin = std::max<int64_t>((end - start) / 4, 20'000);
    timeline.setVisibleRange(start - margin, end + margin);
    window.panels()->detailsDock()->raise();
    return true;
}

// Selects the longest collective kernel (in a straggler's run, a gradient all-reduce of a rank
// that waits for it) and frames it: the details panel shows what NCCL said about it (its size).
bool selectLongestCollective(MainWindow& window) {
    const auto& session = *window.session();
    stallscope::model::EventRef best;
    int64_t longest = -1;
    for (size_t lane = 0; lane < session.streamLanes.size(); ++lane) {
        const auto& kernels = session.streamLanes[lane].kernels;
        for (size_t i = 0; i < kernels.size(); ++i)
            if (stallscope::model::isCollectiveKernelName(session.string(kernels.nameId[i])) &&
                kernels.duration(i) > longest) {
                longest = kernels.duration(i);
                best = {stallscope::model::EventKind::Kernel, int32_t(lane), 0, uint32_t(i)};
            }
    }
    if (!best.isValid()) {
        printError(QStringLiteral("the session has no collective kernel"));
        return false;
    }
    stallscope::views::TimelineWidget& timeline = *window.timelineWidget();
    timeline.selectEvent(best);
    const int64_t start = best.start(session), end = best.end(session);
    const int64_t margin = std::max<int64_t>((end - start) / 2, 200'000);
    timeline.setVisibleRange(start - margin, end + margin);
    window.panels()->detailsDock()->raise();
    return true;
}

const Scenario kScenarios[] = {
    {"insights-overview",
     {1500, 940},
     ColorScheme::Light,
     [](MainWindow& window) {
         window.panels()->activateInsight(0);
         return true;
     }},
    {"insights-dark-statistics",
     {1500, 940},
     ColorScheme::Dark,
     [](MainWindow& window) {
         window.panels()->activateInsight(0);
         window.panels()->tablesDock()->raise();
         return true;
     }},
    // The top finding's fix replayed: its "after fix" ghosts over its first steps, where the
    // first removed waits have moved the GPU work a little sooner (a launch-bound finding: the
    // start of its longest stretch, replayed as a CUDA graph).
    {"timeline-after-fix",
     {1800, 1100},
     ColorScheme::Light,
     [](MainWindow& window) {
         window.panels()->activateInsight(0);
         const auto& session = *window.session();
         const stallscope::model::Insight& top = window.panels()->report()->insights.front();
         for (const auto& span : *top.events)
             if (span.first.kind == stallscope::model::EventKind::Sync && span.count > 3) {
                 window.timelineWidget()->setVisibleRange(span.at(0).end(session) - 2'000'000,
                                                          span.at(3).end(session) + 1'000'000);
                 return true;
             }
         if (top.rule == stallscope::model::InsightRule::LaunchBound && top.endNs > top.startNs) {
             // The start of its longest stretch: its first 1/2000, a few recorded iterations.
             const int64_t span = std::max<int64_t>((top.endNs - top.startNs) / 2000, 100'000);
             window.timelineWidget()->setVisibleRange(top.startNs - span / 10, top.startNs + span);
             return true;
         }
         printError(QStringLiteral("the top finding has fewer than 4 syncs and is no "
                                   "launch-bound stretch"));
         return false;
     }},
    {"timeline-overview", {1800, 1100}, ColorScheme::Light, [](MainWindow&) { return true; }},
    // One training step of the sample and the in-loop sync that ends it: from the top finding's
    // 111th sync's end to its 112th's (a step without the evaluation that runs every 50).
    {"timeline-in-loop-syncs",
     {1800, 1100},
     ColorScheme::Light,
     [](MainWindow& window) {
         const auto& session = *window.session();
         std::vector<int64_t> syncEnds;
         for (const auto& span : *window.panels()->report()->insights.front().events)
             if (span.first.kind == stallscope::model::EventKind::Sync)
                 for (uint32_t i = 0; i < span.count; ++i)
                     syncEnds.push_back(span.at(i).end(session));
         std::sort(syncEnds.begin(), syncEnds.end());
         if (syncEnds.size() < 112) {
             printError(QStringLiteral("the top finding has fewer than 112 syncs"));
             return false;
         }
         const int64_t from = syncEnds[110], to = syncEnds[111];
         const int64_t margin = (to - from) / 20;
         window.timelineWidget()->setVisibleRange(from - margin, to + margin);
         return true;
     }},
    {"timeline-selected-sync",
     {1800, 1100},
     ColorScheme::Light,
     [](MainWindow& window) { return selectSyncOfTopFinding(window, 100); }},
};

// Sized to the screen (an invalid size): what a user of that screen sees first.
const Scenario kUnlistedScenarios[] = {
    {"on-screen", QSize(), ColorScheme::Light, [](MainWindow&) { return true; }},
    // A run with NCCL's calls (resources/sample-ddp/): not the bundled sample of the README's.
    {"timeline-selected-collective", {1800, 1100}, ColorScheme::Light, selectLongestCollective},
    {"on-screen-sync", QSize(), ColorScheme::Light,
     [](MainWindow& window) { return selectSyncOfTopFinding(window, 100); }},
    // The top finding's stack, the recorder's and the driver's frames folded into one row.
    {"stack",
     {1500, 940},
     ColorScheme::Light,
     [](MainWindow& window) {
         window.panels()->activateInsight(0);
         window.panels()->stackDock()->raise();
         return true;
     }},
    {"shortcuts", QSize(), ColorScheme::Light,
     [](MainWindow& window) {
         window.showShortcuts();
         return window.shortcutsDialog() != nullptr;
     }},
    {"record", QSize(), ColorScheme::Light,
     [](MainWindow& window) {
         stallscope::views::RecordDialog* dialog = window.showRecordDialog();
         if (dialog)
             dialog->setLightMode(true);
         return dialog != nullptr;
     }},
};

// The scenario of `scenarios` called `name`, or null.
template <typename Table> auto findIn(const Table& scenarios, const QString& name) {
    for (const auto& scenario : scenarios)
        if (name == QLatin1String(scenario.name))
            return &scenario;
    return static_cast<decltype(&scenarios[0])>(nullptr);
}

constexpr int kSettleMs = 300;

// Opens BEFORE in the window, compares it with AFTER, acts in the comparison window and grabs it.
int runCompare(QApplication& app, const CompareScenario& scenario, const QString& before,
               const QString& after, const QString& png) {
    stallscope::app::applyColorScheme(app, ColorScheme::Light);
    MainWindow window;
    window.setErrorDialogsEnabled(false);
    stallscope::app::CompareLauncher* launcher = window.compareLauncher();
    launcher->setErrorDialogsEnabled(false);
    const auto fail = [&app](const QString& error) {
        printError(error);
        app.exit(1);
    };
    QObject::connect(&window, &MainWindow::loadFailed, &app, fail);
    QObject::connect(launcher, &stallscope::app::CompareLauncher::compareFailed, &app, fail);
    QObject::connect(launcher, &stallscope::app::CompareLauncher::compared, &app,
                     [&](stallscope::views::CompareView* view) {
                         view->resize(scenario.size);
                         if (!scenario.act(*view)) {
                             app.exit(1);
                             return;
                         }
                         QTimer::singleShot(kSettleMs, &app, [&app, view, png] {
                             const bool saved = view->grab().save(png, "PNG");
                             if (!saved)
                                 printError(
                                     QStringLiteral("%1: cannot write the picture").arg(png));
                             app.exit(saved ? 0 : 1);
                         });
                     });
    launcher->compareWhenLoaded(after);
    window.show();
    window.openFile(before);
    return app.exec();
}

int run(QApplication& app, const Scenario& scenario, const QString& session, const QString& png) {
    stallscope::app::applyColorScheme(app, scenario.scheme);
    MainWindow window;
    window.setErrorDialogsEnabled(false);
    window.resize(scenario.size.isValid() ? scenario.size
                                          : window.screen()->availableGeometry().size());
    QObject::connect(&window, &MainWindow::loadFailed, &app, [&app](const QString& error) {
        printError(error);
        app.exit(1);
    });
    // After the analysis, so the insight dock shows its cards rather than "Analyzing…".
    QObject::connect(&window, &MainWindow::analysisFinished, &app, [&] {
        if (!scenario.act(window)) {
            app.exit(1);
            return;
        }
        // The insight cards find their heights over several event loop passes: let them settle.
        const auto grabSettled = [&] {
            QTimer::singleShot(kSettleMs, &app, [&] {
                // A dialog the scenario opened, else the window.
                QWidget* shown = &window;
                for (QWidget* top : QApplication::topLevelWidgets())
                    if (top != &window && top->isVisible() && qobject_cast<QDialog*>(top))
                        shown = top;
                const bool saved = shown->grab().save(png, "PNG");
                if (!saved)
                    printError(QStringLiteral("%1: cannot write the picture").arg(png));
                app.exit(saved ? 0 : 1);
            });
        };
        // A selected finding's after-fix ghosts come from a background replay: wait for them.
        stallscope::views::AfterFixPreview* afterFix = window.panels()->afterFix();
        if (afterFix->isRunning())
            QObject::connect(afterFix, &stallscope::views::AfterFixPreview::shown, &app,
                             grabSettled, Qt::SingleShotConnection);
        else
            grabSettled();
    });
    window.show();
    window.openFile(session);
    return app.exec();
}

} // namespace

int main(int argc, char** argv) {
    // Before the application object: listing needs no display.
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        for (const Scenario& scenario : kScenarios)
            std::printf("%s\n", scenario.name);
        return 0;
    }
    QApplication app(argc, argv);
    app.setApplicationName(QStringLiteral("stallscope-screenshots"));
    // A fresh install's layout, whatever the user's stallscope remembers.
    QTemporaryDir settings;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
    // ...but past the first-run overlay, which would cover the pictures.
    QSettings().setValue(QLatin1String(WindowNavigation::kGettingAroundShownKey), true);
    const QStringList args = app.arguments().mid(1);
    if (const CompareScenario* compare =
            args.size() == 4 ? findIn(kCompareScenarios, args[0]) : nullptr)
        return runCompare(app, *compare, args[1], args[2], args[3]);
    const Scenario* scenario = args.size() == 3 ? findIn(kScenarios, args[0]) : nullptr;
    if (!scenario && args.size() == 3)
        scenario = findIn(kUnlistedScenarios, args[0]);
    if (!scenario) {
        printError(QStringLiteral("usage: stallscope-screenshots SCENARIO SESSION OUT.png "
                                  "(--list names the scenarios), or compare BEFORE AFTER OUT.png"));
        return 2;
    }
    return run(app, *scenario, args[1], args[2]);
}
