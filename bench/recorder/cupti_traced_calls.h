// The runtime calls whose per-call API records the CUPTI-alone experiments (cupti_toggle.cu,
// cupti_api_late.cu) switch: the launches and the stream sync their loops make.
#pragma once

#include <cupti.h>

#include <cstdio>

constexpr CUpti_CallbackId kTracedCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
};

// Switches those calls' API records; says on stderr when CUPTI refuses.
inline void switchTracedApiRecords(bool on) {
    for (CUpti_CallbackId cbid : kTracedCalls)
        if (const CUptiResult result = cuptiActivityEnableRuntimeApi(cbid, on ? 1 : 0);
            result != CUPTI_SUCCESS) {
            const char* text = nullptr;
            cuptiGetResultString(result, &text);
            fprintf(stderr, "cuptiActivityEnableRuntimeApi failed: %s\n", text ? text : "?");
        }
}
