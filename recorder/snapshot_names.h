// The names of the flight recorder's snapshots (stallscope-record --ring): given by the recorder in
// the program (ring_driver.cpp), found again by stallscope-record after the run
// (RecordingOutput::snapshots). Header-only: stallscope-record does not link the recorder.
#pragma once

#include <string>

namespace stallscope::recorder {

// Where ".recording" stands in the file name of `path` (not in its folder); npos when nowhere.
inline size_t recordingTagAt(const std::string& path) {
    const size_t slash = path.rfind('/');
    const size_t at = path.rfind(".recording");
    return at != std::string::npos && (slash == std::string::npos || at > slash)
               ? at
               : std::string::npos;
}

// What the snapshots of the recording `partial` are called up to their number:
// "run.recording.stallscope" → "run.snapshot-"; "" when its name has no ".recording".
inline std::string snapshotPrefix(const std::string& partial) {
    const size_t at = recordingTagAt(partial);
    return at == std::string::npos ? std::string() : partial.substr(0, at) + ".snapshot-";
}

// The n-th snapshot's file for a recording written to `output`: ".recording" in the name becomes
// ".snapshot-<n>" ("run.recording.stallscope" → "run.snapshot-2.stallscope",
// "run.recording.123.stallscope" → "run.snapshot-2.123.stallscope"); in other names it comes
// before the extension.
inline std::string snapshotPath(const std::string& output, int n) {
    if (const size_t at = recordingTagAt(output); at != std::string::npos)
        return snapshotPrefix(output) + std::to_string(n) +
               output.substr(at + sizeof(".recording") - 1);
    const size_t slash = output.rfind('/');
    const size_t dot = output.rfind('.');
    const bool extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    std::string path = output;
    return path.insert(extension ? dot : path.size(), ".snapshot-" + std::to_string(n));
}

} // namespace stallscope::recorder
