// MainWindow: the application window. Opens sessions (File ▸ Open, drag & drop, the command line)
// through its SessionController with progress and Cancel in the status bar, then shows the summary
// above the timeline. A library (stallscope_app) so tests can link it; main.cpp only parses the
// command line.
//
// Around the timeline, AnalysisPanels adds the insight, source, stack and statistics docks and
// runs the analysis after each load; File ▸ Compare With… (CompareLauncher) opens a second run
// beside this one. The window remembers its dock layout and recent files
// (QSettings), offers a find box (Ctrl+F) and lists its shortcuts under Help. One selection runs
// through every panel (AnalysisPanels' SelectionHub); Esc, the timeline's keys from any panel and
// the first-run overlay are WindowNavigation's.
//
// Load errors never block: they are stored (lastError()), signalled (loadFailed) and shown in a
// window-modal QMessageBox opened with open(), so tests can check and close it without a hang.
#pragma once

#include "app/window_layout.h"

#include <QMainWindow>
#include <QPointer>
#include <QString>

#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QMessageBox;
class QMimeData;
class QMenu;

namespace stallscope::model {
class JobTracker;
class Session;
} // namespace stallscope::model

namespace stallscope::views {
class AnalysisPanels;
class RecordDialog;
class FindBox;
class SessionSummaryWidget;
class ShortcutsDialog;
class TimelineWidget;
} // namespace stallscope::views

namespace stallscope::app {

class CompareLauncher;
class SessionController;
class WindowNavigation;
using views::AnalysisPanels;
using views::FindBox;
using views::RecordDialog;
using views::SessionSummaryWidget;
using views::ShortcutsDialog;
using views::TimelineWidget;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts loading path (replacing any load in progress). Results arrive as signals.
    void openFile(const QString& path);
    // The same for several session files opened as one run (the ranks of one job).
    void openFiles(const QStringList& files);
    void cancelLoad();
    bool isLoading() const;

    const std::shared_ptr<const model::Session>& session() const;
    // The file (or the first of the files) shown.
    QString currentFile() const;
    // The symbolized copy shown instead of currentFile() (see symbolizedOnOpen), else empty.
    QString symbolizedCopy() const;
    QString lastError() const;
    // What is shown and how it is loaded: the load, symbolize and reload sequence.
    SessionController* sessions() const { return m_sessions; }
    // The error dialog currently open, or null.
    QMessageBox* errorDialog() const;
    // Off: errors are only stored and signalled (batch use; tests may keep it on).
    void setErrorDialogsEnabled(bool enabled) { m_errorDialogsEnabled = enabled; }

    SessionSummaryWidget* summaryWidget() const { return m_summary; }
    TimelineWidget* timelineWidget() const { return m_timeline; }
    AnalysisPanels* panels() const { return m_panels; }
    FindBox* findBox() const { return m_findBox; }
    // The status bar's message (what is selected, loading, errors).
    QLabel* statusLabel() const { return m_statusLabel; }
    QMenu* recentMenu() const { return m_recentMenu; }
    // File ▸ Compare With… and the comparison window it opens.
    CompareLauncher* compareLauncher() const { return m_compare; }
    QStringList recentFiles() const;
    // The shortcuts dialog currently open, or null.
    ShortcutsDialog* shortcutsDialog() const;
    // Esc, the timeline keys from any panel, the first-run "getting around" overlay.
    WindowNavigation* navigation() const { return m_navigation; }

    static constexpr int kMaxRecentFiles = 10;

    // A file URL list holding exactly one local file, else empty: what a drop would open.
    static QString droppedFile(const QMimeData* mime);

public slots:
    void showOpenDialog();
    void showShortcuts();
    void focusFindBox();
    // Docks back where a fresh install puts them.
    void resetLayout() { m_layout->reset(); }
    // Writes the open session as Chrome/Perfetto trace JSON in the background (File ▸ Export).
    void exportChromeTrace(const QString& outPath);
    // Writes the PDF report of the open session once its analysis has finished. False (and the
    // error in the status bar and a dialog) when it cannot.
    bool exportReport(const QString& outPath);
    // File ▸ Record: the dialog that runs a program under stallscope-record; the session it
    // writes opens here.
    RecordDialog* showRecordDialog();
    // View ▸ Analyze Selected Range: the insights rerun over the timeline's range selection
    // (shares and severity over it); View ▸ Analyze Active Window goes back to the default.
    void analyzeSelectedRange();
    void analyzeDefaultWindow();
    // File ▸ Save Symbolized Copy: writes the symbolized copy being shown to `outPath` (a
    // temporary file renamed on success). False (and the error shown) when it cannot.
    bool saveSymbolizedCopy(const QString& outPath);

signals:
    void sessionLoaded(const QString& path);
    void loadFailed(const QString& error);
    void loadCancelled();
    // The insight analysis of the loaded session ended (with a report or an error).
    void analysisFinished();
    // Unresolved native frames of the opened session were resolved with this machine's binaries
    // into a copy in the cache folder, which is loaded next in the session's place; the session
    // file itself is never written.
    void symbolizedOnOpen(qint64 resolvedFrames);
    void chromeTraceExported(const QString& outPath);
    void chromeTraceExportFailed(const QString& error);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void createMenus();
    void createStatusBar();
    void connectSessions();
    void onLoaded();
    void onFailed(const QString& error);
    void onCancelled();
    void finishLoad();
    void showError(const QString& error, const QString& title = {});
    void updateTitle();
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void onAnalysisStarted();
    void onAnalysisFinished();
    void showSaveCopyDialog();
    void showExportDialog();
    void showReportDialog();

    SessionController* m_sessions = nullptr; // the loads and the symbolizations
    model::JobTracker* m_exports = nullptr;  // one export at a time
    bool m_errorDialogsEnabled = true;

    QStackedWidget* m_stack = nullptr;
    QLabel* m_placeholder = nullptr;
    SessionSummaryWidget* m_summary = nullptr;
    TimelineWidget* m_timeline = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QLabel* m_statusLabel = nullptr;
    QPointer<QMessageBox> m_errorBox;
    AnalysisPanels* m_panels = nullptr;
    FindBox* m_findBox = nullptr;
    QMenu* m_recentMenu = nullptr;
    QPointer<ShortcutsDialog> m_shortcutsDialog;
    std::unique_ptr<SavedLayout> m_layout;
    QAction* m_exportAction = nullptr;
    QAction* m_reportAction = nullptr;
    QAction* m_saveCopyAction = nullptr;     // enabled while a symbolized copy is shown
    QAction* m_analyzeRangeAction = nullptr; // enabled while the timeline has a range selected
    QPointer<RecordDialog> m_recordDialog;
    CompareLauncher* m_compare = nullptr;
    WindowNavigation* m_navigation = nullptr;
};

} // namespace stallscope::app
