#include "recorder/process_signals.h"

#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "recorder/callback_handler.h"
#include "recorder/recording_state.h"
#include "recorder/session_sink.h"
#include "recorder/signal_names.h"

#include <cupti.h>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

namespace stallscope::recorder {

namespace {

// The handlers' object: set before they are installed, never unset (the recorder is never
// destroyed).
ProcessSignals* g_handling = nullptr;

void stopSignalTrampoline(int signal) {
    g_handling->onStopSignal(signal);
}
void fatalSignalTrampoline(int signal, siginfo_t* info, void* context) {
    g_handling->onFatalSignal(signal, info, context);
}

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
// What each fatal signal's handler was before ours (indexed by signal number).
struct sigaction g_previousFatal[NSIG];
// How long a crashing thread waits for the writer's commit before the crash goes on.
constexpr int kCrashCommitWaitMs = 2000;

} // namespace

void ProcessSignals::install() {
    g_handling = this;
    // Only where the program left the default action (death): then flushing first and dying with
    // the same signal afterwards changes nothing but the session being complete. Programs with
    // their own handlers (Python's KeyboardInterrupt) exit through atexit anyway.
    for (int signal : {SIGINT, SIGTERM, SIGHUP})
        takeIfDefault(signal, stopSignalTrampoline);
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

bool ProcessSignals::takeIfDefault(int signal, void (*handler)(int)) {
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

void ProcessSignals::onFatalSignal(int signal, siginfo_t* info, void* context) {
    // Async-signal context: atomics, sem_post, nanosleep, sigaction, raise. The CUPTI flush and
    // the SQLite commit run on the writer thread, which this thread waits for (bounded): a thread
    // that crashed inside the recorder's own locks cannot deadlock the crash.
    static std::atomic<bool> handling{false};
    if (getpid() == m_state.pid && m_state.active.load(std::memory_order_relaxed) &&
        !handling.exchange(true) && gettid() != m_writerTid.load()) {
        m_fatalSignal.store(signal);
        m_state.wakeWriter();
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

void ProcessSignals::commitAfterCrash(int signal) {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    m_drain();
    format::SessionWriter& writer = *m_state.writer;
    m_state.sink->expirePending(INT64_MAX, 0); // syncs still waiting for their other half
    m_state.sink->captureClosed(CallbackHandler::nowNs(), format::capture_reason::kEnd);
    writer.setMeta(format::meta::kTerminatedBySignal, std::to_string(signal));
    writer.setMeta(format::meta::kIncompleteReason,
                   (signal == SIGABRT ? "the target aborted (" : "the target crashed (") +
                       signalName(signal) + ", signal " + std::to_string(signal) + ")");
    writer.setMeta(format::meta::kStatus, std::string(format::kStatusIncomplete));
    writer.commit();
    m_crashCommitted.store(true);
}

void ProcessSignals::onStopSignal(int signal) {
    // Async-signal context: only an atomic store and sem_post.
    if (getpid() != m_state.pid || !m_state.active.load(std::memory_order_relaxed)) {
        ::signal(signal, SIG_DFL);
        raise(signal);
        return;
    }
    m_pendingSignal.store(signal);
    m_state.wakeWriter();
}

std::string ProcessSignals::stopReason(int signal) const {
    // stallscope-record sets STALLSCOPE_RECORD_PID; the target outliving it means it died and
    // its parent-death signal (target_runner.cpp) is what stops the program.
    const char* recordPid = getenv("STALLSCOPE_RECORD_PID");
    if (recordPid && std::to_string(getppid()) != recordPid)
        return "stallscope-record ended during the run; the target was stopped (" +
               killedBy(signal) + ")";
    return "the target was " + killedBy(signal);
}

} // namespace stallscope::recorder
