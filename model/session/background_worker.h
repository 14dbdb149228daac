// BackgroundWorker: owns the one worker thread of a background job (loading, analysis,
// symbolization, export): start a task, ask whether it runs, wait for it. Destruction waits, so a
// job object is never destroyed under its running task. Cancelling is the task's own business (a
// flag it polls); results leave through the job's queued signals.
#pragma once

#include <QThread>

#include <functional>

namespace stallscope::model {

class BackgroundWorker {
public:
    BackgroundWorker() = default;
    ~BackgroundWorker() { wait(); }
    BackgroundWorker(const BackgroundWorker&) = delete;
    BackgroundWorker& operator=(const BackgroundWorker&) = delete;

    // Waits for the previous task, then runs `task` on a new thread.
    void start(std::function<void()> task) {
        wait();
        m_thread = QThread::create(std::move(task));
        m_thread->start();
    }
    bool isRunning() const { return m_thread && m_thread->isRunning(); }
    void wait() {
        if (!m_thread)
            return;
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }

private:
    QThread* m_thread = nullptr;
};

} // namespace stallscope::model
