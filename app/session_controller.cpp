#include "app/session_controller.h"

#include "app/background_work.h"
#include "app/session_openers.h"
#include "format/session_meta.h"
#include "model/jobs/job_tracker.h"
#include "model/session/column_cache.h"
#include "model/session/session.h"

#include <QStandardPaths>

namespace stallscope::app {

SessionController::SessionController(QObject* parent)
    : QObject(parent), m_loads(new model::JobTracker(this)),
      m_symbolizations(new model::JobTracker(this)), m_columnCaches(new model::JobTracker(this)) {
    m_loads->setObjectName(QStringLiteral("loads"));                   // tests wait on it
    m_symbolizations->setObjectName(QStringLiteral("symbolizations")); // tests wait on it
    m_columnCaches->setObjectName(QStringLiteral("columnCaches"));
    connect(m_loads, &model::JobTracker::progress, this, &SessionController::loadProgress);
    connect(m_loads, &model::JobTracker::cancelled, this, &SessionController::loadCancelled);
}

// The job trackers, children, cancel their jobs and wait for them when deleted.
SessionController::~SessionController() = default;

void SessionController::open(const QStringList& files) {
    if (!files.isEmpty())
        startLoad(files, {});
}

void SessionController::cancel() {
    m_loads->cancel(); // emits cancelled() (loadCancelled) when a load was running
}

bool SessionController::isLoading() const {
    return m_loads->isRunning();
}

void SessionController::startLoad(const QStringList& files, const QString& symbolizedCopy) {
    cancel();
    m_loadingFiles = files;
    m_loadingCopy = symbolizedCopy;
    emit loadStarted(files.front());
    m_loads->start(
        [files = symbolizedCopy.isEmpty() ? files : QStringList{symbolizedCopy}](
            const model::JobControl& job) {
            model::LoadOptions options;
            options.cancel = job.cancelFlag();
            options.progress = [&job](double fraction) { job.reportProgress(fraction); };
            options.useColumnCache = true;
            return app::openFiles(files, options); // session_openers.h
        },
        [this](model::LoadResult result) {
            if (result.ok()) {
                onLoaded(std::move(result.session));
            } else {
                m_lastError = QString::fromStdString(result.error);
                emit loadFailed(m_lastError);
            }
        });
}

void SessionController::onLoaded(std::shared_ptr<const model::Session> session) {
    m_session = std::move(session);
    m_currentFiles = m_loadingFiles;
    m_symbolizedCopy = m_loadingCopy;
    m_lastError.clear();
    emit loaded();
    cacheColumns();
    symbolizeIfPossible();
}

// A large session's columns go to the column cache in the background, so that opening it again
// reads them in one pass (model/session/column_cache.h).
void SessionController::cacheColumns() {
    if (m_session->columnCacheKey.empty() || m_session->counts.total() < model::kMinCachedEvents)
        return;
    m_columnCaches->start(
        [session = m_session](const model::JobControl& job) {
            std::string error;
            if (!model::writeCachedColumns(model::columnCacheFolder(), *session, &error,
                                           model::kMinCachedEvents, model::kColumnCacheLimits,
                                           job.cancelFlag()))
                return error;
            return std::string();
        },
        [](const std::string& error) {
            if (!error.empty())
                qWarning("column cache not written: %s", error.c_str());
        });
}

// A session recorded elsewhere, or with --no-symbolize, may have unresolved native frames whose
// binaries exist here: resolve them in the background into a cached copy and show that copy. An
// imported trace has no native frames to resolve. The copies go to the user's cache folder, never
// beside the session.
void SessionController::symbolizeIfPossible() {
    const QString file = currentFile();
    if (!symbolizerAvailable() || !m_symbolizedCopy.isEmpty() || m_symbolizeTried.contains(file) ||
        !m_session->metaValue(format::meta::kImportFormat).empty())
        return;
    const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) +
                          QStringLiteral("/symbolized");
    m_symbolizations->start(
        [path = file.toStdString(), cache = cache.toStdString()](const model::JobControl&) {
            return symbolizeSessionFile(path, cache);
        },
        [this, file](const SymbolizeOutcome& outcome) {
            if (file != currentFile())
                return; // another session was opened meanwhile
            if (outcome.kind != SymbolizeOutcome::Kind::Symbolized)
                m_symbolizeTried.insert(file);
            if (outcome.kind == SymbolizeOutcome::Kind::Failed) {
                if (!isLoading())
                    emit symbolizationFailed(QString::fromStdString(outcome.error));
                return;
            }
            if (outcome.kind != SymbolizeOutcome::Kind::Symbolized)
                return;
            const QString copy = QString::fromStdString(outcome.copyPath);
            startLoad({file}, copy);
            emit symbolized(outcome.resolvedFrames, copy);
        });
}

} // namespace stallscope::app
