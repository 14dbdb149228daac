#include "recorder/target_runner.h"

#include "recorder/signal_names.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iterator>
#include <string>

namespace stallscope::recorder {

namespace {

volatile sig_atomic_t g_child = 0;
// The first forwarded signal that asks the program to end, which starts its grace period; 0 until
// one comes. Not SIGQUIT: its core dump may take longer than any grace period.
volatile sig_atomic_t g_stopSignal = 0;

// What stallscope-record forwards, then SIGCHLD (which only wakes the wait for the program).
// SIGUSR1 asks a flight recorder (--ring) for a snapshot, and is no stop.
constexpr int kHandled[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGCHLD};
constexpr size_t kForwardedCount = std::size(kHandled) - 1;

int64_t nowNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Signals sent to stallscope-record alone (kill, a job scheduler) go to the target. Signals from
// the terminal (Ctrl-C: si_code SI_KERNEL) already reach the whole foreground group, the target
// too: forwarding them would deliver a second Ctrl-C and cut the target's own cleanup short.
void forward(int signal, siginfo_t* info, void*) {
    if (g_child > 0 && !(info && info->si_code == SI_KERNEL)) {
        kill(g_child, signal);
        if (signal != SIGQUIT && signal != SIGUSR1 && g_stopSignal == 0)
            g_stopSignal = signal;
    }
}

void childEnded(int) {}

int pidfdOpen(pid_t pid) {
#ifdef SYS_pidfd_open
    return int(syscall(SYS_pidfd_open, pid, 0));
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

// The watchdog, a process of its own so that it outlives a stallscope-record killed by SIGKILL.
// `lifeline` reads EOF when stallscope-record ends, however it ends: only stallscope-record holds
// the pipe's write end. `program` is a pidfd, which never names another process that gets the
// program's pid later. A program still running `graceMs` after stallscope-record died (it got
// SIGTERM then, PR_SET_PDEATHSIG) gets SIGKILL.
[[noreturn]] void watch(int lifeline, int program, int graceMs, const char* name) {
    prctl(PR_SET_NAME, "stallscope-wd");
    pollfd fds[2] = {{program, POLLIN, 0}, {lifeline, POLLIN, 0}};
    while (poll(fds, 2, -1) < 0 && errno == EINTR) {
    }
    if (fds[0].revents != 0) // the program ended: the usual way out
        _exit(0);
    const int64_t deadline = nowNs() + int64_t(graceMs) * 1000000;
    int ready;
    do {
        const int64_t leftNs = std::max<int64_t>(0, deadline - nowNs());
        ready = poll(fds, 1, int((leftNs + 999999) / 1000000));
    } while (ready < 0 && errno == EINTR);
#ifdef SYS_pidfd_send_signal
    if (ready == 0 && syscall(SYS_pidfd_send_signal, program, SIGKILL, nullptr, 0) == 0)
        fprintf(stderr,
                "stallscope-record: %s did not exit %s after stallscope-record ended; killed it "
                "(SIGKILL)\n",
                name, TargetRunner::graceText(graceMs).c_str());
#endif
    _exit(0);
}

// Forks the watchdog; -1 without one (no pidfd before Linux 5.3: the program then outlives a
// killed stallscope-record if it ignores SIGTERM). Called before the program can be reaped, so
// its pid still names it.
pid_t startWatchdog(pid_t child, const int lifeline[2], int errorPipe, int graceMs,
                    const char* name, const sigset_t& mask) {
    const int program = pidfdOpen(child);
    if (program < 0)
        return -1;
    const pid_t watchdog = fork();
    if (watchdog == 0) {
        close(lifeline[1]);
        close(errorPipe);
        // It stays through what the terminal sends the whole group (Ctrl-C, a hang-up), as
        // stallscope-record does; SIGTERM still ends it.
        for (int signal : {SIGINT, SIGQUIT, SIGHUP, SIGPIPE, SIGUSR1})
            ::signal(signal, SIG_IGN);
        ::signal(SIGTERM, SIG_DFL);
        ::signal(SIGCHLD, SIG_DFL);
        sigprocmask(SIG_SETMASK, &mask, nullptr);
        watch(lifeline[0], program, graceMs, name);
    }
    close(program);
    return watchdog;
}

// Waits for the program; one that outlasts a forwarded stop by graceMs gets SIGKILL. The handled
// signals stay blocked but inside ppoll, so none slips in between a check and the sleep.
int waitForProgram(pid_t child, int graceMs, const sigset_t& sleepMask, const char* name,
                   int* killedAfter) {
    int status = 0;
    int64_t deadline = 0;
    while (true) {
        const pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child || (done < 0 && errno != EINTR))
            return status;
        const int64_t now = nowNs();
        if (g_stopSignal != 0 && deadline == 0)
            deadline = now + int64_t(graceMs) * 1000000;
        const bool timed = deadline != 0 && *killedAfter == 0;
        if (timed && now >= deadline) {
            kill(child, SIGKILL);
            *killedAfter = g_stopSignal;
            fprintf(stderr, "stallscope-record: %s did not exit %s after %s; killed it (SIGKILL)\n",
                    name, TargetRunner::graceText(graceMs).c_str(),
                    signalName(*killedAfter).c_str());
            continue;
        }
        timespec timeout{};
        if (timed)
            timeout = {time_t((deadline - now) / 1000000000), long((deadline - now) % 1000000000)};
        ppoll(nullptr, 0, timed ? &timeout : nullptr, &sleepMask);
    }
}

} // namespace

std::string TargetRunner::graceText(int killGraceMs) {
    char text[32];
    snprintf(text, sizeof(text), "%g s", killGraceMs / 1000.0);
    return text;
}

TargetRunner::Result TargetRunner::run(const std::vector<std::string>& argv,
                                       const std::vector<std::string>& env, int killGraceMs) {
    Result result;
    if (argv.empty()) {
        result.error = "no program given";
        return result;
    }
    int errorPipe[2], lifeline[2];
    if (pipe2(errorPipe, O_CLOEXEC) != 0) {
        result.error = std::string("pipe: ") + strerror(errno);
        return result;
    }
    if (pipe2(lifeline, O_CLOEXEC) != 0) {
        result.error = std::string("pipe: ") + strerror(errno);
        close(errorPipe[0]);
        close(errorPipe[1]);
        return result;
    }
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = forward;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    struct sigaction previous[std::size(kHandled)];
    for (size_t i = 0; i < std::size(kHandled); ++i) {
        sigaction(kHandled[i], nullptr, &previous[i]);
        // A signal ignored from the start (nohup's SIGHUP) stays ignored: nothing to forward.
        if (i < kForwardedCount && previous[i].sa_handler == SIG_IGN)
            continue;
        if (kHandled[i] == SIGCHLD) {
            action.sa_handler = childEnded;
            action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
        }
        sigaction(kHandled[i], &action, nullptr);
    }
    const auto restoreHandlers = [&] {
        for (size_t i = 0; i < std::size(kHandled); ++i)
            sigaction(kHandled[i], &previous[i], nullptr);
    };

    // Blocked but while the wait sleeps: a signal before fork() is forwarded once g_child names
    // the child, not lost (the parent's handler would see no child yet).
    sigset_t held, previousMask;
    sigemptyset(&held);
    for (int signal : kHandled)
        sigaddset(&held, signal);
    sigprocmask(SIG_BLOCK, &held, &previousMask);
    sigset_t sleepMask = previousMask;
    for (int signal : kHandled)
        sigdelset(&sleepMask, signal);

    result.startNs = nowNs();
    const pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        result.error = std::string("fork: ") + strerror(errno);
        sigprocmask(SIG_SETMASK, &previousMask, nullptr);
        restoreHandlers();
        for (int fd : {errorPipe[0], errorPipe[1], lifeline[0], lifeline[1]})
            close(fd);
        return result;
    }
    if (child == 0) {
        // The target never outlives stallscope-record unnoticed: when it dies (SIGKILL, a crash)
        // the target gets SIGTERM, which its recorder handles like any SIGTERM — it flushes,
        // says why the session is incomplete, and the target ends; the watchdog kills a target
        // that ignores it. The setting survives exec; grandchildren are not covered
        // (docs/recorder.md). The getppid() check closes the race of a parent that died before
        // prctl.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        restoreHandlers();
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
    close(errorPipe[1]);
    const pid_t watchdog =
        startWatchdog(child, lifeline, errorPipe[0], killGraceMs, argv[0].c_str(), previousMask);
    close(lifeline[0]);
    const int status =
        waitForProgram(child, killGraceMs, sleepMask, argv[0].c_str(), &result.killedAfter);
    result.endNs = nowNs();
    g_child = 0;
    g_stopSignal = 0;
    close(lifeline[1]); // the watchdog sees the program gone and ends
    if (watchdog > 0)
        while (waitpid(watchdog, nullptr, 0) < 0 && errno == EINTR) {
        }
    // Unblocked before the handlers go: a signal that came after the program ended is dropped
    // (no program to forward it to) instead of ending stallscope-record before the session is
    // finished.
    sigprocmask(SIG_SETMASK, &previousMask, nullptr);
    restoreHandlers();
    // EOF when exec succeeded (the pipe closes on exec); the errno when it failed.
    int execError = 0;
    ssize_t n;
    while ((n = read(errorPipe[0], &execError, sizeof(execError))) < 0 && errno == EINTR) {
    }
    close(errorPipe[0]);
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
