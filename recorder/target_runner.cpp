#include "recorder/target_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

namespace stallscope::recorder {

namespace {

volatile sig_atomic_t g_child = 0;

int64_t nowNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Signals sent to stallscope-record alone (kill, a job scheduler) go to the target. Signals from
// the terminal (Ctrl-C: si_code SI_KERNEL) already reach the whole foreground group, the target
// too: forwarding them would deliver a second Ctrl-C and cut the target's own cleanup short.
void forward(int signal, siginfo_t* info, void*) {
    if (g_child > 0 && !(info && info->si_code == SI_KERNEL))
        kill(g_child, signal);
}

} // namespace

TargetRunner::Result TargetRunner::run(const std::vector<std::string>& argv,
                                       const std::vector<std::string>& env) {
    Result result;
    if (argv.empty()) {
        result.error = "no program given";
        return result;
    }
    int errorPipe[2];
    if (pipe2(errorPipe, O_CLOEXEC) != 0) {
        result.error = std::string("pipe: ") + strerror(errno);
        return result;
    }
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = forward;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    struct sigaction previous[4];
    const int forwarded[4] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (int i = 0; i < 4; ++i)
        sigaction(forwarded[i], &action, &previous[i]);

    // Held back from fork until g_child names the child: a signal in between is forwarded then,
    // not lost (the parent's handler would see no child yet).
    sigset_t held, previousMask;
    sigemptyset(&held);
    for (int signal : forwarded)
        sigaddset(&held, signal);
    sigprocmask(SIG_BLOCK, &held, &previousMask);

    result.startNs = nowNs();
    const pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        sigprocmask(SIG_SETMASK, &previousMask, nullptr);
        result.error = std::string("fork: ") + strerror(errno);
        return result;
    }
    if (child == 0) {
        // The target never outlives stallscope-record unnoticed: when it dies (SIGKILL, a crash)
        // the target gets SIGTERM, which its recorder handles like any SIGTERM — it flushes,
        // says why the session is incomplete, and the target ends. The setting survives exec;
        // grandchildren are not covered (docs/recording.md). The getppid() check closes the race
        // of a parent that died before prctl.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        for (int i = 0; i < 4; ++i)
            sigaction(forwarded[i], &previous[i], nullptr);
        sigprocmask(SIG_SETMASK, &previousMask, nullptr);
        for (const std::string& entry : env)
            putenv(const_cast<char*>(entry.c_str()));
        // The pid exec keeps: the recorder in this process writes the session path unchanged,
        // processes it spawns get their own "<name>.<pid>.stallscope".
        setenv("STALLSCOPE_ROOT_PID", std::to_string(getpid()).c_str(), 1);
        std::vector<char*> args;
        for (const std::string& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        int error = errno;
        (void)!write(errorPipe[1], &error, sizeof(error));
        _exit(127);
    }
    g_child = child;
    sigprocmask(SIG_SETMASK, &previousMask, nullptr);
    close(errorPipe[1]);
    int execError = 0;
    ssize_t n;
    while ((n = read(errorPipe[0], &execError, sizeof(execError))) < 0 && errno == EINTR) {
    }
    close(errorPipe[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    result.endNs = nowNs();
    g_child = 0;
    for (int i = 0; i < 4; ++i)
        sigaction(forwarded[i], &previous[i], nullptr);
    result.pid = child;
    if (n == sizeof(execError)) {
        result.error = "cannot run '" + argv[0] + "': " + strerror(execError);
        return result;
    }
    result.started = true;
    if (WIFSIGNALED(status)) {
        result.signal = WTERMSIG(status);
        result.exitCode = 128 + result.signal;
    } else {
        result.exitCode = WEXITSTATUS(status);
    }
    return result;
}

} // namespace stallscope::recorder
