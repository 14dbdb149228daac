// The recorder's fork handling through the registration itself: once Recorder::start's process
// hooks are installed, a plain fork() (no manual call) leaves the child with the CUPTI callback
// handler disabled and the recorder inactive — it shares the parent's session file and must never
// write — while the parent keeps recording.
#include "recorder/recorder.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <sys/wait.h>
#include <unistd.h>

using stallscope::recorder::Recorder;

class TestRecorderFork : public QObject {
    Q_OBJECT
private slots:
    // The control, run first (slots run in order; hooks cannot be removed once installed): before
    // the hooks, a forked child keeps the handler enabled, so the test below sees their effect.
    void childBeforeTheHooksIsUntouched() { QCOMPARE(childExitCode(), 1); }

    void childOfAForkIsQuiet() {
        Recorder& recorder = Recorder::instance();
        QVERIFY(recorder.handler().enabled()); // else the child's check below proves nothing
        Recorder::installProcessHooks();
        Recorder::installProcessHooks(); // idempotent, as every start() calls it
        QCOMPARE(childExitCode(), 0);
        QVERIFY(recorder.handler().enabled()); // the parent is untouched
    }

private:
    // Forks; the child exits 0 when it is quiet (handler disabled, recorder inactive), else 1.
    static int childExitCode() {
        const pid_t child = fork();
        if (child == 0) {
            Recorder& recorder = Recorder::instance();
            _exit(!recorder.handler().enabled() && !recorder.active() ? 0 : 1);
        }
        int status = 0;
        if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status))
            return -1;
        return WEXITSTATUS(status);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestRecorderFork)
#include "tst_recorder_fork.moc"
