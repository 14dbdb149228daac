// SessionController: the one object that owns which session the window shows and how it got there —
// the load (a file, or several as one run) as a cancellable background job, then, for a session
// whose native frames are unresolved but whose binaries exist here, the symbolization into a
// cached copy and the reload of that copy in the session's place. The window asks it to open and
// shows what its signals report; the session file itself is never written (issue 13).
#pragma once

#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>

namespace stallscope::model {
class JobTracker;
class Session;
} // namespace stallscope::model

namespace stallscope::app {

class SessionController : public QObject {
    Q_OBJECT
public:
    explicit SessionController(QObject* parent = nullptr);
    ~SessionController() override;

    // Starts loading `files` (one session, or the rank files of one run), replacing any load in
    // progress. Results arrive as signals.
    void open(const QStringList& files);
    void cancel();
    bool isLoading() const;

    const std::shared_ptr<const model::Session>& session() const { return m_session; }
    // The files shown: the first is the one named in the title and the recent files.
    const QStringList& currentFiles() const { return m_currentFiles; }
    QString currentFile() const { return m_currentFiles.value(0); }
    // The symbolized copy shown instead of currentFile(), else empty.
    const QString& symbolizedCopy() const { return m_symbolizedCopy; }
    // The last load's error; empty after a load succeeds.
    const QString& lastError() const { return m_lastError; }

signals:
    // A load began: `shownFile` is the file it is named after.
    void loadStarted(const QString& shownFile);
    void loadProgress(double fraction);
    // The load ended with `session()` and `currentFiles()` set (a symbolized copy's load too:
    // `symbolizedCopy()` says so).
    void loaded();
    void loadFailed(const QString& error);
    void loadCancelled();
    // The session's unresolved frames were resolved into `copyPath`, whose load starts now.
    void symbolized(qint64 resolvedFrames, const QString& copyPath);
    // Symbolization failed; the session stays as loaded. Not signalled while another load runs.
    void symbolizationFailed(const QString& error);

private:
    // Loads `files`, or a file's symbolized copy in its place when one is given.
    void startLoad(const QStringList& files, const QString& symbolizedCopy);
    void onLoaded(std::shared_ptr<const model::Session> session);
    void symbolizeIfPossible();
    void cacheColumns();

    model::JobTracker* m_loads = nullptr;
    model::JobTracker* m_symbolizations = nullptr;
    model::JobTracker* m_columnCaches = nullptr; // writes a large session's column cache
    std::shared_ptr<const model::Session> m_session;
    QStringList m_currentFiles;
    QString m_symbolizedCopy;
    QString m_lastError;
    // The load in progress: what becomes currentFiles() and symbolizedCopy() when it ends.
    QStringList m_loadingFiles;
    QString m_loadingCopy;
    QSet<QString> m_symbolizeTried; // files with nothing to resolve here (once per controller)
};

} // namespace stallscope::app
