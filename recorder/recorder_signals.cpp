// The recorder's signal handling: a stop signal (SIGINT, SIGTERM, SIGHUP with their default action)
// has the writer flush and close the session before the process dies of it; a crash has the writer
// commit what it holds, then chains to the handler that was there before.
#include "recorder/recorder.h"

#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "recorder/session_sink.h"
#include "recorder/signal_names.h"

#include <cupti.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

namespace stallscope::recorder {

namespace {

void signalTrampoline(int signal) {
    Recorder::instance().onSignal(signal);
}
void fatalSignalTrampoline(int signal, siginfo_t* info, void* context) {
    Recorder::instance().onFatalSignal(signal, info, context);
}

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
// What each fatal signal's handler was before ours (indexed by signal number).
struct sigaction g_previousFatal[NSIG];
// How long a crashing thread waits for the writer's commit before the crash goes on.
constexpr int kCrashCommitWaitMs = 2000;

} // namespace

void Recorder::installSignalHandlers() {
    // Only where the program left the default action (death): then flushing first and dying with
    // the same signal afterwards changes nothing but the session being complete. Programs with
    // their own handlers (Python's KeyboardInterrupt) exit through atexit anyway.
    for (int signal : {SIGINT, SIGTERM, SIGHUP})
        takeIfDefault(signal, signalTrampoline);
    // Crashes: whatever handler the program has (Python's faulthandler, its own) is chained to,
    // so it still runs after the session is committed.
    for (int signal : kFatalSignals) {
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_sigaction = fatalSignalTrampoline;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigaction(signal, &action, &g_previousFatal[signal]);
    }
}

bool Recorder::takeIfDefault(int signal, void (*handler)(int)) {
    struct sigaction current;
    if (sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL)
        return false;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signal, &action, nullptr) == 0;
}

void Recorder::onFatalSignal(int signal, siginfo_t* info, void* context) {
    // Async-signal context: atomics, sem_post, nanosleep, sigaction, raise. The CUPTI flush and
    // the SQLite commit run on the writer thread, which this thread waits for (bounded): a thread
    // that crashed inside the recorder's own locks cannot deadlock the crash.
    static std::atomic<bool> handling{false};
    if (getpid() == m_pid && m_active.load(std::memory_order_relaxed) && !handling.exchange(true) &&
        gettid() != m_writerTid.load()) {
        m_fatalSignal.store(signal);
        sem_post(&m_wake);
        for (int waited = 0; waited < kCrashCommitWaitMs && !m_crashCommitted.load(); ++waited) {
            const timespec millisecond{0, 1000000};
            nanosleep(&millisecond, nullptr);
        }
    }
    const struct sigaction& previous = g_previousFatal[signal];
    sigaction(signal, &previous, nullptr);
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
        previous.sa_sigaction(signal, info, context);
    } else if (previous.sa_handler == SIG_DFL) {
        // Delivered when this handler returns (the signal is blocked until then): the default
        // action, a core dump, with the faulting thread's state.
        raise(signal);
    } else if (previous.sa_handler != SIG_IGN) {
        previous.sa_handler(signal);
    }
}

void Recorder::commitAfterCrash(int signal) {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    drainOnce();
    m_sink->expirePending(INT64_MAX, 0); // syncs still waiting for their other half
    m_sink->captureClosed(CallbackHandler::nowNs(), format::capture_reason::kEnd);
    m_writer->setMeta(format::meta::kTerminatedBySignal, std::to_string(signal));
    m_writer->setMeta(format::meta::kIncompleteReason,
                      (signal == SIGABRT ? "the target aborted (" : "the target crashed (") +
                          signalName(signal) + ", signal " + std::to_string(signal) + ")");
    m_writer->setMeta(format::meta::kStatus, std::string(format::kStatusIncomplete));
    m_writer->commit();
    m_crashCommitted.store(true);
}

void Recorder::onSignal(int signal) {
    // Async-signal context: only an atomic store and sem_post.
    if (getpid() != m_pid || !m_active.load(std::memory_order_relaxed)) {
        ::signal(signal, SIG_DFL);
        raise(signal);
        return;
    }
    m_pendingSignal.store(signal);
    sem_post(&m_wake);
}

std::string Recorder::signalReason(int signal) const {
    // stallscope-record sets STALLSCOPE_RECORD_PID; the target outliving it means it died and
    // its parent-death signal (target_runner.cpp) is what stops the program.
    const char* recordPid = getenv("STALLSCOPE_RECORD_PID");
    if (recordPid && std::to_string(getppid()) != recordPid)
        return "stallscope-record ended during the run; the target was stopped (" +
               killedBy(signal) + ")";
    return "the target was " + killedBy(signal);
}

} // namespace stallscope::recorder
