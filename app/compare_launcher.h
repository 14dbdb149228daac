// CompareLauncher: File ▸ Compare With… of the main window. Compares the window's session (the
// before run) with a second file (the after run; a session or a trace, opened as File ▸ Open
// opens one): loads and analyzes it in the background (model::JobTracker) and shows the
// comparison in a window of its own (views::CompareView), which shows the progress meanwhile;
// closing it cancels. A file that cannot be opened is one message naming it, and the window
// closes. Kept out of MainWindow, which has enough to do.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

class QAction;
class QMenu;
class QMessageBox;
class QWidget;

namespace stallscope::model {
class JobTracker;
struct Session;
} // namespace stallscope::model

namespace stallscope::views {
class CompareView;
}

namespace stallscope::app {

class CompareLauncher : public QObject {
    Q_OBJECT
public:
    // Adds File ▸ Compare With… to `fileMenu`, enabled once setBefore() gave it a session;
    // `window` parents the dialogs and the compare window.
    CompareLauncher(QWidget* window, QMenu* fileMenu);
    ~CompareLauncher() override;

    QAction* action() const { return m_action; }
    // The session the window shows (the before run) and its file, after each load.
    void setBefore(std::shared_ptr<const model::Session> session, const QString& file);
    // Compares the before session with `afterPath`; replaces a comparison still being made.
    // False when there is no before session yet.
    bool compareWith(const QString& afterPath);
    // Compares with `afterPath` once the next before session is set (the command line's
    // FILE --compare-with AFTER).
    void compareWhenLoaded(const QString& afterPath);
    bool isRunning() const;
    // The compare window (also while it is being made), or null.
    views::CompareView* view() const;
    // The error dialog currently open, or null. Off: errors are only signalled.
    QMessageBox* errorDialog() const;
    void setErrorDialogsEnabled(bool enabled) { m_errorDialogsEnabled = enabled; }

public slots:
    void showDialog();

signals:
    void compared(stallscope::views::CompareView* view);
    void compareFailed(const QString& error);

private:
    views::CompareView* ensureView();
    void onFailed(const QString& error);

    QWidget* m_window;
    std::shared_ptr<const model::Session> m_before;
    QString m_beforeFile;
    QString m_pendingAfter; // compareWhenLoaded's
    QAction* m_action = nullptr;
    model::JobTracker* m_jobs = nullptr;
    QPointer<views::CompareView> m_view;
    QPointer<QMessageBox> m_errorBox;
    bool m_errorDialogsEnabled = true;
};

} // namespace stallscope::app
