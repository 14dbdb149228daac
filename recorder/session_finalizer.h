// SessionFinalizer: after the target ended, completes the session file the recorder wrote in it:
// status (a session whose writer died stays readable and is marked incomplete), exit code, duration
// and command; creates an empty session when the target never initialized CUDA; reads the summary.
#pragma once

#include <cstdint>
#include <string>

namespace stallscope::recorder {

class SessionFinalizer {
public:
    struct Summary {
        std::string status;
        int64_t kernels = 0, syncs = 0, blockedNs = 0, memcpys = 0, stacks = 0, dropped = 0;
        int64_t captureMedianNs = 0;
    };
    struct Outcome {
        std::string command;
        int pid = 0;
        int exitCode = 0;
        int signal = 0;
        // Why stallscope-record killed the target, when it did: the reason a session gets when
        // its recorder gave none.
        std::string stopReason;
        int64_t startNs = 0, endNs = 0;
    };

    // Returns false (and *error) when the file cannot be written.
    static bool finalize(const std::string& path, const Outcome& outcome, Summary* summary,
                         std::string* error);
};

} // namespace stallscope::recorder
