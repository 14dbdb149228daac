#include "recorder/recorder.h"

#include "format/session_meta.h"
#include "format/session_schema.h"
#include "recorder/activity_decoder.h"
#include "recorder/cupti_clock.h"
#include "recorder/event_ring.h"
#include "recorder/launch_environment.h"
#include "recorder/nccl_collectives.h"
#include "recorder/python_frames.h"
#include "recorder/session_sink.h"
#include "recorder/stack_unwinder.h"

#include "format/session_writer.h"
#include <cupti.h>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <utility>

namespace stallscope::recorder {

namespace {

constexpr int64_t kJoinMaxAgeNs = 3'000'000'000; // a sync record waits this long for its stack

void CUPTIAPI apiTrampoline(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                            const void* data) {
    Recorder& recorder = Recorder::instance();
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
            recorder.onContextCreated();
        return;
    }
    if (CaptureDriver::isTrigger(int(domain), cbid))
        recorder.onCaptureTrigger(int(domain), cbid, data);
    else
        recorder.onApi(int(domain), cbid, data);
}

void CUPTIAPI bufferRequestedTrampoline(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *maxNumRecords = 0;
    *buffer = Recorder::instance().takeBuffer(size);
}

void CUPTIAPI bufferCompletedTrampoline(CUcontext context, uint32_t streamId, uint8_t* buffer,
                                        size_t, size_t validSize) {
    Recorder& recorder = Recorder::instance();
    if (!buffer)
        return;
    std::unique_ptr<ActivityBatch> batch(new (std::nothrow) ActivityBatch);
    if (batch) {
        batch->records.reserve(validSize / 128);
        ActivityDecoder::decodeBuffer(buffer, validSize, batch.get());
        size_t dropped = 0;
        if (cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS)
            batch->droppedRecords = dropped;
    }
    recorder.returnBuffer(buffer);
    if (batch && recorder.shiftsCuptiClock())
        CuptiClock::shift(batch.get(), CuptiClock::measureOffset());
    if (batch)
        recorder.pushBatch(std::move(batch));
}

uint64_t CUPTIAPI monotonicTimestamp() {
    return uint64_t(CallbackHandler::nowNs());
}

void atExitTrampoline() {
    Recorder::instance().onAtExit();
}
void wakeWriter() {
    Recorder::instance().wake();
}
void forkChildTrampoline() {
    Recorder::instance().onForkChild();
}

std::string readFile(const char* path) {
    std::string text;
    FILE* file = fopen(path, "re");
    if (!file)
        return text;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), file)) > 0 && text.size() < 65536)
        text.append(buffer, n);
    fclose(file);
    return text;
}

std::string commandLine() {
    std::string raw = readFile("/proc/self/cmdline");
    while (!raw.empty() && raw.back() == '\0')
        raw.pop_back();
    for (char& c : raw)
        if (c == '\0')
            c = ' ';
    return raw;
}

std::string hostName() {
    char buffer[256] = {};
    gethostname(buffer, sizeof(buffer) - 1);
    return buffer;
}

} // namespace

Recorder& Recorder::instance() {
    // Leaked on purpose: CUPTI threads and atexit handlers may use it during process teardown.
    static Recorder* recorder = new Recorder;
    return *recorder;
}

uint8_t* Recorder::takeBuffer(size_t* size) {
    uint8_t* buffer = m_buffers.take();
    *size = buffer ? m_buffers.bufferBytes() : 0; // none: CUPTI counts the records it drops
    return buffer;
}

void Recorder::pushBatch(std::unique_ptr<ActivityBatch> batch) {
    if (!m_takingBatches.load())
        return; // no session to write it to (after stop(): see CollectionSwitches::activities)
    {
        std::lock_guard<std::mutex> lock(m_batchMutex);
        m_batches.push_back(std::move(batch));
    }
    m_state.wakeWriter();
}

bool Recorder::start(const RecorderConfig& config, const char* origin) {
    std::lock_guard<std::mutex> stopLock(m_stopMutex);
    if (m_state.active.load() || config.disabled)
        return m_state.active.load();
    m_state.config = config;
    m_state.pid = getpid();
    if (!subscribe())
        return false;
    const std::optional<int64_t> startNs = openSession(origin);
    if (!startNs)
        return false;
    m_switches.setSampling(prepareHostCapture());
    // Capture control may start closed: then only its triggers' callbacks are on. A trigger on
    // another thread waits until the samplers below know too.
    std::unique_lock captureLock(m_capture.mutex());
    const bool capturing = m_capture.start(*startNs);
    m_ring.start();
    if (capturing)
        m_switches.stackCallbacks(true);
    m_probe.start();
    configureClock();
    configureActivityBuffers();
    m_switches.activities(true, capturing ? CollectionSwitches::Activities::All
                                          : CollectionSwitches::Activities::Descriptions);
    if (!capturing)
        m_capture.keepApiRecordsUntilContext();
    m_state.writer->commit();
    // Injected, the recorder commits what it has on a crash (onFatalSignal); linked in, the
    // program's own handlers stay.
    startThreads(capturing, strcmp(origin, "injection") == 0);
    captureLock.unlock();
    m_power.start(m_state.config.gpuPowerHz);
    if (m_state.config.stacks && m_state.config.experiments.fdeIndex) // else libgcc finds each FDE
        m_fdeIndex.start();
    return true;
}

bool Recorder::subscribe() {
    CUpti_SubscriberHandle subscriber = nullptr;
    const CUptiResult result = cuptiSubscribe(&subscriber, apiTrampoline, nullptr);
    if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        fprintf(stderr,
                "stallscope: another CUPTI client (torch.profiler, Nsight Systems, ...) is "
                "already attached to process %lld; it runs untraced by stallscope.\n",
                static_cast<long long>(m_state.pid));
        return false;
    }
    if (result != CUPTI_SUCCESS) {
        m_state.reportError("cuptiSubscribe", result);
        fprintf(stderr, "stallscope: process %lld runs untraced.\n",
                static_cast<long long>(m_state.pid));
        return false;
    }
    m_state.subscriber = subscriber;
    return true;
}

std::optional<int64_t> Recorder::openSession(const char* origin) {
    const RecorderConfig& config = m_state.config;
    // Read once, before the output name (%r) and the process row need it.
    const LaunchEnvironment launch = LaunchEnvironment::current();
    m_state.outputPath = config.outputPathFor(m_state.pid, launch.rank);
    std::string error;
    m_state.writer = format::SessionWriter::create(m_state.outputPath, &error);
    if (!m_state.writer) {
        fprintf(stderr, "stallscope: %s; process %lld runs untraced.\n", error.c_str(),
                static_cast<long long>(m_state.pid));
        cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(m_state.subscriber));
        m_state.subscriber = nullptr;
        return std::nullopt;
    }
    format::SessionWriter& writer = *m_state.writer;
    m_state.sink = std::make_unique<SessionSink>(&writer);
    SessionSink& sink = *m_state.sink;
    sink.setSyncRecords(config.wantsSyncRecords());
    const int64_t startNs = CallbackHandler::nowNs();
    sink.beginProcess(m_state.pid, hostName(), commandLine(), startNs);
    sink.setLaunch(launch, startNs);
    writer.setMeta(format::meta::kRecorderOrigin, origin);
    writer.setMeta(format::meta::kRecorderKinds, config.describeKinds());
    writer.setMeta(format::meta::kRecorderMode, config.modeName());
    writer.setMeta(format::meta::kRecorderStacks, config.stacks ? "1" : "0");
    writer.setMeta(format::meta::kRecorderStackDepth, std::to_string(config.stackDepth));
    writer.setMeta(format::meta::kRecorderBufferBytes, std::to_string(config.bufferBytes));
    writer.setMeta(format::meta::kRecorderFlushMs, std::to_string(config.flushMs));
    writer.setMeta(format::meta::kStartNs, std::to_string(startNs));
    if (config.restartOverheadNs >= 0 && config.launchOverheadNs >= 0 &&
        config.deepQueueDelayNs >= 0) {
        writer.setMeta(format::meta::kRecorderRestartOverheadNs,
                       std::to_string(config.restartOverheadNs));
        writer.setMeta(format::meta::kRecorderLaunchOverheadNs,
                       std::to_string(config.launchOverheadNs));
        writer.setMeta(format::meta::kGpuDeepQueueDelayNs, std::to_string(config.deepQueueDelayNs));
    }
    uint32_t cuptiVersion = 0;
    if (cuptiGetVersion(&cuptiVersion) == CUPTI_SUCCESS)
        writer.setMeta(format::meta::kCuptiApiVersion, std::to_string(cuptiVersion));
    return startNs;
}

bool Recorder::prepareHostCapture() {
    const RecorderConfig& config = m_state.config;
    format::SessionWriter& writer = *m_state.writer;
    if (!m_classifier.build())
        m_state.reportError("cuptiGetCallbackName returned no API names", 0);
    m_handler.setStacks(config.stacks, config.stackDepth);
    // CUDA starts the recorder on the thread that initializes it, usually the one that syncs.
    if (config.stacks)
        StackUnwinder::prepareThread();
    // Python frames at every stack capture when this process hosts CPython (python_frames.h).
    bool python = config.stacks && config.pythonFrames && PythonFrames::initialize();
    m_handler.setPython(python);
    if (PythonFrames::version()[0])
        writer.setMeta(format::meta::kPythonVersion, PythonFrames::version());
    writer.setMeta(format::meta::kPythonFrames, !config.stacks         ? "off (no stacks)"
                                                : !config.pythonFrames ? "off"
                                                                       : PythonFrames::status());
    // The Python sampler has its own switch: samples name host time that no CUDA call covers.
    const bool sampling = config.sampleHz > 0 && config.pythonFrames && PythonSampler::prepare();
    writer.setMeta(format::meta::kSampleHz,
                   sampling ? std::to_string(config.sampleHz) : std::string("0"));
    writer.setMeta(format::meta::kSampling, config.sampleHz <= 0   ? "off"
                                            : !config.pythonFrames ? "off (no Python frames)"
                                                                   : PythonSampler::status());
    writer.setMeta(format::meta::kNcclProfiler,
                   NcclCollectives::status(config.kernels && config.driverApi));
    m_handler.setEnabled(true);
    return sampling;
}

void Recorder::configureClock() {
    // One host clock (cupti_clock.h): CUPTI's timestamps plus a per-buffer offset to
    // CLOCK_MONOTONIC; the benchmarks' clock experiments register CUPTI's per-timestamp callback
    // instead or keep CUPTI's clock unconverted.
    const RecorderExperiments& experiments = m_state.config.experiments;
    format::SessionWriter& writer = *m_state.writer;
    writer.setMeta(format::meta::kCuptiClockVsHost, CuptiClock::describe());
    if (const std::string list = experiments.text(); !list.empty())
        writer.setMeta(format::meta::kRecorderExperiments, list);
    if (experiments.clock == RecorderExperiments::Clock::Cupti) {
        writer.setMeta(format::meta::kClockWarning,
                       "CUPTI clock kept (STALLSCOPE_EXPERIMENT=clock=cupti)");
    } else if (experiments.clock == RecorderExperiments::Clock::Callback) {
        if (const CUptiResult result = cuptiActivityRegisterTimestampCallback(monotonicTimestamp);
            result != CUPTI_SUCCESS)
            m_state.reportError(
                "cuptiActivityRegisterTimestampCallback (timestamps not on CLOCK_MONOTONIC)",
                result);
    } else {
        m_shiftClock.store(true);
    }
    writer.setMeta(format::meta::kRecorderClock, experiments.clockName());
}

void Recorder::configureActivityBuffers() {
    const RecorderExperiments& experiments = m_state.config.experiments;
    format::SessionWriter& writer = *m_state.writer;
    // The writer's periodic cuptiActivityFlushAll delivers the buffers, or in the flush experiment
    // CUPTI's own thread (cuptiActivityFlushPeriod).
    m_cuptiFlushes = experiments.cuptiFlushes;
    if (m_cuptiFlushes &&
        cuptiActivityFlushPeriod(uint32_t(m_state.config.flushMs)) != CUPTI_SUCCESS)
        m_cuptiFlushes = false;
    writer.setMeta(format::meta::kRecorderFlush, m_cuptiFlushes ? "cupti" : "writer");
    CUptiResult result = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    if (result != CUPTI_SUCCESS)
        m_state.reportError("cuptiSetThreadIdType", result);
    // The pool zeroes CUPTI's buffers off the program's threads (activity_buffer_pool.h); the
    // zeroing experiment leaves it to CUPTI.
    bool poolZeroes = false;
    if (!experiments.cuptiZeroes) {
        uint8_t zeroed = 1;
        size_t attributeSize = sizeof(zeroed);
        poolZeroes = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER,
                                               &attributeSize, &zeroed) == CUPTI_SUCCESS;
    }
    m_buffers.configure(size_t(m_state.config.bufferBytes), poolZeroes);
    writer.setMeta(format::meta::kRecorderBufferZeroing, poolZeroes ? "recorder" : "cupti");
    m_buffers.keepReady();
    m_takingBatches.store(true);
    if ((result = cuptiActivityRegisterCallbacks(bufferRequestedTrampoline,
                                                 bufferCompletedTrampoline)) != CUPTI_SUCCESS)
        m_state.reportError("cuptiActivityRegisterCallbacks", result);
}

void Recorder::startThreads(bool capturing, bool signalHandlers) { // under the capture mutex
    installProcessHooks();
    if (signalHandlers)
        m_signals.install();
    m_stopRequested = false;
    m_state.active.store(true, std::memory_order_release);
    EventRing::setWakeup(wakeWriter);
    m_thread = std::thread([this] { writerLoop(); });
    if (m_switches.sampling()) {
        m_sampler.setPaused(!capturing);
        m_sampler.start(m_state.config.sampleHz, m_state.config.experiments.sampler);
    }
    m_power.setPaused(!capturing);
}

void Recorder::drainRings() {
    struct Context {
        SessionSink* sink;
        OverheadProbe* probe; // null when it does not watch
        int64_t dropped;
    } context{m_state.sink.get(), m_probe.watching(), 0};
    EventRing::forEach(
        [](EventRing* ring, void* data) {
            auto* c = static_cast<Context*>(data);
            ring->drain([c](const HostEvent& event) {
                if (c->probe && event.type == HostEvent::Type::ApiCall)
                    c->probe->onSync(event.stackHash, event.domain, event.cbid, event.startNs);
                c->sink->consumeHostEvent(event);
            });
            c->dropped += int64_t(ring->takeDropped());
        },
        &context);
    if (context.dropped)
        m_state.sink->addDropped(CallbackHandler::nowNs(), format::dropped_source::kHostEventRing,
                                 context.dropped);
}

void Recorder::drainOnce(bool stepsProbe) {
    const std::vector<CaptureControl::Transition> transitions = m_capture.takeTransitions();
    drainRings();
    std::vector<std::unique_ptr<ActivityBatch>> batches;
    {
        std::lock_guard<std::mutex> lock(m_batchMutex);
        batches.swap(m_batches);
    }
    for (std::unique_ptr<ActivityBatch>& batch : batches) {
        m_state.sink->consumeBatch(*batch);
        batch.reset();
        // Writing a full activity buffer takes tens of milliseconds, in which a thread that
        // syncs thousands of times a second fills its ring: empty the rings between buffers.
        drainRings();
        // Nor may a backlog of buffers keep the probe's stretch off past its time.
        if (stepsProbe)
            m_probe.step(CallbackHandler::nowNs());
    }
    for (auto& [at, message] : m_state.errors.take())
        m_state.writer->addDiagnostic(at, "error", message);
    m_capture.writeTransitions(transitions);
}

void Recorder::writerLoop() {
    pthread_setname_np(pthread_self(), "stallscope-wr");
    m_signals.setWriterThread(gettid());
    // The writer thread must not be interrupted by the signals we forward to it via sem_post.
    sigset_t mask;
    sigemptyset(&mask);
    for (int s : {SIGINT, SIGTERM, SIGHUP})
        sigaddset(&mask, s);
    pthread_sigmask(SIG_BLOCK, &mask, nullptr);

    int64_t lastFlush = CallbackHandler::nowNs();
    int64_t lastCommit = lastFlush;
    const int64_t periodNs = int64_t(m_state.config.flushMs) * 1000000;
    while (true) {
        // Half a period, or sooner when capture control waits for a time (delay, duration).
        const int64_t wakeNs =
            std::min({CallbackHandler::nowNs() + periodNs / 2, m_capture.deadlineNs(),
                      m_probe.running() ? m_probe.deadlineNs() : INT64_MAX});
        const timespec deadline{time_t(wakeNs / 1000000000), long(wakeNs % 1000000000)};
        while (sem_clockwait(&m_state.wake, CLOCK_MONOTONIC, &deadline) != 0 && errno == EINTR) {
        }
        if (const int fatal = m_signals.fatalSignal()) {
            m_signals.commitAfterCrash(fatal);
            return; // the process is going down; nothing more is written
        }
        int signal = m_signals.takeStopSignal();
        bool stopping = m_stopRequested.load() || signal != 0;
        int64_t now = CallbackHandler::nowNs();
        if (now >= m_capture.deadlineNs())
            m_capture.advance(now);
        if (signal != 0) {
            cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        } else if (!stopping && !m_cuptiFlushes && now - lastFlush >= periodNs) {
            cuptiActivityFlushAll(0);
            lastFlush = now;
        }
        const bool probing = m_probe.running() && !stopping;
        if (probing)
            m_probe.step(now);
        drainOnce(probing);
        if (probing)
            m_probe.step(CallbackHandler::nowNs());
        m_buffers.keepReady();
        m_state.sink->expirePending(now, kJoinMaxAgeNs);
        m_state.sink->refreshModules(now);
        if (stopping) {
            if (signal != 0) {
                // The recording is whole up to the signal, but the program's run was cut short.
                m_state.writer->setMeta(format::meta::kTerminatedBySignal, std::to_string(signal));
                m_state.writer->setMeta(format::meta::kIncompleteReason,
                                        m_signals.stopReason(signal));
                finishWriter(format::kStatusIncomplete);
                m_state.active.store(false);
                ::signal(signal, SIG_DFL);
                kill(getpid(), signal);
            }
            return;
        }
        const bool committing = now - lastCommit >= periodNs;
        if (committing) {
            m_state.writer->commit();
            lastCommit = now;
        }
        m_ring.step(now, committing);
    }
}

void Recorder::finishWriter(std::string_view status) {
    if (!m_state.writer)
        return;
    format::SessionWriter& writer = *m_state.writer;
    SessionSink& sink = *m_state.sink;
    drainOnce();
    int64_t endNs = CallbackHandler::nowNs();
    sink.captureClosed(endNs, format::capture_reason::kEnd); // still open: a signal's end
    if (m_ring.active()) { // the last cut: what ended more than the ring before the end goes
        writer.commit();
        m_ring.cut(CallbackHandler::nowNs(), true);
    }
    m_probe.finish();
    sink.finishProcess(endNs);
    m_sampler.writeStats(writer, sink.stats().hostSamples);
    m_power.stop(); // here only: on the thread that finishes the writer (a signal: the writer's)
    m_power.writeStats(writer);
    m_fdeIndex.stop();
    writer.setMeta(format::meta::kFdeIndex, m_fdeIndex.describe());
    writer.setMeta(format::meta::kEndNs, std::to_string(endNs));
    if (!writer.finish(status))
        fprintf(stderr, "stallscope: writing %s failed: %s\n", m_state.outputPath.c_str(),
                writer.lastError().c_str());
    m_state.writer.reset();
}

void Recorder::stop() {
    std::lock_guard<std::mutex> stopLock(m_stopMutex);
    if (!m_state.active.load() || getpid() != m_state.pid)
        return;
    // Nothing is recorded after stop(): a program that goes on (the linked-in API, or
    // stallscope_stop through ctypes) runs without CUPTI's cost on its launches, and no record of
    // its later work waits in CUPTI's buffers for a session that is gone or the next one.
    m_capture.end(CallbackHandler::nowNs());
    m_switches.activities(false);
    // Everything CUPTI still holds, including partially filled buffers, before the writer ends.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    m_sampler.stop(); // its last samples are in its ring for the writer's last drain
    m_stopRequested.store(true);
    m_state.wakeWriter();
    if (m_thread.joinable())
        m_thread.join();
    if (!m_state.active.load())
        return; // the writer already finished (signal path)
    m_handler.setEnabled(false);
    finishWriter(format::kStatusComplete);
    m_takingBatches.store(false);
    {
        std::lock_guard<std::mutex> lock(m_batchMutex);
        m_batches.clear(); // pushed after the writer's last drain
    }
    m_state.active.store(false);
    if (m_state.subscriber) {
        cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(m_state.subscriber));
        m_state.subscriber = nullptr;
    }
}

void Recorder::onAtExit() {
    if (getpid() != m_state.pid)
        return; // a forked child: the parent owns the session
    stop();
}

void Recorder::installProcessHooks() {
    static bool installed = false;
    if (installed)
        return;
    installed = true;
    atexit(atExitTrampoline);
    pthread_atfork(nullptr, nullptr, forkChildTrampoline);
}

void Recorder::onForkChild() {
    // The child shares the parent's file and SQLite connection but not its writer thread: it must
    // never write. An exec'ed child starts afresh (injection again) and writes its own session.
    m_handler.setEnabled(false);
    m_probe.forgetAfterFork();
    m_sampler.forgetAfterFork();
    m_power.forgetAfterFork();
    m_fdeIndex.forgetAfterFork();
    m_state.active.store(false);
}

} // namespace stallscope::recorder
