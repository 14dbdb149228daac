// Signal names for what a session says about how its recording ended (meta.incomplete_reason):
// "SIGTERM", not a number. A table rather than sigabbrev_np: the recorder also loads into
// processes on older C libraries.
#pragma once

#include <csignal>
#include <string>

namespace stallscope::recorder {

inline std::string signalName(int signal) {
    switch (signal) {
    case SIGHUP:
        return "SIGHUP";
    case SIGINT:
        return "SIGINT";
    case SIGQUIT:
        return "SIGQUIT";
    case SIGILL:
        return "SIGILL";
    case SIGTRAP:
        return "SIGTRAP";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGKILL:
        return "SIGKILL";
    case SIGSEGV:
        return "SIGSEGV";
    case SIGPIPE:
        return "SIGPIPE";
    case SIGALRM:
        return "SIGALRM";
    case SIGTERM:
        return "SIGTERM";
    case SIGXCPU:
        return "SIGXCPU";
    case SIGXFSZ:
        return "SIGXFSZ";
    default:
        return "signal " + std::to_string(signal);
    }
}

// "killed by SIGTERM (signal 15)"
inline std::string killedBy(int signal) {
    return "killed by " + signalName(signal) + " (signal " + std::to_string(signal) + ")";
}

} // namespace stallscope::recorder
