// PythonSampler: samples the Python stacks of every thread of the interpreter at a low rate (200 Hz
// by default), so that host time spent in plain Python — no CUDA call, so no stack of its own —
// gets a line: the straggler's host gap, the GPU's idle time (docs/insights.md, "host-gap").
//
// Safety: the sampler reads other threads' frames while they run, without the GIL (taking it
// would stall the program and may deadlock against a thread inside a CUDA call). So it never
// dereferences their memory: every read — the interpreter's thread list (threads.head, each
// tstate->next), thread states, frames, code objects, strings and line tables — goes through
// process_vm_readv on this process (python_frame_walk.h, CheckedMemory), which returns EFAULT for a
// frame freed under it instead of faulting; each code object is type-checked (ob_type ==
// &PyCode_Type, read the same way) before its fields are used, and line tables are decoded from a
// copy. A torn read can name a wrong line in one sample, never crash. Nothing here calls into
// CPython at sampling time except _Py_IsFinalizing (a read of a static flag): sampling ends for
// good once the interpreter finalizes.
//
// Native stacks are not sampled: that would take a signal to each thread (its handler unwinding
// its own stack), and a signal interrupts the thread's system calls — those that SA_RESTART does
// not restart (poll, epoll_wait, sem_timedwait, nanosleep) fail with EINTR in code that may not
// retry (NCCL, drivers, extensions). The Python line is what names a host gap.
//
// Versions: 3.11 to 3.13 (the frame layouts with a native thread id in the thread state); the
// interpreter's thread-list offset and each thread's id are checked once at start (prepare()).
// Each sample is a HostEvent of type Sample pushed into the sampler thread's own EventRing: the
// writer turns runs of equal samples into host_samples rows (session_sink.cpp).
#pragma once

#include "recorder/recorder_experiments.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace stallscope::format {
class SessionWriter;
}

namespace stallscope::recorder {

class PythonSampler {
public:
    static constexpr int kMinHz = 1;
    static constexpr int kMaxHz = 10'000;

    struct Stats {
        uint64_t ticks = 0;
        uint64_t samples = 0;     // thread stacks written (one per thread with Python frames)
        uint64_t failedReads = 0; // walks ended by a read that failed (a frame freed under us)
        uint64_t dropped = 0;     // samples lost to a full ring
        int64_t tickNs = 0;       // time spent sampling, summed over ticks
        int64_t maxTickNs = 0;
    };

    // Whether this process can be sampled: CPython found (PythonFrames::initialize), a version
    // with the sampler's offsets, process_vm_readv allowed, and the interpreter's thread list and
    // thread ids as the offsets say. Idempotent. `status()` says why not.
    static bool prepare();
    static const char* status();

    // Starts the sampling thread (false when prepare() fails or hz is 0).
    // `ablation` is the benchmarks' (RecorderExperiments::sampler): a sampler that only ticks or
    // only reads.
    bool start(int hz, RecorderExperiments::Sampler ablation = RecorderExperiments::Sampler::Full);
    // Stops and joins it; what it sampled is in its ring for the writer's last drain.
    void stop();
    // Paused (capture control, outside the captured range): the thread sleeps until resumed, and
    // takes no sample. May be set before start().
    void setPaused(bool paused);
    // In a forked child: the thread does not exist there; forget it without joining.
    void forgetAfterFork();
    bool running() const { return m_thread.joinable(); }
    int hz() const { return m_hz; }
    Stats stats() const;
    // Its ticks, the samples written and its cost per tick into the session's meta (none when
    // it never ticked).
    void writeStats(format::SessionWriter& writer, int64_t samplesWritten) const;

    // One pass over the interpreter's threads, from the calling thread (the sampling thread's
    // tick; tests call it directly): pushes one sample per thread with Python frames into the
    // caller's EventRing. Returns the samples pushed.
    int sampleOnce(int64_t nowNs, uint32_t tick);

    // The line of byte offset `lasti` in a 3.11+ location table (co_linetable), decoded as
    // CPython's PyCode_Addr2Line does; -1 when no line. Exposed for tests.
    static int lineFromLocationTable(const uint8_t* table, size_t size, int firstLine, int lasti);

private:
    void run();

    std::thread m_thread;
    RecorderExperiments::Sampler m_ablation = RecorderExperiments::Sampler::Full;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_paused{false};
    int m_hz = 0;
    std::atomic<uint64_t> m_ticks{0}, m_samples{0}, m_failedReads{0}, m_dropped{0};
    std::atomic<int64_t> m_tickNs{0}, m_maxTickNs{0};
};

} // namespace stallscope::recorder
