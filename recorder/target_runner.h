// TargetRunner: runs the program under stallscope-record: environment for the injection, inherited
// stdio, signal forwarding, SIGKILL for a program that outstays a stop, and how it ended.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::recorder {

class TargetRunner {
public:
    // How long the program has to end after a SIGTERM, SIGINT or SIGHUP that stallscope-record
    // forwarded, or after stallscope-record itself died, before it gets SIGKILL.
    static constexpr int kKillGraceMs = 10'000;
    // The variable that changes it (tests), and its largest value.
    static constexpr const char* kKillGraceVariable = "STALLSCOPE_RECORD_KILL_GRACE_MS";
    static constexpr int kMaxKillGraceMs = 3'600'000;

    struct Result {
        bool started = false;
        std::string error; // why it did not start
        int pid = 0;
        int exitCode = -1; // valid when !signaled
        int signal = 0;    // the signal that ended it, or 0
        // The forwarded signal the program outlasted by killGraceMs, so it got SIGKILL; or 0.
        int killedAfter = 0;
        int64_t startNs = 0, endNs = 0;
    };

    // Runs argv with extra environment entries ("NAME=value"); blocks until it ends.
    static Result run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                      int killGraceMs = kKillGraceMs);
    // "10 s", "0.5 s": a grace period as the messages say it.
    static std::string graceText(int killGraceMs);
};

} // namespace stallscope::recorder
