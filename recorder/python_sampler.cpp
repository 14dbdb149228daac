#include "recorder/python_sampler.h"

#include "format/session_meta.h"
#include "format/session_writer.h"
#include "recorder/callback_handler.h"
#include "recorder/event_ring.h"
#include "recorder/python_frame_walk.h"
#include "recorder/python_frames.h"
#include "recorder/python_runtime.h"
#include "recorder/stack_unwinder.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

namespace stallscope::recorder {

namespace {

using python_walk::CheckedMemory;
using python_walk::FrameCache;

constexpr int kMaxThreads = 1024;            // thread states visited per tick, at most
constexpr size_t kLineTableBytes = 64 << 10; // a line table longer than this is read in part

std::mutex g_prepareMutex;
bool g_prepared = false;
bool g_ready = false;
const char* g_status = "not prepared";

// The walking thread's caches and line-table buffer: allocated on its first sample.
struct SamplerScratch {
    FrameCache cache;
    uint8_t lineTable[kLineTableBytes];
};
thread_local SamplerScratch* t_scratch = nullptr;

SamplerScratch* scratch() {
    if (!t_scratch)
        t_scratch = static_cast<SamplerScratch*>(calloc(1, sizeof(SamplerScratch)));
    return t_scratch;
}

// A sampling thread frees its scratch when it ends (each start() makes a new thread).
void releaseScratch() {
    free(t_scratch);
    t_scratch = nullptr;
}

unsigned scanVarint(const uint8_t* table, size_t size, size_t& at) {
    unsigned value = 0;
    for (unsigned shift = 0; at < size && shift < 32; shift += 6) {
        const uint8_t byte = table[at++];
        value |= unsigned(byte & 63) << shift;
        if (!(byte & 64))
            break;
    }
    return value;
}

int scanSignedVarint(const uint8_t* table, size_t size, size_t& at) {
    const unsigned value = scanVarint(table, size, at);
    return (value & 1) ? -int(value >> 1) : int(value >> 1);
}

// A frame's instruction offset in its code object, in bytes.
int64_t lastiOf(const CheckedMemory::View& frame, const void* code) {
    const auto* instr = static_cast<const char*>(frame.pointer(pythonRuntime().frInstr));
    return instr - (static_cast<const char*>(code) + pythonRuntime().coCode);
}

// The cached line of a frame whose code object is known (python_walk::kNotCached: not cached).
int cachedLine(FrameCache& cache, const CheckedMemory::View& frame, const void* code, uint32_t id) {
    const int64_t lasti = lastiOf(frame, code);
    if (lasti < 0 || lasti > (1 << 28))
        return python_walk::kNotCached;
    const FrameCache::LineSlot& slot = cache.lineSlot(code, int(lasti));
    return slot.code == code && slot.lasti == int(lasti) && slot.id == id ? slot.line
                                                                          : python_walk::kNotCached;
}

// Another thread's line of a frame: its instruction offset in its code object, looked up in a
// copy of the code object's line table (cached by code and offset, like the calling thread's).
int checkedLine(FrameCache& cache, uint8_t* buffer, const CheckedMemory::View& frame,
                const void* code, const CheckedMemory::View& codeView, uint32_t id) {
    const PythonRuntime& rt = pythonRuntime();
    const int64_t lasti = lastiOf(frame, code);
    const int firstLine = codeView.at<int>(rt.coFirstLine);
    if (lasti < 0)
        return lasti >= -2 ? firstLine : -1; // a frame that has not run an instruction yet
    if (lasti > (1 << 28))
        return -1;
    FrameCache::LineSlot& slot = cache.lineSlot(code, int(lasti));
    if (slot.code == code && slot.lasti == int(lasti) && slot.id == id)
        return slot.line;
    int line = -1;
    const void* table = codeView.pointer(rt.coLinetable);
    const auto header = CheckedMemory::view(table, PythonRuntime::kBytesDataOffset);
    if (header.ok() && header.pointer(PythonRuntime::kObTypeOffset) == rt.bytesType) {
        const int64_t size = header.at<int64_t>(PythonRuntime::kBytesSizeOffset);
        const size_t bytes = size_t(std::clamp<int64_t>(size, 0, int64_t(kLineTableBytes)));
        if (bytes > 0 &&
            CheckedMemory::read(static_cast<const char*>(table) + PythonRuntime::kBytesDataOffset,
                                buffer, bytes))
            line = PythonSampler::lineFromLocationTable(buffer, bytes, firstLine, int(lasti));
    }
    slot = {code, int32_t(lasti), line, id};
    return line;
}

const void* checkedPointer(const void* base, int offset) {
    const void* value = nullptr;
    if (!base ||
        !CheckedMemory::read(static_cast<const char*>(base) + offset, &value, sizeof(value)))
        return nullptr;
    return value;
}

bool taskExists(unsigned long tid) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%lu", tid);
    return access(path, F_OK) == 0;
}

// The checks of prepare(); returns the reason sampling cannot run, or nullptr.
const char* whyNot() {
    if (!PythonFrames::initialize())
        return "no Python frames in this process";
    const PythonRuntime& rt = pythonRuntime();
    if (rt.minor < 11 || rt.layout != PythonLayout::InterpreterFrame || rt.interpThreadsHead < 0 ||
        rt.tsNativeThreadId < 0 || rt.coLinetable < 0 || rt.coCode < 0 || rt.frInstr < 0 ||
        !rt.bytesType || !rt.interpreterHead || !rt.threadHead)
        return "unsupported CPython version for sampling (3.11-3.13)";
    const uint64_t probe = 0x5354414c4c53ull;
    uint64_t copy = 0;
    if (!CheckedMemory::read(&probe, &copy, sizeof(copy)) || copy != probe)
        return "process_vm_readv is not allowed here (seccomp or ptrace policy)";
    const void* interpreter = rt.interpreterHead();
    if (!interpreter)
        return "no Python interpreter running";
    const void* head = rt.threadHead(interpreter); // a read of the live interpreter, once
    if (!head || checkedPointer(interpreter, rt.interpThreadsHead) != head)
        return "the interpreter's thread list is not where this version keeps it";
    const void* self = rt.threadState ? rt.threadState() : nullptr;
    const auto selfTid = static_cast<unsigned long>(syscall(SYS_gettid));
    int seen = 0;
    for (const void* tstate = head; tstate && seen < kMaxThreads; ++seen) {
        unsigned long tid = 0;
        if (!CheckedMemory::read(static_cast<const char*>(tstate) + rt.tsNativeThreadId, &tid,
                                 sizeof(tid)))
            return "a thread state could not be read";
        if (tstate == self ? tid != selfTid : (tid != 0 && !taskExists(tid)))
            return "the thread states' native thread ids are not where this version keeps them";
        tstate = checkedPointer(tstate, PythonRuntime::kThreadNextOffset);
    }
    return nullptr;
}

} // namespace

int PythonSampler::lineFromLocationTable(const uint8_t* table, size_t size, int firstLine,
                                         int lasti) {
    // Objects/locations.md: entries of (code units, line change); the first byte of an entry has
    // bit 7 set, bits 3-6 the kind, bits 0-2 the code units - 1.
    int line = firstLine, start = 0;
    size_t at = 0;
    while (at < size) {
        const uint8_t first = table[at++];
        if (!(first & 128))
            return -1; // not the start of an entry: not a location table
        const int kind = (first >> 3) & 15;
        const int end = start + ((first & 7) + 1) * 2;
        int delta = 0;
        size_t next = at;
        if (kind == 13 || kind == 14) // no columns, long form: a signed varint line change
            delta = scanSignedVarint(table, size, next);
        else if (kind >= 10 && kind <= 12) // one-line forms: the change is in the kind
            delta = kind - 10;
        line += delta;
        if (lasti < end)
            return kind == 15 ? -1 : line;
        start = end;
        while (at < size && !(table[at] & 128))
            ++at;
    }
    return -1;
}

bool PythonSampler::prepare() {
    std::lock_guard lock(g_prepareMutex);
    if (!g_prepared) {
        g_prepared = true;
        const char* problem = whyNot();
        g_ready = problem == nullptr;
        g_status = problem ? problem : "on";
    }
    return g_ready;
}

const char* PythonSampler::status() {
    return g_status;
}

int PythonSampler::sampleOnce(int64_t nowNs, uint32_t tick) {
    const PythonRuntime& rt = pythonRuntime();
    SamplerScratch* work = scratch();
    EventRing* ring = EventRing::forThisThread();
    if (!g_ready || !work || !ring)
        return 0;
    const void* interpreter = rt.interpreterHead();
    const void* tstate = interpreter ? checkedPointer(interpreter, rt.interpThreadsHead) : nullptr;
    work->cache.tick = tick;
    int pushed = 0;
    for (int visited = 0; tstate && visited < kMaxThreads; ++visited) {
        const auto state = CheckedMemory::view(tstate, rt.threadStateBytes);
        if (!state.ok()) {
            m_failedReads.fetch_add(1, std::memory_order_relaxed);
            break; // freed under us: the rest of the list is unreachable this tick
        }
        const void* next = state.pointer(PythonRuntime::kThreadNextOffset);
        const auto tid = state.at<unsigned long>(rt.tsNativeThreadId);
        const void* frame = python_walk::firstFrame<CheckedMemory>(state);
        tstate = next;
        if (!frame || tid == 0 || tid > 0x7fffffffu)
            continue;
        CheckedMemory::forgetWindow();
        HostEvent* event = ring->reserve();
        if (!event) {
            m_dropped.fetch_add(1, std::memory_order_relaxed);
            continue;
        }
        const int depth = python_walk::walkFrames<CheckedMemory>(
            work->cache, frame, event->python, kMaxPythonFrames,
            [work](const CheckedMemory::View& view, const void*, const void* code,
                   const CheckedMemory::View& codeView, uint32_t id) {
                return checkedLine(work->cache, work->lineTable, view, code, codeView, id);
            },
            [work](const CheckedMemory::View& view, const void* code, uint32_t id) {
                return cachedLine(work->cache, view, code, id);
            });
        if (depth == 0) {
            m_failedReads.fetch_add(1, std::memory_order_relaxed);
            continue; // the slot stays unpublished
        }
        if (m_ablation == RecorderExperiments::Sampler::WalkOnly)
            continue;
        event->type = HostEvent::Type::Sample;
        event->domain = 0;
        event->apiClass = 0;
        event->cbid = 0;
        event->correlationId = tick;
        event->tid = int32_t(tid);
        event->depth = 0;
        event->captureNs = 0;
        event->pythonCaptureNs = 0;
        event->pythonDepth = depth;
        event->contextId = 0;
        event->streamId = HostEvent::kNoStream;
        event->deviceId = HostEvent::kNoStream;
        event->startNs = event->endNs = nowNs;
        const uint64_t hash = StackUnwinder::hash(event->python, depth);
        event->stackHash = hash ? hash : 1;
        ring->publish();
        ++pushed;
    }
    m_samples.fetch_add(uint64_t(pushed), std::memory_order_relaxed);
    return pushed;
}

namespace {
std::mutex g_wakeMutex;
std::condition_variable g_wake;
} // namespace

bool PythonSampler::start(int hz, RecorderExperiments::Sampler ablation) {
    if (running() || hz <= 0 || !prepare())
        return false;
    m_hz = std::clamp(hz, kMinHz, kMaxHz);
    m_ablation = ablation;
    m_stop.store(false);
    m_thread = std::thread([this] { run(); });
    return true;
}

void PythonSampler::run() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr); // the program's signals go to its own threads
    pthread_setname_np(pthread_self(), "stallscope-py");
    const PythonRuntime& rt = pythonRuntime();
    const int64_t periodNs = 1'000'000'000 / m_hz;
    const int64_t startNs = CallbackHandler::nowNs();
    int64_t nextNs = startNs + periodNs;
    std::unique_lock lock(g_wakeMutex);
    while (!m_stop.load()) {
        if (m_paused.load()) {
            g_wake.wait(lock, [this] { return m_stop.load() || !m_paused.load(); });
            // The ticks of the pause are missed ones: no run of samples joins across it.
            const int64_t now = CallbackHandler::nowNs();
            nextNs = now + periodNs - (now - startNs) % periodNs;
            continue;
        }
        const auto deadline =
            std::chrono::steady_clock::time_point(std::chrono::nanoseconds(nextNs));
        if (g_wake.wait_until(lock, deadline,
                              [this] { return m_stop.load() || m_paused.load(); })) {
            if (m_stop.load())
                break;
            continue; // paused meanwhile
        }
        if (rt.finalizing && rt.finalizing())
            break; // thread states and frames are being torn down: no more samples
        const int64_t before = CallbackHandler::nowNs();
        // The tick's number counts periods since the start: a tick missed (the machine was busy)
        // leaves a gap, so that the writer does not join samples across it.
        if (m_ablation != RecorderExperiments::Sampler::TickOnly)
            sampleOnce(before, uint32_t((before - startNs) / periodNs));
        const int64_t after = CallbackHandler::nowNs();
        m_ticks.fetch_add(1, std::memory_order_relaxed);
        m_tickNs.fetch_add(after - before, std::memory_order_relaxed);
        if (after - before > m_maxTickNs.load(std::memory_order_relaxed))
            m_maxTickNs.store(after - before, std::memory_order_relaxed);
        nextNs += periodNs;
        if (nextNs <= after) // behind: skip the ticks that passed rather than burst
            nextNs = after + periodNs - (after - startNs) % periodNs;
    }
    releaseScratch();
}

void PythonSampler::stop() {
    if (!running())
        return;
    {
        std::lock_guard lock(g_wakeMutex);
        m_stop.store(true);
    }
    g_wake.notify_all();
    m_thread.join();
}

void PythonSampler::setPaused(bool paused) {
    {
        std::lock_guard lock(g_wakeMutex);
        m_paused.store(paused);
    }
    g_wake.notify_all();
}

void PythonSampler::forgetAfterFork() {
    if (running())
        new (&m_thread) std::thread(); // the parent's thread: not ours to join or detach here
}

void PythonSampler::writeStats(format::SessionWriter& writer, int64_t samplesWritten) const {
    const Stats sampled = stats();
    if (sampled.ticks == 0)
        return;
    writer.setMeta(format::meta::kSamplerTicks, std::to_string(sampled.ticks));
    writer.setMeta(format::meta::kSamplerSamples, std::to_string(samplesWritten));
    writer.setMeta(format::meta::kSamplerTickMeanNs,
                   std::to_string(sampled.tickNs / int64_t(sampled.ticks)));
    writer.setMeta(format::meta::kSamplerTickMaxNs, std::to_string(sampled.maxTickNs));
}

PythonSampler::Stats PythonSampler::stats() const {
    Stats s;
    s.ticks = m_ticks.load();
    s.samples = m_samples.load();
    s.failedReads = m_failedReads.load();
    s.dropped = m_dropped.load();
    s.tickNs = m_tickNs.load();
    s.maxTickNs = m_maxTickNs.load();
    return s;
}

} // namespace stallscope::recorder
