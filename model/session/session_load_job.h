// SessionLoadJob: loads a session on a worker thread, reports progress and the result through
// queued signals (so slots run on the receiver's thread), and can be cancelled.
#pragma once

#include "model/session/session_loader.h"
#include "model/session/session_opener.h"

#include "model/session/background_worker.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace stallscope::model {

class SessionLoadJob : public QObject {
    Q_OBJECT
public:
    // `opener` decides which formats open (session files only by default).
    explicit SessionLoadJob(SessionOpener opener = {}, QObject* parent = nullptr);
    ~SessionLoadJob() override; // cancels and waits for the worker

    void start(const QString& path);
    void cancel();
    bool isRunning() const;
    // Blocks until the worker ends (tests and batch mode).
    void wait();

signals:
    void progress(double fraction);
    // Exactly one of these follows each start().
    void loaded(std::shared_ptr<const stallscope::model::Session> session);
    void failed(const QString& error);
    void cancelled();

private:
    SessionOpener m_opener;
    BackgroundWorker m_worker;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

} // namespace stallscope::model
