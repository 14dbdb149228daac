// The session summary shown by `stallscope --info` and at the top of the main window:
// command, host, GPUs, duration, counts per kind, status. One definition for both.
#pragma once

#include "model/session/number_format.h"
#include "model/session/session.h"

#include <string>
#include <utility>
#include <vector>

namespace stallscope::model {

struct SessionSummary {
    // Ordered (label, value) rows, e.g. {"Command", "python train.py"}.
    std::vector<std::pair<std::string, std::string>> rows;

    static SessionSummary of(const Session& session);
    // "Label:  value" lines, aligned, for the terminal.
    std::string toText() const;
};

// What a recording with capture control (stallscope-record --capture-range, --delay,
// --duration) recorded: "cudaProfilerStart → cudaProfilerStop, 2 ranges: 1.20 s of 10.3 s (the
// rest not recorded)", "nothing: the range never opened"; "" for a session recorded throughout.
std::string capturedText(const Session& session);

// Kernel names as people read them: CUPTI reports C++ kernels mangled ("_ZN2at6native…");
// C names and names that do not demangle come back unchanged.
std::string readableKernelName(const std::string& name);

} // namespace stallscope::model
