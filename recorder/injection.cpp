// Entry points of libstallscope_recorder.so: the CUDA driver's InitializeInjection, the NVTX
// injection hook (forwarded to CUPTI so NVTX ranges reach the MARKER activity) and the public API.
// Everything else in the library has hidden visibility.
#include "recorder/event_ring.h"
#include "recorder/recorder.h"
#include "stallscope/recorder.h"

#include <cupti.h>
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

using stallscope::recorder::CallbackHandler;
using stallscope::recorder::EventRing;
using stallscope::recorder::HostEvent;
using stallscope::recorder::Recorder;
using stallscope::recorder::RecorderConfig;

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    try {
        std::string warnings;
        RecorderConfig config = RecorderConfig::fromEnvironment(&warnings);
        if (!warnings.empty())
            fprintf(stderr, "stallscope: %s\n", warnings.c_str());
        Recorder::instance().start(config, "injection");
    } catch (...) {
        // Never let anything escape into the driver (and the host program).
    }
    return 1;
}

// NVTX looks this symbol up in the library named by NVTX_INJECTION64_PATH. CUPTI implements it; we
// forward so that one variable (pointing at us) serves both, whatever libcupti path is in use.
extern "C" __attribute__((visibility("default"))) int
InitializeInjectionNvtx2(const void* exports) {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) || !info.dli_fname)
        return 0;
    void* cupti = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!cupti)
        return 0;
    using Init = int (*)(const void*);
    auto init = reinterpret_cast<Init>(dlsym(cupti, "InitializeInjectionNvtx2"));
    return init ? init(exports) : 0;
}

// For recorder/python/sitecustomize.py (through ctypes, so C linkage): 1 while this process is
// being recorded, i.e. the recorder holds CUPTI's one subscription.
extern "C" __attribute__((visibility("default"))) int stallscope_recording(void) {
    return Recorder::instance().active() ? 1 : 0;
}

// For programs that load the injected library through ctypes (bench/whatif/pair_harness.py):
// ends the recording here, as stallscope::stop() does; the program goes on unrecorded.
extern "C" __attribute__((visibility("default"))) void stallscope_stop(void) {
    stallscope::stop();
}

namespace stallscope {

bool start(const Options& options) {
    try {
        std::string warnings;
        RecorderConfig config = RecorderConfig::fromEnvironment(&warnings);
        if (options.outputPath)
            config.outputPattern = options.outputPath;
        config.stacks = options.stacks;
        config.stackDepth = std::clamp(options.stackDepth, stallscope::recorder::kMinStackDepth,
                                       stallscope::recorder::kMaxStackDepth);
        if (options.kinds)
            config.applyKinds(options.kinds, &warnings);
        config.bufferBytes = std::clamp(options.bufferBytes, stallscope::recorder::kMinBufferBytes,
                                        stallscope::recorder::kMaxBufferBytes);
        config.flushMs = std::clamp(options.flushMs, stallscope::recorder::kMinFlushMs,
                                    stallscope::recorder::kMaxFlushMs);
        config.disabled = false;
        if (!warnings.empty())
            fprintf(stderr, "stallscope: %s\n", warnings.c_str());
        return Recorder::instance().start(config, "api");
    } catch (...) {
        return false;
    }
}

void stop() {
    try {
        Recorder::instance().stop();
    } catch (...) {
    }
}

bool recording() {
    return Recorder::instance().active();
}

namespace {
thread_local int t_scopeDepth = 0;
thread_local int32_t t_tid = 0;
} // namespace

Scope::Scope(const char* name) : m_name(name), m_startNs(0), m_depth(t_scopeDepth) {
    if (!Recorder::instance().active())
        return;
    ++t_scopeDepth;
    m_startNs = CallbackHandler::nowNs();
}

Scope::~Scope() {
    if (m_startNs == 0)
        return;
    --t_scopeDepth;
    EventRing* ring = EventRing::forThisThread();
    HostEvent* event = ring ? ring->reserve() : nullptr;
    if (!event)
        return;
    if (!t_tid)
        t_tid = int32_t(syscall(SYS_gettid));
    event->type = HostEvent::Type::Scope;
    event->tid = t_tid;
    event->depth = m_depth;
    event->captureNs = 0;
    event->stackHash = 0;
    event->startNs = m_startNs;
    event->endNs = CallbackHandler::nowNs();
    strncpy(event->name, m_name ? m_name : "", sizeof(event->name) - 1);
    event->name[sizeof(event->name) - 1] = '\0';
    ring->publish();
}

} // namespace stallscope
