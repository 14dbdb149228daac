#include "model/jobs/job_tracker.h"

#include <QMetaObject>
#include <QThread>

#include <algorithm>

namespace stallscope::model {

void JobControl::reportProgress(double fraction) const {
    m_progress.store(fraction);
    // One report in flight at a time: a fast worker cannot flood the receiver's event queue.
    if (!m_progressPosted.exchange(true))
        m_tracker->postProgress(shared_from_this());
}

JobTracker::JobTracker(QObject* parent) : QObject(parent) {
    // Superseded tasks may still be finishing while the new one runs.
    m_pool.setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
}

JobTracker::~JobTracker() {
    if (m_current)
        m_current->m_cancel.store(true);
    // Superseded jobs were cancelled when they were replaced. Once their tasks have ended nothing
    // posts to this object any more, and QObject drops the deliveries still queued for it.
    m_pool.waitForDone();
}

std::shared_ptr<JobControl> JobTracker::beginJob() {
    if (m_current)
        m_current->m_cancel.store(true);
    m_current.reset(new JobControl(this));
    return m_current;
}

void JobTracker::runTask(std::function<void()> task) {
    m_pool.start(std::move(task));
}

void JobTracker::cancel() {
    if (!m_current)
        return;
    m_current->m_cancel.store(true);
    m_current.reset();
    emit cancelled();
}

void JobTracker::waitForDone() {
    m_pool.waitForDone();
}

// Called on the job's pool thread; the check runs on this tracker's thread, where m_current
// changes, so a job replaced or cancelled before its result arrives never delivers.
void JobTracker::deliverIfCurrent(const std::shared_ptr<JobControl>& job,
                                  std::function<void()> deliver) {
    post([this, job, deliver = std::move(deliver)] {
        if (job != m_current)
            return;
        m_current.reset(); // before deliver(), which may start the next job
        deliver();
    });
}

void JobTracker::postProgress(std::shared_ptr<const JobControl> job) {
    post([this, job = std::move(job)] {
        job->m_progressPosted.store(false);
        if (job == m_current)
            emit progress(job->m_progress.load());
    });
}

void JobTracker::post(std::function<void()> onTrackerThread) {
    {
        const std::lock_guard lock(m_postedMutex);
        m_posted.push_back(std::move(onTrackerThread));
    }
    // By name, so that the queued call carries nothing this thread wrote (see m_posted).
    QMetaObject::invokeMethod(this, "runPosted", Qt::QueuedConnection);
}

void JobTracker::runPosted() {
    std::vector<std::function<void()>> posted;
    {
        const std::lock_guard lock(m_postedMutex);
        posted.swap(m_posted);
    }
    for (std::function<void()>& run : posted)
        run(); // may start a job, whose posts wait for the next runPosted()
}

} // namespace stallscope::model
