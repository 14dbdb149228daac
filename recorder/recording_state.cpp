#include "recorder/recording_state.h"

#include "format/session_writer.h"
#include "recorder/callback_handler.h"
#include "recorder/session_sink.h"

#include <cupti.h>

#include <cstdio>

namespace stallscope::recorder {

RecordingState::RecordingState() {
    sem_init(&wake, 0, 0);
}

// Never runs in practice (the recorder is leaked on purpose: Recorder::instance); out of line
// for the members' complete types.
RecordingState::~RecordingState() = default;

void ErrorLog::report(const std::string& what, int cuptiResult) {
    std::string message = what;
    if (cuptiResult != 0) {
        const char* text = nullptr;
        cuptiGetResultString(CUptiResult(cuptiResult), &text);
        message += ": ";
        message += text ? text : ("CUPTI error " + std::to_string(cuptiResult));
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pending.emplace_back(CallbackHandler::nowNs(), message);
    for (const std::string& seen : m_reported)
        if (seen == what)
            return;
    m_reported.push_back(what);
    fprintf(stderr, "stallscope: %s\n", message.c_str());
}

std::vector<std::pair<int64_t, std::string>> ErrorLog::take() {
    std::vector<std::pair<int64_t, std::string>> taken;
    std::lock_guard<std::mutex> lock(m_mutex);
    taken.swap(m_pending);
    return taken;
}

} // namespace stallscope::recorder
