// ProcessSignals: the recorder's signal handling. A stop signal (SIGINT, SIGTERM, SIGHUP with their
// default action) has the writer flush and close the session before the process dies of it; a
// crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, on any thread) has the writer commit what CUPTI
// and the rings hold, then chains to the handler that was there before.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include <signal.h>
#include <sys/types.h>

namespace stallscope::recorder {

struct RecordingState;

class ProcessSignals {
public:
    // `drain`: writes what the writer thread holds (the recorder's drain), before a crash's
    // commit.
    ProcessSignals(RecordingState& state, std::function<void()> drain)
        : m_state(state), m_drain(std::move(drain)) {}

    // Installs the handlers (injected recordings: a program that links the recorder in keeps its
    // own).
    void install();
    // Installs `handler` for `signal` where the program left it its default action; false when
    // it has its own (or ignores it).
    static bool takeIfDefault(int signal, void (*handler)(int));

    // The handlers (async-signal-safe).
    void onStopSignal(int signal);
    void onFatalSignal(int signal, siginfo_t* info, void* context);

    // The writer thread: which thread it is (a crash on it cannot wait for it), the stop signal
    // received since the last call (0: none), the crash to commit (0: none), and the commit.
    void setWriterThread(pid_t tid) { m_writerTid.store(tid); }
    int takeStopSignal() { return m_pendingSignal.exchange(0); }
    int fatalSignal() const { return m_fatalSignal.load(); }
    // Flush, drain, say why, commit (no indexes: the process is about to die; stallscope-record
    // adds them).
    void commitAfterCrash(int signal);
    // meta.incomplete_reason for a run ended by the stop signal `signal`.
    std::string stopReason(int signal) const;

private:
    RecordingState& m_state;
    std::function<void()> m_drain;
    std::atomic<int> m_pendingSignal{0};
    std::atomic<int> m_fatalSignal{0};
    std::atomic<bool> m_crashCommitted{false};
    std::atomic<pid_t> m_writerTid{0};
};

} // namespace stallscope::recorder
