// Stallscope recorder: the API for programs that link libstallscope_recorder.so and control what
// is recorded. Without code changes, `stallscope-record -o run.stallscope -- prog` does the same
// through CUDA_INJECTION64_PATH. Nothing here throws.
#pragma once

#include <cstdint>

#if defined(STALLSCOPE_RECORDER_BUILD)
#define STALLSCOPE_API __attribute__((visibility("default")))
#else
#define STALLSCOPE_API
#endif

namespace stallscope {

struct Options {
    const char* outputPath = "stallscope-%p.stallscope"; // %p: pid
    bool stacks = true;
    int stackDepth = 64;
    const char* kinds = nullptr; // e.g. "kernel,memcpy,sync,runtime"; nullptr: all (see docs)
    uint64_t bufferBytes = 8ull << 20;
    int flushMs = 500;
};

// Starts recording this process (call before or after CUDA initializes). Returns false when not
// recording (another CUPTI client attached, file not writable, ...); the reason is on stderr.
STALLSCOPE_API bool start(const Options& options = Options());
// Flushes and closes the session (also done automatically at normal exit).
STALLSCOPE_API void stop();
// Whether a session is being recorded in this process.
STALLSCOPE_API bool recording();

// A named range on the calling thread's lane, from construction to destruction. `name` must
// outlive the scope (string literals do). Costs two clock reads when recording, nothing otherwise.
class STALLSCOPE_API Scope {
public:
    explicit Scope(const char* name);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

private:
    const char* m_name;
    int64_t m_startNs;
    int m_depth;
};

} // namespace stallscope
