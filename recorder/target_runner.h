// TargetRunner: runs the program under stallscope-record: environment for the injection, inherited
// stdio, signal forwarding, and how it ended.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::recorder {

class TargetRunner {
public:
    struct Result {
        bool started = false;
        std::string error; // why it did not start
        int pid = 0;
        int exitCode = -1; // valid when !signaled
        int signal = 0;    // the signal that ended it, or 0
        int64_t startNs = 0, endNs = 0;
    };

    // Runs argv with extra environment entries ("NAME=value"); blocks until it ends.
    static Result run(const std::vector<std::string>& argv, const std::vector<std::string>& env);
};

} // namespace stallscope::recorder
