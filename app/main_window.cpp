#include "app/main_window.h"

#include "app/background_work.h"
#include "app/compare_launcher.h"
#include "app/session_controller.h"
#include "app/session_openers.h"
#include "app/window_layout.h"
#include "app/window_navigation.h"
#include "format/output_file.h"
#include "model/analysis/analysis_window.h"
#include "model/jobs/job_tracker.h"
#include "model/session/session.h"
#include "model/session/session_summary.h"
#include "views/dialogs/record_dialog.h"
#include "views/dialogs/shortcuts_dialog.h"
#include "views/panels/analysis_panels.h"
#include "views/panels/find_box.h"
#include "views/panels/panel_widgets.h"
#include "views/panels/session_summary_widget.h"
#include "views/report/report_writer.h"
#include "views/timeline/timeline_widget.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>

namespace stallscope::app {

using views::ReportWriter;

namespace {

// Asks where to save an export of `session`, offering the session's name with `extension` in its
// folder. Empty when the user cancels.
QString askExportPath(QWidget* parent, const QString& session, const QString& title,
                      const char* extension, const QString& filter) {
    const QFileInfo info(session);
    return QFileDialog::getSaveFileName(
        parent, title, info.dir().filePath(info.completeBaseName() + extension), filter);
}

// What File ▸ Export may write: an existing file too (the save dialog asked), but none of the
// files the open session was read from.
format::OutputPolicy exportPolicy(const QStringList& currentFiles, const model::Session& session) {
    format::OutputPolicy policy;
    policy.replaceExisting = true;
    policy.inputs = filesReadToOpen(currentFiles);
    for (const std::string& file : session.files())
        policy.inputs.push_back(file);
    return policy;
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setAcceptDrops(true);

    m_stack = new QStackedWidget(this);
    m_placeholder = new QLabel(
        tr("Open a session with File ▸ Open (Ctrl+O)\nor drop a .stallscope file here."), m_stack);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setForegroundRole(QPalette::PlaceholderText);
    m_stack->addWidget(m_placeholder);

    auto* sessionPage = new QWidget(m_stack);
    auto* layout = new QVBoxLayout(sessionPage);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_summary = new SessionSummaryWidget(sessionPage);
    m_timeline = new TimelineWidget(sessionPage);
    layout->addWidget(m_summary);
    auto* separator = new QFrame(sessionPage);
    separator->setFrameShape(QFrame::HLine);
    separator->setFrameShadow(QFrame::Sunken);
    layout->addWidget(separator);
    layout->addWidget(m_timeline, 1);
    m_stack->addWidget(sessionPage);
    setCentralWidget(m_stack);

    m_panels = new AnalysisPanels(this, m_timeline);
    arrangeDocks(*this, *m_panels); // app/window_layout.cpp: window size, corners, dock shares
    connect(m_panels, &AnalysisPanels::analysisStarted, this, &MainWindow::onAnalysisStarted);
    connect(m_panels, &AnalysisPanels::analysisFinished, this, &MainWindow::onAnalysisFinished);
    m_findBox = new FindBox(this);
    auto* toolBar = addToolBar(tr("Find"));
    toolBar->setObjectName(QStringLiteral("findToolBar"));
    toolBar->setMovable(false);
    toolBar->addWidget(m_findBox);
    connect(m_findBox, &FindBox::findRequested, this,
            [this](const QString& text) { m_findBox->setResultCount(m_panels->findEvents(text)); });
    connect(m_findBox, &FindBox::cleared, m_panels, &AnalysisPanels::clearHighlight);

    createMenus();
    createStatusBar();
    m_sessions = new SessionController(this);
    m_exports = new model::JobTracker(this);
    connectSessions();
    connect(m_panels, &AnalysisPanels::statusMessage, m_statusLabel, &QLabel::setText);
    m_layout = std::make_unique<SavedLayout>(*this);
    updateTitle();
}

// The job trackers, children, cancel their jobs and wait for them when deleted, so closing
// mid-load is safe.
MainWindow::~MainWindow() = default;

void MainWindow::connectSessions() {
    connect(m_sessions, &SessionController::loadStarted, this, [this](const QString& shownFile) {
        m_statusLabel->setText(tr("Loading %1…").arg(shownName(shownFile)));
        m_progress->setValue(0);
        m_progress->show();
        m_cancelButton->show();
    });
    connect(m_sessions, &SessionController::loadProgress, this,
            [this](double fraction) { m_progress->setValue(static_cast<int>(fraction * 1000.0)); });
    connect(m_sessions, &SessionController::loaded, this, &MainWindow::onLoaded);
    connect(m_sessions, &SessionController::loadFailed, this, &MainWindow::onFailed);
    connect(m_sessions, &SessionController::loadCancelled, this, &MainWindow::onCancelled);
    connect(m_sessions, &SessionController::symbolized, this,
            [this](qint64 resolvedFrames, const QString& copyPath) {
                emit symbolizedOnOpen(resolvedFrames);
                m_statusLabel->setText(
                    tr("Resolved %n native frame(s) with this machine's binaries into a copy "
                       "(%1); the session file is unchanged. Loading the copy…",
                       nullptr, int(resolvedFrames))
                        .arg(copyPath));
            });
    connect(m_sessions, &SessionController::symbolizationFailed, this,
            [this](const QString& error) {
                m_statusLabel->setText(tr("Frames left unresolved: %1").arg(error));
            });
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::showOpenDialog);
    open->setShortcut(QKeySequence::Open);
    // A run folder (one session per rank) or a folder of rank traces: a file dialog cannot pick it.
    file->addAction(tr("Open Run &Folder…"), this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Open Run Folder"));
        if (!folder.isEmpty())
            openFile(folder);
    });
    QAction* record = file->addAction(tr("Re&cord…"), this, &MainWindow::showRecordDialog);
    record->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    rebuildRecentMenu();
    m_exportAction =
        file->addAction(tr("&Export Chrome Trace…"), this, &MainWindow::showExportDialog);
    m_exportAction->setEnabled(false);
    m_reportAction =
        file->addAction(tr("Export &Report (PDF)…"), this, &MainWindow::showReportDialog);
    m_reportAction->setEnabled(false);
    m_saveCopyAction =
        file->addAction(tr("Save &Symbolized Copy…"), this, &MainWindow::showSaveCopyDialog);
    m_saveCopyAction->setEnabled(false);
    m_compare = new CompareLauncher(this, file); // File ▸ Compare With…
    connect(this, &MainWindow::sessionLoaded, m_compare,
            [this] { m_compare->setBefore(session(), currentFile()); });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    // Some platforms (offscreen, some desktops) map QKeySequence::Quit to nothing.
    const QList<QKeySequence> quitKeys = QKeySequence::keyBindings(QKeySequence::Quit);
    quit->setShortcuts(quitKeys.isEmpty() ? QList<QKeySequence>{QKeySequence(Qt::CTRL | Qt::Key_Q)}
                                          : quitKeys);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* find = edit->addAction(tr("&Find…"), this, &MainWindow::focusFindBox);
    find->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* fit = view->addAction(tr("Zoom to &Fit"), m_timeline, &TimelineWidget::zoomToFit);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    view->addSeparator();
    m_analyzeRangeAction =
        view->addAction(tr("Analyze &Selected Range"), this, &MainWindow::analyzeSelectedRange);
    m_analyzeRangeAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    m_analyzeRangeAction->setEnabled(false);
    view->addAction(tr("Analyze the &Loop (Default Window)"), this,
                    &MainWindow::analyzeDefaultWindow);
    const auto updateRangeAction = [this] {
        m_analyzeRangeAction->setEnabled(session() && m_timeline->hasRangeSelection());
    };
    connect(m_timeline, &TimelineWidget::rangeSelected, this, updateRangeAction);
    connect(m_timeline, &TimelineWidget::selectionCleared, this, updateRangeAction);
    view->addSeparator();
    const std::pair<QDockWidget*, QKeySequence> docks[] = {
        {m_panels->insightsDock(), QKeySequence(Qt::CTRL | Qt::Key_1)},
        {m_panels->sourceDock(), QKeySequence(Qt::CTRL | Qt::Key_2)},
        {m_panels->stackDock(), QKeySequence(Qt::CTRL | Qt::Key_3)},
        {m_panels->tablesDock(), QKeySequence(Qt::CTRL | Qt::Key_4)},
        {m_panels->detailsDock(), QKeySequence(Qt::CTRL | Qt::Key_5)},
    };
    for (const auto& [dock, key] : docks) // a panel's shortcut brings it forward, never hides it
        view->addAction(dock->windowTitle(), key, dock, [d = dock] { views::bringForward(d); });
    view->addSeparator();
    view->addAction(tr("Source &Path Remapping…"), m_panels,
                    [this] { m_panels->showPathRemapDialog(); });
    view->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* keys = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    keys->setShortcut(QKeySequence(Qt::Key_F1));
    help->addAction(tr("&About Stallscope"), this, [this] {
        QMessageBox::about(this, tr("About Stallscope"),
                           tr("<b>Stallscope %1</b><p>Finds the lines of code that make the host "
                              "wait for the GPU.</p>")
                               .arg(QApplication::applicationVersion()));
    });
    m_navigation = new WindowNavigation(this, m_timeline, m_panels, edit, help);
}

void MainWindow::createStatusBar() {
    m_statusLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(false);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    connect(m_cancelButton, &QPushButton::clicked, this, &MainWindow::cancelLoad);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancelButton);
    m_progress->hide();
    m_cancelButton->hide();
}

void MainWindow::showOpenDialog() {
    const QString dir =
        currentFile().isEmpty() ? QString() : QFileInfo(currentFile()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Session"), dir, tr("Stallscope sessions (*.stallscope);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::openFile(const QString& path) {
    m_sessions->open({path});
}

void MainWindow::openFiles(const QStringList& files) {
    m_sessions->open(files);
}

void MainWindow::cancelLoad() {
    m_sessions->cancel(); // emits loadCancelled (onCancelled) when a load was running
}

bool MainWindow::isLoading() const {
    return m_sessions->isLoading();
}

const std::shared_ptr<const model::Session>& MainWindow::session() const {
    return m_sessions->session();
}

QString MainWindow::currentFile() const {
    return m_sessions->currentFile();
}

QString MainWindow::symbolizedCopy() const {
    return m_sessions->symbolizedCopy();
}

QString MainWindow::lastError() const {
    return m_sessions->lastError();
}

void MainWindow::finishLoad() {
    m_progress->hide();
    m_cancelButton->hide();
}

void MainWindow::onLoaded() {
    finishLoad();
    const std::shared_ptr<const model::Session>& session = m_sessions->session();
    m_summary->setSession(session);
    m_timeline->setSession(session);
    m_stack->setCurrentIndex(1);
    if (m_sessions->currentFiles().size() == 1) // the menu opens one file
        addRecentFile(currentFile());
    m_panels->setSession(session);
    updateTitle();
    QString status = tr("%1 events over %2")
                         .arg(QString::fromStdString(model::formatCount(session->counts.total())),
                              QString::fromStdString(model::formatDuration(session->durationNs())));
    const bool showsCopy = !symbolizedCopy().isEmpty();
    if (showsCopy)
        status += tr(" — showing a symbolized copy; the session file is unchanged (File ▸ Save "
                     "Symbolized Copy… keeps it)");
    m_statusLabel->setText(status);
    m_exportAction->setEnabled(true);
    m_reportAction->setEnabled(false); // until this session's analysis has finished
    m_saveCopyAction->setEnabled(showsCopy);
    m_analyzeRangeAction->setEnabled(m_timeline->hasRangeSelection());
    emit sessionLoaded(currentFile());
}

void MainWindow::analyzeSelectedRange() {
    if (!session() || !m_timeline->hasRangeSelection())
        return;
    const auto [start, end] = m_timeline->rangeSelection();
    m_panels->analyzeWindow(model::AnalysisWindow{model::AnalysisWindow::Kind::Time,
                                                  std::min(start, end), std::max(start, end),
                                                  "selected range"});
}

void MainWindow::analyzeDefaultWindow() {
    m_panels->analyzeWindow(std::nullopt);
}

void MainWindow::showExportDialog() {
    const QString path = askExportPath(this, currentFile(), tr("Export Chrome Trace"), ".json",
                                       tr("Chrome trace (*.json *.json.gz)"));
    if (!path.isEmpty())
        exportChromeTrace(path);
}

RecordDialog* MainWindow::showRecordDialog() {
    if (!m_recordDialog) {
        m_recordDialog = new RecordDialog(this);
        m_recordDialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(m_recordDialog, &RecordDialog::sessionRecorded, this, [this](const QString& path) {
            openFile(path);
            m_recordDialog->close();
        });
    }
    m_recordDialog->show();
    m_recordDialog->raise();
    return m_recordDialog;
}

void MainWindow::showReportDialog() {
    const QString path =
        askExportPath(this, currentFile(), tr("Export Report"), ".pdf", tr("PDF (*.pdf)"));
    if (!path.isEmpty())
        exportReport(path);
}

bool MainWindow::exportReport(const QString& outPath) {
    if (!session() || !m_panels->report())
        return false;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    QString error;
    const bool written =
        ReportWriter::write(session(), *m_panels->report(), outPath,
                            exportPolicy(m_sessions->currentFiles(), *session()), &error);
    QApplication::restoreOverrideCursor();
    if (!written) {
        m_statusLabel->setText(error);
        showError(error, tr("Cannot export"));
        return false;
    }
    m_statusLabel->setText(tr("Wrote the report %1").arg(outPath));
    return true;
}

void MainWindow::exportChromeTrace(const QString& outPath) {
    // One export at a time: an export cannot be cancelled, so a second one would race it.
    if (!session() || m_exports->isRunning())
        return;
    m_exportAction->setEnabled(false);
    m_statusLabel->setText(tr("Exporting %1…").arg(outPath));
    auto exportFile =
        [shown = session(), out = outPath.toStdString(),
         policy = exportPolicy(m_sessions->currentFiles(), *session())](const model::JobControl&) {
            return exportChromeTraceFile(*shown, out, policy);
        };
    m_exports->start(exportFile, [this, outPath](const std::string& error) {
        m_exportAction->setEnabled(session() != nullptr);
        if (error.empty()) {
            m_statusLabel->setText(
                tr("Exported %1 (open it in ui.perfetto.dev or chrome://tracing)").arg(outPath));
            emit chromeTraceExported(outPath);
            return;
        }
        const QString message = QString::fromStdString(error);
        m_statusLabel->setText(message);
        showError(message, tr("Cannot export"));
        emit chromeTraceExportFailed(message);
    });
}

void MainWindow::showSaveCopyDialog() {
    const QString path =
        askExportPath(this, currentFile(), tr("Save Symbolized Copy"), "-symbolized.stallscope",
                      tr("Stallscope sessions (*.stallscope)"));
    if (!path.isEmpty())
        saveSymbolizedCopy(path);
}

bool MainWindow::saveSymbolizedCopy(const QString& outPath) {
    if (symbolizedCopy().isEmpty())
        return false;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const QString error = copyFileAtomically(symbolizedCopy(), outPath);
    QApplication::restoreOverrideCursor();
    if (!error.isEmpty()) {
        m_statusLabel->setText(error);
        showError(error, tr("Cannot save"));
        return false;
    }
    m_statusLabel->setText(tr("Saved the symbolized copy as %1").arg(outPath));
    return true;
}

void MainWindow::onFailed(const QString& error) {
    finishLoad();
    m_statusLabel->setText(error);
    showError(error);
    emit loadFailed(error);
}

void MainWindow::onCancelled() {
    finishLoad();
    m_statusLabel->setText(tr("Loading cancelled."));
    emit loadCancelled();
}

void MainWindow::showError(const QString& error, const QString& title) {
    if (!m_errorDialogsEnabled)
        return;
    if (m_errorBox)
        m_errorBox->close();
    m_errorBox =
        new QMessageBox(QMessageBox::Critical, title.isEmpty() ? tr("Cannot open session") : title,
                        error, QMessageBox::Ok, this);
    m_errorBox->setAttribute(Qt::WA_DeleteOnClose);
    m_errorBox->open(); // window-modal, returns at once: nothing waits on the user here
}

QMessageBox* MainWindow::errorDialog() const {
    return m_errorBox;
}

void MainWindow::updateTitle() {
    setWindowTitle(currentFile().isEmpty() ? tr("Stallscope")
                   : symbolizedCopy().isEmpty()
                       ? tr("%1 — Stallscope").arg(shownName(currentFile()))
                       : tr("%1 (symbolized copy) — Stallscope").arg(shownName(currentFile())));
}

QString MainWindow::droppedFile(const QMimeData* mime) {
    if (!mime || !mime->hasUrls())
        return {};
    const QList<QUrl> urls = mime->urls();
    if (urls.size() != 1 || !urls.front().isLocalFile())
        return {};
    return urls.front().toLocalFile();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedFile(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = droppedFile(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    openFile(path);
}

void MainWindow::onAnalysisStarted() {
    if (isLoading())
        return;                 // a load is in progress and owns the progress bar
    m_progress->setRange(0, 0); // busy indicator: the engine reports no fraction
    m_progress->show();
    m_statusLabel->setText(tr("Analyzing %1…").arg(shownName(currentFile())));
}

void MainWindow::onAnalysisFinished() {
    if (!isLoading()) {
        m_progress->hide();
        m_progress->setRange(0, 1000);
    }
    m_reportAction->setEnabled(m_panels->report() != nullptr);
    emit analysisFinished();
}

void MainWindow::focusFindBox() {
    m_findBox->setFocus(Qt::ShortcutFocusReason);
    m_findBox->selectAll();
}

void MainWindow::showShortcuts() {
    if (!m_shortcutsDialog) {
        m_shortcutsDialog =
            new ShortcutsDialog(findChildren<QAction*>(), TimelineWidget::navigationHelp(), this);
        m_shortcutsDialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_shortcutsDialog->open();
}

ShortcutsDialog* MainWindow::shortcutsDialog() const {
    return m_shortcutsDialog;
}

QStringList MainWindow::recentFiles() const {
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::addRecentFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = recentFiles();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        const QString& path = files[i];
        // &1..&9 as accelerators; the full path in the status tip tells same-named files apart.
        const QString label =
            i < 9 ? QStringLiteral("&%1 %2").arg(i + 1).arg(shownName(path)) : shownName(path);
        QAction* action = m_recentMenu->addAction(label, this, [this, path] { openFile(path); });
        action->setStatusTip(path);
        action->setToolTip(path);
    }
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("&Clear Menu"), this, [this] {
            QSettings().remove(QStringLiteral("recentFiles"));
            rebuildRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    m_layout->save();
    QMainWindow::closeEvent(event);
}

} // namespace stallscope::app
