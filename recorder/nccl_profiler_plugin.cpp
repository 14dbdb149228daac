// NCCL's profiler plugin interface, version 5 (NCCL 2.28 and later; newer NCCLs still load v5):
// stallscope-record points NCCL_PROFILER_PLUGIN at this library, NCCL dlopens it — the instance
// CUDA_INJECTION64_PATH already loaded — and reports each collective and point-to-point call and
// each kernel launch to it. nccl_collectives.h joins the two. Only the plugin's entry struct is
// exported; nothing here may throw into NCCL.
#include "recorder/nccl_collectives.h"
#include "recorder/recorder.h"

#include <cstddef>
#include <cstdint>

namespace {

// The ABI of NCCL's src/include/plugin/profiler/profiler_v5.h and nccl_profiler.h (NCCL 2.28.9,
// unchanged up to 2.30), mirrored: NCCL's headers are not installed with its library. Only the
// union members read here are declared; the union starts at the same offset whatever its members.
using ncclResult_t = int;
constexpr ncclResult_t kNcclSuccess = 0;
using ncclDebugLogger_t = void (*)(int level, unsigned long flags, const char* file, int line,
                                   const char* fmt, ...);
enum : uint64_t {
    kNcclProfileP2pApi = 1 << 10,
    kNcclProfileCollApi = 1 << 9,
    kNcclProfileKernelLaunch = 1 << 11,
};

struct NcclEventDescriptorV5 {
    uint64_t type;
    void* parentObj;
    int rank;
    union {
        struct {
            const char* func;
            size_t count;
            const char* datatype;
            int root;
            void* stream;
            bool graphCaptured;
        } collApi;
        struct {
            const char* func;
            size_t count;
            const char* datatype;
            void* stream;
            bool graphCaptured;
        } p2pApi;
        struct {
            void* stream;
        } kernelLaunch;
    };
};

struct NcclProfilerV5 {
    const char* name;
    ncclResult_t (*init)(void** context, uint64_t commId, int* eActivationMask,
                         const char* commName, int nNodes, int nranks, int rank,
                         ncclDebugLogger_t logfn);
    ncclResult_t (*startEvent)(void* context, void** eHandle, NcclEventDescriptorV5* eDescr);
    ncclResult_t (*stopEvent)(void* eHandle);
    ncclResult_t (*recordEventState)(void* eHandle, int eState, void* eStateArgs);
    ncclResult_t (*finalize)(void* context);
};

using stallscope::recorder::NcclCollectives;

// The handle of a tagged launch (stopEvent is called only for non-null handles).
char g_taggedLaunch;
char g_context;

ncclResult_t init(void** context, uint64_t, int* activationMask, const char*, int, int, int,
                  ncclDebugLogger_t) {
    *context = &g_context;
    // Loaded without a recording (NCCL_PROFILER_PLUGIN left over): ask NCCL for nothing.
    *activationMask = stallscope::recorder::Recorder::instance().active()
                          ? int(kNcclProfileCollApi | kNcclProfileP2pApi | kNcclProfileKernelLaunch)
                          : 0;
    return kNcclSuccess;
}

ncclResult_t startEvent(void*, void** handle, NcclEventDescriptorV5* event) {
    *handle = nullptr;
    if (!event)
        return kNcclSuccess;
    try {
        switch (event->type) {
        case kNcclProfileCollApi:
            // A call captured into a CUDA graph launches nothing now.
            if (!event->collApi.graphCaptured)
                NcclCollectives::noteCall(event->collApi.func, event->collApi.count,
                                          event->collApi.datatype);
            break;
        case kNcclProfileP2pApi:
            if (!event->p2pApi.graphCaptured)
                NcclCollectives::noteCall(event->p2pApi.func, event->p2pApi.count,
                                          event->p2pApi.datatype);
            break;
        case kNcclProfileKernelLaunch:
            if (NcclCollectives::beginLaunch())
                *handle = &g_taggedLaunch;
            break;
        default:
            break;
        }
    } catch (...) {
    }
    return kNcclSuccess;
}

ncclResult_t stopEvent(void* handle) {
    if (handle == &g_taggedLaunch)
        NcclCollectives::endLaunch();
    return kNcclSuccess;
}

ncclResult_t recordEventState(void*, int, void*) {
    return kNcclSuccess;
}

ncclResult_t finalize(void*) {
    return kNcclSuccess;
}

} // namespace

extern "C" {
__attribute__((visibility("default"))) NcclProfilerV5 ncclProfiler_v5 = {
    "stallscope", init, startEvent, stopEvent, recordEventState, finalize};
}
