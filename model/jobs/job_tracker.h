// JobTracker: runs one background job at a time for an object on the GUI thread (its receiver)
// and delivers the job's result and progress there, in that thread's event loop.
//
//   tracker->start([path](const JobControl& job) { return loadSomething(path, job); },
//                  [this](Result result) { show(std::move(result)); });
//
// The work is a plain function of its own layer that polls job.isCancelled() (or hands
// job.cancelFlag() on) and may call job.reportProgress(). Starting a job supersedes the running
// one: the old one is cancelled and whatever it still delivers or reports is dropped, so callers
// never compare job identities. Starting never waits for the old task, it ends on its own pool
// thread. cancel() stops the running job and emits cancelled() once, instead of its result.
// Destroying the tracker cancels its jobs and waits for their tasks; nothing is delivered after.
// The work must not touch the receiver: only `deliver` runs on the receiver's thread.
#pragma once

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

namespace stallscope::model {

class JobTracker;

// What a running job's work sees: its cancel token and the way to report progress.
class JobControl : public std::enable_shared_from_this<JobControl> {
public:
    bool isCancelled() const { return m_cancel.load(); }
    // For work that takes a flag (LoadOptions::cancel, AnalysisOptions::cancel).
    const std::atomic<bool>* cancelFlag() const { return &m_cancel; }
    // A fraction in [0, 1], from any thread. Reports are coalesced: the receiver sees the latest.
    void reportProgress(double fraction) const;

private:
    friend class JobTracker;
    explicit JobControl(JobTracker* tracker) : m_tracker(tracker) {}

    JobTracker* m_tracker; // outlives every task: its destructor waits for them
    std::atomic<bool> m_cancel{false};
    mutable std::atomic<double> m_progress{0.0};
    mutable std::atomic<bool> m_progressPosted{false};
};

class JobTracker : public QObject {
    Q_OBJECT
public:
    // Results are delivered on the thread this tracker lives in (create it on the GUI thread).
    explicit JobTracker(QObject* parent = nullptr);
    ~JobTracker() override; // cancels and waits for every task it started

    // Runs `work(const JobControl&)` on a pool thread and then `deliver(result)` on this
    // tracker's thread, unless the job was cancelled or superseded first.
    template <typename Work, typename Deliver> void start(Work work, Deliver deliver) {
        using Result = std::invoke_result_t<Work&, const JobControl&>;
        std::shared_ptr<JobControl> job = beginJob();
        runTask([this, job, work = std::move(work), deliver = std::move(deliver)]() mutable {
            // Shared so that the result, which may be move-only, rides in copyable functors.
            auto result = std::make_shared<Result>(work(*job));
            deliverIfCurrent(job, [deliver, result] { deliver(std::move(*result)); });
        });
    }

    // Cancels the running job, if any, and emits cancelled(); its result never arrives.
    void cancel();
    // A job was started and has neither delivered nor been cancelled.
    bool isRunning() const { return m_current != nullptr; }
    // Blocks until every task this tracker started has ended, superseded ones included (tests
    // and batch use; results already posted still arrive through the event loop).
    void waitForDone();

signals:
    void progress(double fraction);
    void cancelled();

private slots:
    void runPosted();

private:
    friend class JobControl;
    std::shared_ptr<JobControl> beginJob();
    void runTask(std::function<void()> task);
    void deliverIfCurrent(const std::shared_ptr<JobControl>& job, std::function<void()> deliver);
    void postProgress(std::shared_ptr<const JobControl> job);
    // Runs `onTrackerThread` in this tracker's event loop, from any thread.
    void post(std::function<void()> onTrackerThread);

    std::shared_ptr<JobControl> m_current; // touched on this tracker's thread only
    QThreadPool m_pool;                    // this tracker's tasks, so that it can wait for them
    // What pool threads hand to this tracker's thread. A queue under a std::mutex rather than
    // state captured in the queued call itself: the mutex orders the hand-over where a
    // ThreadSanitizer build can see it, Qt's futex-based event queue it cannot (CI stop 54).
    std::mutex m_postedMutex;
    std::vector<std::function<void()>> m_posted;
};

} // namespace stallscope::model
