#include "app/compare_launcher.h"

#include "app/session_openers.h"
#include "model/jobs/job_tracker.h"
#include "model/session/session.h"
#include "views/compare/compare_view.h"
#include "views/compare/compared_runs.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QShortcut>
#include <QWidget>

#include <utility>

namespace stallscope::app {

namespace {

// What the job hands back: the comparison, or why the after file did not open.
struct CompareOutcome {
    std::shared_ptr<const views::ComparedRuns> runs;
    std::string error;
};

// The share of the progress bar that loading the after file takes; the analyses report none.
constexpr double kLoadShare = 0.6;

} // namespace

CompareLauncher::CompareLauncher(QWidget* window, QMenu* fileMenu)
    : QObject(window), m_window(window), m_jobs(new model::JobTracker(this)) {
    m_jobs->setObjectName(QStringLiteral("comparisons")); // tests wait on it
    qRegisterMetaType<views::CompareView*>(); // compared()'s argument, for queued slots and spies
    m_action = fileMenu->addAction(tr("Compare &With…"), this, &CompareLauncher::showDialog);
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_action->setStatusTip(tr("Open a second run of the program beside this one and compare "
                              "them per sync site"));
    m_action->setEnabled(false);
    connect(m_jobs, &model::JobTracker::progress, this, [this](double fraction) {
        if (m_view)
            m_view->showProgress(m_view->progressLabel()->text(), fraction * kLoadShare);
    });
}

// The tracker, a child, cancels the comparison and waits for it when deleted.
CompareLauncher::~CompareLauncher() = default;

void CompareLauncher::setBefore(std::shared_ptr<const model::Session> session,
                                const QString& file) {
    m_before = std::move(session);
    m_beforeFile = file;
    m_action->setEnabled(m_before != nullptr);
    if (m_before && !m_pendingAfter.isEmpty())
        compareWith(std::exchange(m_pendingAfter, QString()));
}

void CompareLauncher::showDialog() {
    if (!m_before)
        return;
    const QString dir = QFileInfo(m_beforeFile).absolutePath();
    const QString path = QFileDialog::getOpenFileName(
        m_window, tr("Compare With"), dir,
        tr("Stallscope sessions and traces (*.stallscope *.json *.json.gz);;All files (*)"));
    if (!path.isEmpty())
        compareWith(path);
}

views::CompareView* CompareLauncher::view() const {
    return m_view;
}

QMessageBox* CompareLauncher::errorDialog() const {
    return m_errorBox;
}

bool CompareLauncher::isRunning() const {
    return m_jobs->isRunning();
}

views::CompareView* CompareLauncher::ensureView() {
    if (!m_view) {
        m_view = new views::CompareView(m_window);
        m_view->setWindowFlag(Qt::Window);
        m_view->setAttribute(Qt::WA_DeleteOnClose);
        m_view->resize(m_window->size());
        // Ctrl+W and Esc close it, as any secondary window (issue 42).
        for (const QKeySequence& keys :
             {QKeySequence(QKeySequence::Close), QKeySequence(Qt::Key_Escape)}) {
            auto* close = new QShortcut(keys, m_view);
            close->setContext(Qt::WindowShortcut);
            connect(close, &QShortcut::activated, m_view, &QWidget::close);
        }
        // Closing the window while the comparison is made cancels it (silently).
        connect(m_view, &QObject::destroyed, m_jobs, &model::JobTracker::cancel);
    }
    return m_view;
}

bool CompareLauncher::compareWith(const QString& afterPath) {
    const std::shared_ptr<const model::Session> before = m_before;
    if (!before)
        return false;
    const QString beforeFile = m_beforeFile;
    views::CompareView* view = ensureView();
    view->setWindowTitle(
        tr("%1 → %2 — Compare — Stallscope")
            .arg(QFileInfo(beforeFile).fileName(), QFileInfo(afterPath).fileName()));
    view->showProgress(tr("Opening %1 and comparing it with %2…")
                           .arg(QFileInfo(afterPath).fileName(), QFileInfo(beforeFile).fileName()),
                       0);
    view->show();
    view->raise();
    m_jobs->start(
        [opener = standardSessionOpener(), before, beforeFile,
         afterPath](const model::JobControl& job) {
            model::LoadOptions options;
            options.cancel = job.cancelFlag();
            options.progress = [&job](double fraction) { job.reportProgress(fraction); };
            model::LoadResult loaded = opener.open(afterPath.toStdString(), options);
            if (!loaded.ok())
                return CompareOutcome{nullptr, loaded.error};
            job.reportProgress(1.0);
            views::ComparedRun beforeRun{before, nullptr, beforeFile, 0};
            views::ComparedRun afterRun{std::move(loaded.session), nullptr, afterPath, 0};
            return CompareOutcome{
                views::compareRuns(std::move(beforeRun), std::move(afterRun), job.cancelFlag()),
                {}};
        },
        [this](const CompareOutcome& outcome) {
            if (!outcome.runs)
                return onFailed(QString::fromStdString(outcome.error));
            views::CompareView* view = ensureView();
            view->setRuns(outcome.runs);
            emit compared(view);
        });
    return true;
}

void CompareLauncher::compareWhenLoaded(const QString& afterPath) {
    m_pendingAfter = afterPath;
}

void CompareLauncher::onFailed(const QString& error) {
    if (m_view)
        m_view->close(); // deleted on close
    emit compareFailed(error);
    if (!m_errorDialogsEnabled)
        return;
    if (m_errorBox)
        m_errorBox->close();
    // The loader's message already names the file ("PATH: what is wrong").
    m_errorBox = new QMessageBox(QMessageBox::Critical, tr("Cannot compare"), error,
                                 QMessageBox::Ok, m_window);
    m_errorBox->setAttribute(Qt::WA_DeleteOnClose);
    m_errorBox->open(); // window-modal, returns at once
}

} // namespace stallscope::app
