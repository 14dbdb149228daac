// RecordingState: what the recorder's parts share about the one recording in progress — its
// configuration, its process, where it is written, CUPTI's subscriber, and how the writer thread
// is woken and told of errors. Recorder owns it; capture control, the overhead probe, the flight
// recorder, the signal handling and the collection switches each hold a reference and own the
// rest of their state themselves.
#pragma once

#include "recorder/recorder_config.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <semaphore.h>

namespace stallscope::format {
class SessionWriter;
}

namespace stallscope::recorder {

class SessionSink;

// Errors met while recording: each goes to the session's diagnostics table (the writer takes
// them) and, the first time its kind is met, to stderr.
class ErrorLog {
public:
    // `what` failed; `cuptiResult` (non-zero) is CUPTI's result, named in the message.
    void report(const std::string& what, int cuptiResult);
    // The errors reported since the last call, with their times.
    std::vector<std::pair<int64_t, std::string>> take();

private:
    std::mutex m_mutex; // never held across a CUPTI call
    std::vector<std::pair<int64_t, std::string>> m_pending;
    std::vector<std::string> m_reported;
};

struct RecordingState {
    RecorderConfig config;
    int64_t pid = 0;
    std::string outputPath;
    std::unique_ptr<format::SessionWriter> writer; // from start() until the session is finished
    std::unique_ptr<SessionSink> sink;
    void* subscriber = nullptr; // CUPTI's, while subscribed
    std::atomic<bool> active{false};
    sem_t wake; // the writer thread waits on it
    ErrorLog errors;

    RecordingState();
    ~RecordingState();
    // Wakes the writer thread early (async-signal-safe).
    void wakeWriter() { sem_post(&wake); }
    void reportError(const std::string& what, int cuptiResult) { errors.report(what, cuptiResult); }
};

} // namespace stallscope::recorder
