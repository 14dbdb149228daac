// JobTracker: results and progress reach the tracker's (GUI) thread; a superseded job's result
// and progress never arrive; cancel() emits cancelled() once; destroying the tracker mid-job is
// safe; start() does not wait for the task it supersedes. Workers are held with semaphores the
// test releases, never with timing.
#include "model/jobs/job_tracker.h"
#include "tests/support/test_suite.h"

#include <QCoreApplication>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

using namespace stallscope;

namespace {

// Stands for work that polls its cancel token between chunks (as the loader does).
void spinUntilCancelled(const model::JobControl& job) {
    while (!job.isCancelled())
        std::this_thread::yield();
}

// Delivers what was posted to the tracker before it (or its job) went away.
void deliverPostedEvents() {
    QCoreApplication::sendPostedEvents();
}

} // namespace

class TestJobTracker : public QObject {
    Q_OBJECT
private slots:
    void resultAndProgressArriveOnTheGuiThread() {
        model::JobTracker tracker;
        QThread* progressThread = nullptr;
        std::vector<double> fractions;
        connect(&tracker, &model::JobTracker::progress, this, [&](double fraction) {
            progressThread = QThread::currentThread();
            fractions.push_back(fraction);
        });
        QThread* deliveryThread = nullptr;
        QThread* workThread = nullptr;
        tracker.start(
            [](const model::JobControl& job) {
                job.reportProgress(1.0);
                return QThread::currentThread();
            },
            [&](QThread* ranOn) {
                workThread = ranOn;
                deliveryThread = QThread::currentThread();
            });
        QVERIFY(tracker.isRunning());
        QTRY_VERIFY(deliveryThread != nullptr);
        QCOMPARE(deliveryThread, QThread::currentThread());
        QVERIFY(workThread != QThread::currentThread());
        // Progress posted before the result arrives before it, on the same thread.
        QCOMPARE(progressThread, QThread::currentThread());
        QCOMPARE(fractions, std::vector<double>{1.0});
        QVERIFY(!tracker.isRunning());
    }

    void moveOnlyResultsAreDelivered() {
        model::JobTracker tracker;
        int delivered = 0;
        tracker.start([](const model::JobControl&) { return std::make_unique<int>(42); },
                      [&](std::unique_ptr<int> value) { delivered = *value; });
        QTRY_COMPARE(delivered, 42);
    }

    void startDoesNotWaitAndTheSupersededJobIsDropped() {
        model::JobTracker tracker;
        QSignalSpy progress(&tracker, &model::JobTracker::progress);
        QSemaphore firstStarted;
        QSemaphore releaseFirst;
        std::atomic<bool> firstSawCancel{false};
        std::vector<int> delivered;
        auto deliver = [&](int value) { delivered.push_back(value); };
        tracker.start(
            [&](const model::JobControl& job) {
                job.reportProgress(0.25);
                firstStarted.release();
                releaseFirst.acquire(); // held until the second job has delivered
                firstSawCancel = job.isCancelled();
                job.reportProgress(0.75);
                return 1;
            },
            deliver);
        firstStarted.acquire();
        // The first task is blocked on releaseFirst: this start() returns without it.
        tracker.start(
            [](const model::JobControl& job) {
                job.reportProgress(0.5);
                return 2;
            },
            deliver);
        QTRY_COMPARE(delivered, std::vector<int>{2});
        releaseFirst.release();
        tracker.waitForDone();
        deliverPostedEvents();
        QVERIFY(firstSawCancel);
        QCOMPARE(delivered, std::vector<int>{2});
        QCOMPARE(progress.size(), 1);
        QCOMPARE(progress.at(0).at(0).toDouble(), 0.5);
    }

    void cancelEmitsCancelledOnceAndDropsTheResult() {
        model::JobTracker tracker;
        QSignalSpy cancelled(&tracker, &model::JobTracker::cancelled);
        QSignalSpy progress(&tracker, &model::JobTracker::progress);
        QSemaphore started;
        QSemaphore release;
        std::atomic<bool> sawCancel{false};
        bool delivered = false;
        tracker.start(
            [&](const model::JobControl& job) {
                started.release();
                release.acquire();
                sawCancel = job.isCancelled();
                job.reportProgress(1.0);
                return 0;
            },
            [&](int) { delivered = true; });
        started.acquire();
        tracker.cancel();
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!tracker.isRunning());
        tracker.cancel(); // nothing runs any more: no second signal
        QCOMPARE(cancelled.size(), 1);
        release.release();
        tracker.waitForDone();
        deliverPostedEvents();
        QVERIFY(sawCancel);
        QVERIFY(!delivered);
        QCOMPARE(progress.size(), 0);
        QCOMPARE(cancelled.size(), 1);
    }

    void cancelWithoutAJobEmitsNothing() {
        model::JobTracker tracker;
        QSignalSpy cancelled(&tracker, &model::JobTracker::cancelled);
        tracker.cancel();
        QCOMPARE(cancelled.size(), 0);
        int delivered = 0;
        tracker.start([](const model::JobControl&) { return 7; }, [&](int v) { delivered = v; });
        QTRY_COMPARE(delivered, 7);
        tracker.cancel(); // the job has delivered: nothing to cancel
        QCOMPARE(cancelled.size(), 0);
    }

    void destroyingTheTrackerMidJobIsSafe() {
        auto receiver = std::make_unique<QObject>();
        auto* tracker = new model::JobTracker(receiver.get());
        QSemaphore started;
        auto delivered = std::make_shared<bool>(false);
        auto progressed = std::make_shared<bool>(false);
        connect(tracker, &model::JobTracker::progress, receiver.get(),
                [progressed](double) { *progressed = true; });
        QObject* target = receiver.get();
        tracker->start(
            [&started](const model::JobControl& job) {
                job.reportProgress(0.5); // posted, never delivered
                started.release();
                spinUntilCancelled(job);
                return 1;
            },
            [target, delivered](int) {
                *delivered = true;
                target->setObjectName(QStringLiteral("touched")); // would be a use after free
            });
        started.acquire();
        receiver.reset(); // deletes the tracker: cancels, waits for the task
        deliverPostedEvents();
        QVERIFY(!*delivered);
        QVERIFY(!*progressed);
    }

    void deliveryMayStartTheNextJob() {
        model::JobTracker tracker;
        std::vector<int> delivered;
        tracker.start([](const model::JobControl&) { return 1; },
                      [&](int value) {
                          delivered.push_back(value);
                          tracker.start([](const model::JobControl&) { return 2; },
                                        [&](int next) { delivered.push_back(next); });
                      });
        QTRY_COMPARE(delivered, (std::vector<int>{1, 2}));
        QVERIFY(!tracker.isRunning());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestJobTracker)
#include "test_job_tracker.moc"
