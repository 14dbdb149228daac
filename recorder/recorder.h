// Recorder: the process-wide recording session. Subscribes to CUPTI, owns the activity buffers and
// the writer thread (SessionSink + SessionWriter), and the exit and fork handling; its parts each
// own one responsibility over the shared RecordingState: what is collected (CollectionSwitches),
// capture control (CaptureDriver), the in-run overhead probe (ProbeDriver), the flight recorder
// (RingDriver) and the stop and crash signals (ProcessSignals).
//
// Safety contract: nothing here throws into the host or aborts it. A CUPTI error is recorded in the
// session's diagnostics table and printed once; if CUPTI is taken by another client
// (torch.profiler, Nsight) the process runs untraced with one clear message.
#pragma once

#include "recorder/activity_buffer_pool.h"
#include "recorder/activity_record.h"
#include "recorder/api_classifier.h"
#include "recorder/callback_handler.h"
#include "recorder/capture_driver.h"
#include "recorder/collection_switches.h"
#include "recorder/fde_index.h"
#include "recorder/gpu_power_sampler.h"
#include "recorder/probe_driver.h"
#include "recorder/process_signals.h"
#include "recorder/python_sampler.h"
#include "recorder/recorder_config.h"
#include "recorder/recording_state.h"
#include "recorder/ring_driver.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace stallscope::recorder {

class Recorder {
public:
    static Recorder& instance();

    // Starts recording this process. `origin` is "injection" or "api". False when not recording.
    bool start(const RecorderConfig& config, const char* origin);
    // Flushes CUPTI, writes everything, marks the session complete and closes it.
    void stop();
    bool active() const { return m_state.active.load(std::memory_order_acquire); }
    const std::string& outputPath() const { return m_state.outputPath; }

    // Used by the CUPTI trampolines in recorder.cpp.
    CallbackHandler& handler() { return m_handler; }
    void onContextCreated() { m_capture.onContextCreated(); }
    void onCaptureTrigger(int domain, uint32_t cbid, const void* data) {
        m_capture.onTrigger(domain, cbid, data);
    }
    void onApi(int domain, uint32_t cbid, const void* data) { m_probe.onApi(domain, cbid, data); }
    void pushBatch(std::unique_ptr<ActivityBatch> batch);
    uint8_t* takeBuffer(size_t* size);
    void returnBuffer(uint8_t* buffer) { m_buffers.give(buffer); }
    void onAtExit();
    void wake() { m_state.wakeWriter(); }
    void onForkChild();
    // Registers, once per process, onAtExit() at exit and onForkChild() in every forked child.
    static void installProcessHooks();
    // Whether activity timestamps get CuptiClock's offset (no CUPTI timestamp callback).
    bool shiftsCuptiClock() const { return m_shiftClock.load(std::memory_order_relaxed); }

private:
    Recorder() = default;
    // start()'s steps, in order: CUPTI's callbacks subscribed (false when another client holds
    // them); the session file opened and its recorder meta written (its start time; nothing when
    // the file cannot be made); stacks, Python frames and the sampler prepared (whether the
    // sampler runs); CUPTI's clock and activity buffers set up; the writer and sampler threads.
    bool subscribe();
    std::optional<int64_t> openSession(const char* origin);
    bool prepareHostCapture();
    void configureClock();
    void configureActivityBuffers();
    void startThreads(bool capturing, bool signalHandlers);
    void writerLoop();
    // `stepsProbe`: the overhead probe may switch between buffers (the writer loop's drains).
    void drainOnce(bool stepsProbe = false);
    // Hands every thread's ring of host events to the sink.
    void drainRings();
    void finishWriter(std::string_view status);

    RecordingState m_state;
    ApiClassifier m_classifier;
    CallbackHandler m_handler{&m_classifier};
    PythonSampler m_sampler;
    GpuPowerSampler m_power;
    CollectionSwitches m_switches{m_state, m_classifier, m_handler, m_sampler, m_power};
    CaptureDriver m_capture{m_state, m_switches, m_handler};
    ProbeDriver m_probe{m_state, m_switches, m_handler, m_classifier, m_capture.mutex()};
    RingDriver m_ring{m_state, [this] { drainOnce(); }};
    ProcessSignals m_signals{m_state, [this] { drainOnce(); }};
    FdeIndex m_fdeIndex;
    std::thread m_thread;
    std::atomic<bool> m_stopRequested{false};
    // From start() until stop() has written the session: CUPTI's buffers go to the writer.
    std::atomic<bool> m_takingBatches{false};
    std::atomic<bool> m_shiftClock{false};
    bool m_cuptiFlushes = false;
    ActivityBufferPool m_buffers;
    std::mutex m_stopMutex;

    std::mutex m_batchMutex; // never held across CUPTI calls
    std::vector<std::unique_ptr<ActivityBatch>> m_batches;
};

} // namespace stallscope::recorder
