// SessionController without a window: what it shows changes only when a load succeeds (a failed
// or superseded load leaves the shown session, its files and its copy as they were), each load
// ends in exactly one of loaded / loadFailed / loadCancelled, and a newer load cancels the older;
// a large session's columns go to the column cache, and its next open reads them from there.
#include "app/session_controller.h"
#include "model/jobs/job_tracker.h"
#include "model/session/column_cache.h"
#include "model/session/session.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/test_suite.h"
#include "tests/views/tiny_session.h"

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;
using stallscope::app::SessionController;

class SessionControllerTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_first;
    QString m_second;

    struct Outcomes {
        explicit Outcomes(SessionController& sessions)
            : started(&sessions, &SessionController::loadStarted),
              loaded(&sessions, &SessionController::loaded),
              failed(&sessions, &SessionController::loadFailed),
              cancelled(&sessions, &SessionController::loadCancelled) {}
        int ended() const { return loaded.size() + failed.size() + cancelled.size(); }
        QSignalSpy started, loaded, failed, cancelled;
    };

    static bool waitIdle(SessionController& sessions) {
        return QTest::qWaitFor([&] { return !sessions.isLoading(); }, 10000);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        qputenv("STALLSCOPE_COLUMN_CACHE", m_dir.filePath(QStringLiteral("columns")).toUtf8());
        m_first = m_dir.filePath(QStringLiteral("first.stallscope"));
        m_second = m_dir.filePath(QStringLiteral("second.stallscope"));
        QString error;
        QVERIFY2(tiny::write(m_first, &error), qPrintable(error));
        QVERIFY2(tiny::write(m_second, &error), qPrintable(error));
    }

    void startsWithNothingShown() {
        SessionController sessions;
        QVERIFY(!sessions.session());
        QVERIFY(sessions.currentFiles().isEmpty());
        QVERIFY(sessions.currentFile().isEmpty());
        QVERIFY(sessions.symbolizedCopy().isEmpty());
        QVERIFY(!sessions.isLoading());
        // Nothing to open, nothing to cancel: no signal either way.
        Outcomes outcomes(sessions);
        sessions.open({});
        sessions.cancel();
        QVERIFY(!sessions.isLoading());
        QCOMPARE(outcomes.started.size() + outcomes.ended(), 0);
    }

    void loadSetsWhatIsShown() {
        SessionController sessions;
        Outcomes outcomes(sessions);
        sessions.open({m_first});
        QCOMPARE(outcomes.started.size(), 1);
        QCOMPARE(outcomes.started.front().front().toString(), m_first);
        // Until the load ends, nothing is shown yet.
        QVERIFY(sessions.currentFiles().isEmpty());
        QVERIFY(QTest::qWaitFor([&] { return !outcomes.loaded.isEmpty(); }, 10000));
        QCOMPARE(outcomes.ended(), 1);
        QVERIFY(sessions.session());
        QVERIFY(sessions.session()->counts.apiCalls >= tiny::kLaunches);
        QCOMPARE(sessions.currentFiles(), QStringList{m_first});
        QCOMPARE(sessions.currentFile(), m_first);
        QVERIFY(sessions.lastError().isEmpty());
        QVERIFY(sessions.symbolizedCopy().isEmpty()); // the tiny session has no native frames
    }

    void failedLoadKeepsTheShownSession() {
        SessionController sessions;
        QSignalSpy loaded(&sessions, &SessionController::loaded);
        sessions.open({m_first});
        QVERIFY(waitIdle(sessions));
        QCOMPARE(loaded.size(), 1);
        const std::shared_ptr<const model::Session> shown = sessions.session();

        Outcomes outcomes(sessions);
        const QString missing = m_dir.filePath(QStringLiteral("missing.stallscope"));
        sessions.open({missing});
        QVERIFY(QTest::qWaitFor([&] { return !outcomes.failed.isEmpty(); }, 10000));
        QCOMPARE(outcomes.ended(), 1);
        const QString error = outcomes.failed.front().front().toString();
        QVERIFY2(error.contains(QStringLiteral("missing.stallscope")), qPrintable(error));
        QCOMPARE(sessions.lastError(), error);
        QCOMPARE(sessions.session(), shown);
        QCOMPARE(sessions.currentFile(), m_first);

        // The next good load clears the error.
        sessions.open({m_second});
        QVERIFY(waitIdle(sessions));
        QCOMPARE(sessions.currentFile(), m_second);
        QVERIFY(sessions.lastError().isEmpty());
        QVERIFY(sessions.session() != shown);
    }

    // Results arrive through the event loop: a second open() (or cancel()) right after the first
    // always finds the first still running.
    void newerLoadCancelsTheOlder() {
        SessionController sessions;
        Outcomes outcomes(sessions);
        sessions.open({m_first});
        sessions.open({m_second});
        QCOMPARE(outcomes.cancelled.size(), 1);
        QVERIFY(waitIdle(sessions));
        QVERIFY(QTest::qWaitFor([&] { return !outcomes.loaded.isEmpty(); }, 10000));
        QCOMPARE(outcomes.started.size(), 2);
        QCOMPARE(outcomes.loaded.size(), 1);
        QCOMPARE(outcomes.ended(), 2);
        QCOMPARE(sessions.currentFile(), m_second);
    }

    void cancelledLoadShowsNothingNew() {
        SessionController sessions;
        Outcomes outcomes(sessions);
        sessions.open({m_first});
        sessions.cancel();
        QCOMPARE(outcomes.cancelled.size(), 1);
        QVERIFY(!sessions.isLoading());
        // Nothing the cancelled job still delivers arrives.
        sessions.findChild<model::JobTracker*>(QStringLiteral("loads"))->waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(outcomes.ended(), 1);
        QVERIFY(!sessions.session());
        QVERIFY(sessions.currentFiles().isEmpty());
    }

    // A session at the column cache's threshold: written in the background after its open (the
    // small sessions above never are), read from the cache on the next open, the same events.
    void largeSessionsColumnsAreCached() {
        const QString large = m_dir.filePath(QStringLiteral("large.stallscope"));
        model::SyntheticOptions options;
        options.targetEvents = model::kMinCachedEvents * 6 / 5; // cuda_events rows count too
        std::string error;
        QVERIFY2(model::writeSyntheticSession(large.toStdString(), options, nullptr, &error),
                 error.c_str());
        const QDir cache(m_dir.filePath(QStringLiteral("columns")));
        QVERIFY(cache.entryList(QDir::Files).isEmpty()); // the tiny sessions wrote nothing
        SessionController sessions;
        sessions.open({large});
        QVERIFY(waitIdle(sessions));
        QVERIFY(sessions.session());
        QVERIFY(sessions.session()->counts.total() >= model::kMinCachedEvents);
        QVERIFY(!sessions.session()->columnCacheKey.empty()); // read from the tables
        sessions.findChild<model::JobTracker*>(QStringLiteral("columnCaches"))->waitForDone();
        QCOMPARE(cache.entryList({QStringLiteral("*.columns")}, QDir::Files).size(), 1);
        const auto first = sessions.session();
        sessions.open({large});
        QVERIFY(waitIdle(sessions));
        QVERIFY(sessions.session() != first);
        QVERIFY(sessions.session()->columnCacheKey.empty()); // read from the cache
        QCOMPARE(sessions.session()->counts, first->counts);
        QCOMPARE(sessions.session()->hostLanes.front().apiCalls.start,
                 first->hostLanes.front().apiCalls.start);
    }
};

STALLSCOPE_TEST_MAIN(SessionControllerTest)
#include "tst_session_controller.moc"
