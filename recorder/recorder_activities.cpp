// Recorder::switchActivities: which CUPTI activity kinds a recording enables, from its config — the
// kinds the analysis reads and nothing else (each kind costs the target time on the launch path) —
// and disables again when it stops or capture control stops recording; switchApiCallbacks: the
// API callbacks that time syncs and capture their stacks.
#include "recorder/recorder.h"

#include <cupti.h>

#include <string>

namespace stallscope::recorder {

bool Recorder::switchActivities(bool on, Activities which) {
    auto enable = [this, on](CUpti_ActivityKind kind, const char* name) {
        CUptiResult result = on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
        const char* call = on ? "cuptiActivityEnable(" : "cuptiActivityDisable(";
        if (result != CUPTI_SUCCESS)
            reportError(std::string(call) + name + ")", result);
        return result == CUPTI_SUCCESS;
    };
    bool any = false;
    // The per-call API records go on first and off last: a kernel recorded between the two would
    // lack its launch call. A --delay's opening, made while the program launched every ~10 us,
    // recorded two such kernels when the API records came last (bench/RESULTS.md).
    const bool apiRecords =
        which != Activities::EventsButApiRecords && which != Activities::Descriptions;
    if (on && apiRecords)
        any |= switchApiRecords(true);
    if (which != Activities::Events) {
        enable(CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE");
        enable(CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT");
    }
    if (which == Activities::Descriptions)
        return false;
    if (m_config.kernels)
        any |= enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL");
    if (m_config.memcpy)
        any |= enable(CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY");
    if (m_config.memset)
        any |= enable(CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET");
    // Syncs come from the API callbacks (callback_handler.h); CUPTI's records only on request.
    any |= m_config.syncs;
    if (m_config.wantsSyncRecords())
        enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION");
    if (m_config.nvtx)
        enable(CUPTI_ACTIVITY_KIND_MARKER, "MARKER");
    if (m_config.cudaEvents)
        enable(CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT");
    if (m_config.kernels) // NCCL's launches, tagged by its profiler plugin (nccl_collectives.h)
        enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION");
    if (!on && apiRecords)
        any |= switchApiRecords(false);
    return any;
}

bool Recorder::switchApiRecords(bool on) {
    bool any = false;
    // API records only for what the analysis reads: the RUNTIME/DRIVER kinds would record every
    // call (~1.7 us per launch measured, shared/notes/gpu-facts.md).
    for (int domain : {ApiClassifier::kRuntimeDomain, ApiClassifier::kDriverDomain}) {
        bool wanted =
            domain == ApiClassifier::kRuntimeDomain ? m_config.runtimeApi : m_config.driverApi;
        if (!wanted)
            continue;
        for (uint32_t cbid : m_classifier.interesting(domain)) {
            CUptiResult result = domain == ApiClassifier::kRuntimeDomain
                                     ? cuptiActivityEnableRuntimeApi(cbid, on ? 1 : 0)
                                     : cuptiActivityEnableDriverApi(cbid, on ? 1 : 0);
            if (result != CUPTI_SUCCESS) {
                reportError(domain == ApiClassifier::kRuntimeDomain
                                ? "cuptiActivityEnableRuntimeApi"
                                : "cuptiActivityEnableDriverApi",
                            result);
                break;
            }
            any = true;
        }
    }
    return any;
}

void Recorder::switchApiCallbacks(bool on) {
    if (!m_wantCallbacks)
        return;
    if (m_gated.load()) { // the gate keeps every traced API's callback on: onApi filters
        m_stackCallbacks.store(on);
        return;
    }
    for (int domain : {ApiClassifier::kRuntimeDomain, ApiClassifier::kDriverDomain}) {
        for (uint32_t cbid : m_classifier.interesting(domain)) {
            if (!ApiClassifier::wantsStack(m_classifier.lookup(domain, cbid)))
                continue;
            const CUptiResult result =
                cuptiEnableCallback(on ? 1 : 0, static_cast<CUpti_SubscriberHandle>(m_subscriber),
                                    CUpti_CallbackDomain(domain), cbid);
            if (result != CUPTI_SUCCESS) {
                reportError("cuptiEnableCallback", result);
                return;
            }
        }
    }
}

} // namespace stallscope::recorder
