#include "recorder/collection_switches.h"

#include "recorder/api_classifier.h"
#include "recorder/callback_handler.h"
#include "recorder/gpu_power_sampler.h"
#include "recorder/python_sampler.h"
#include "recorder/recording_state.h"

#include <cupti.h>

#include <string>

namespace stallscope::recorder {

bool CollectionSwitches::activities(bool on, Activities which) {
    auto enable = [this, on](CUpti_ActivityKind kind, const char* name) {
        CUptiResult result = on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
        const char* call = on ? "cuptiActivityEnable(" : "cuptiActivityDisable(";
        if (result != CUPTI_SUCCESS)
            m_state.reportError(std::string(call) + name + ")", result);
        return result == CUPTI_SUCCESS;
    };
    const RecorderConfig& config = m_state.config;
    bool any = false;
    // The per-call API records go on first and off last: a kernel recorded between the two would
    // lack its launch call. A --delay's opening, made while the program launched every ~10 us,
    // recorded two such kernels when the API records came last (bench/RESULTS.md).
    const bool withApiRecords =
        which != Activities::EventsButApiRecords && which != Activities::Descriptions;
    if (on && withApiRecords)
        any |= apiRecords(true);
    if (which != Activities::Events) {
        enable(CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE");
        enable(CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT");
    }
    if (which == Activities::Descriptions)
        return false;
    if (config.kernels)
        any |= enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL");
    if (config.memcpy)
        any |= enable(CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY");
    if (config.memset)
        any |= enable(CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET");
    // Syncs come from the API callbacks (callback_handler.h); CUPTI's records only on request.
    any |= config.syncs;
    if (config.wantsSyncRecords())
        enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION");
    if (config.nvtx)
        enable(CUPTI_ACTIVITY_KIND_MARKER, "MARKER");
    if (config.cudaEvents)
        enable(CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT");
    if (config.kernels) // NCCL's launches, tagged by its profiler plugin (nccl_collectives.h)
        enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION");
    if (!on && withApiRecords)
        any |= apiRecords(false);
    return any;
}

bool CollectionSwitches::apiRecords(bool on) {
    const RecorderConfig& config = m_state.config;
    bool any = false;
    // API records only for what the analysis reads: the RUNTIME/DRIVER kinds would record every
    // call (~1.7 us per launch measured, shared/notes/gpu-facts.md).
    for (int domain : {ApiClassifier::kRuntimeDomain, ApiClassifier::kDriverDomain}) {
        bool wanted =
            domain == ApiClassifier::kRuntimeDomain ? config.runtimeApi : config.driverApi;
        if (!wanted)
            continue;
        for (uint32_t cbid : m_classifier.interesting(domain)) {
            CUptiResult result = domain == ApiClassifier::kRuntimeDomain
                                     ? cuptiActivityEnableRuntimeApi(cbid, on ? 1 : 0)
                                     : cuptiActivityEnableDriverApi(cbid, on ? 1 : 0);
            if (result != CUPTI_SUCCESS) {
                m_state.reportError(domain == ApiClassifier::kRuntimeDomain
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

void CollectionSwitches::stackCallbacks(bool on) {
    if (!m_state.config.experiments.apiCallbacks) // STALLSCOPE_CALLBACKS
        return;
    if (m_allKept.load()) { // every traced API's callback stays on: the recorder's onApi filters
        m_stackCallbacks.store(on);
        return;
    }
    for (int domain : {ApiClassifier::kRuntimeDomain, ApiClassifier::kDriverDomain}) {
        for (uint32_t cbid : m_classifier.interesting(domain)) {
            if (!ApiClassifier::wantsStack(m_classifier.lookup(domain, cbid)))
                continue;
            const CUptiResult result = cuptiEnableCallback(
                on ? 1 : 0, static_cast<CUpti_SubscriberHandle>(m_state.subscriber),
                CUpti_CallbackDomain(domain), cbid);
            if (result != CUPTI_SUCCESS) {
                m_state.reportError("cuptiEnableCallback", result);
                return;
            }
        }
    }
}

void CollectionSwitches::collection(bool on, Activities which) {
    if (on)
        m_handler.newEpoch(); // before the callbacks come back
    activities(on, which);
    stackCallbacks(on);
    if (m_sampling)
        m_sampler.setPaused(!on);
    m_power.setPaused(!on);
}

void CollectionSwitches::keepAllApiCallbacks() {
    m_allKept.store(
        true); // before the callbacks below: the recorder's onApi filters from the first
    const RecorderConfig& config = m_state.config;
    auto* subscriber = static_cast<CUpti_SubscriberHandle>(m_state.subscriber);
    for (int domain : {ApiClassifier::kRuntimeDomain, ApiClassifier::kDriverDomain}) {
        if (!(domain == ApiClassifier::kRuntimeDomain ? config.runtimeApi : config.driverApi))
            continue;
        for (uint32_t cbid : m_classifier.interesting(domain))
            if (const CUptiResult result =
                    cuptiEnableCallback(1, subscriber, CUpti_CallbackDomain(domain), cbid);
                result != CUPTI_SUCCESS) {
                m_state.reportError("cuptiEnableCallback (the probe's gate)", result);
                return;
            }
    }
}

} // namespace stallscope::recorder
