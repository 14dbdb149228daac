// CallbackHandler: the CUPTI API callback, the one piece of the recorder on the target's hot path.
// At API ENTER of a sync or a copy that may block it captures the thread's stack into a slot of the
// thread's EventRing (and, for stream syncs and waits, notes the stream); at EXIT it stamps the end
// time and publishes the slot: that interval is the sync's wait (CUPTI's SYNCHRONIZATION records
// would time it too, at ~28 points of overhead on launch-bound loops). Everything else (launch
// records, kernels) comes from CUPTI activity records, which cost less than callbacks.
#pragma once

#include "recorder/api_classifier.h"
#include "recorder/host_event.h"

#include <cupti.h>

#include <atomic>
#include <cstdint>

namespace stallscope::recorder {

class CallbackHandler {
public:
    explicit CallbackHandler(const ApiClassifier* classifier) : m_classifier(classifier) {}

    void setStacks(bool enabled, int depth) {
        m_stacks = enabled;
        m_depth = depth;
    }
    // Python frames at each stack capture (PythonFrames must be initialized and available).
    void setPython(bool enabled) { m_python = enabled; }
    // Off in a forked child and after stop(): the callback returns at once.
    void setEnabled(bool enabled) { m_enabled.store(enabled, std::memory_order_relaxed); }
    bool enabled() const { return m_enabled.load(std::memory_order_relaxed); }
    // Capture control switches the callbacks on again: a call whose ENTER came before they went
    // off and whose EXIT never came is forgotten by its thread (never half-recorded).
    void newEpoch() { m_epoch.fetch_add(1, std::memory_order_relaxed); }

    // `data` is CUPTI's CUpti_CallbackData (API domains).
    void onApi(int domain, uint32_t cbid, const void* data);

    static int64_t nowNs();

    // Whether an async copy may read or write pageable host memory (then the driver stages it
    // while the host waits, and it needs a stack): host->device, device->host, or direction
    // inferred (cudaMemcpyDefault); not device->device.
    static bool asyncCopyMayBlock(int domain, uint32_t cbid, const void* data);

private:
    // Fills event->contextId and streamId from a stream sync's or stream wait's stream argument.
    static void noteStream(const CUpti_CallbackData& data, HostEvent* event);

    const ApiClassifier* m_classifier;
    bool m_stacks = true;
    bool m_python = false;
    int m_depth = 64;
    std::atomic<bool> m_enabled{true};
    std::atomic<uint32_t> m_epoch{0};
};

} // namespace stallscope::recorder
