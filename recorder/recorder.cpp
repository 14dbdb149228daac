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
    if (domain == CUPTI_CB_DOMAIN_NVTX || Recorder::isProfilerCallback(int(domain), cbid))
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

void Recorder::reportError(const std::string& what, int cuptiResult) {
    std::string message = what;
    if (cuptiResult != 0) {
        const char* text = nullptr;
        cuptiGetResultString(CUptiResult(cuptiResult), &text);
        message += ": ";
        message += text ? text : ("CUPTI error " + std::to_string(cuptiResult));
    }
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_diagnostics.emplace_back(CallbackHandler::nowNs(), message);
    for (const std::string& seen : m_reported)
        if (seen == what)
            return;
    m_reported.push_back(what);
    fprintf(stderr, "stallscope: %s\n", message.c_str());
}

uint8_t* Recorder::takeBuffer(size_t* size) {
    uint8_t* buffer = m_buffers.take();
    *size = buffer ? m_buffers.bufferBytes() : 0; // none: CUPTI counts the records it drops
    return buffer;
}

void Recorder::returnBuffer(uint8_t* buffer) {
    m_buffers.give(buffer);
}

void Recorder::pushBatch(std::unique_ptr<ActivityBatch> batch) {
    if (!m_takingBatches.load())
        return; // no session to write it to (after stop(): see switchActivities)
    {
        std::lock_guard<std::mutex> lock(m_queueMutex);
        m_batches.push_back(std::move(batch));
    }
    sem_post(&m_wake);
}

bool Recorder::start(const RecorderConfig& config, const char* origin) {
    std::lock_guard<std::mutex> stopLock(m_stopMutex);
    if (m_active.load() || config.disabled)
        return m_active.load();
    m_config = config;
    m_pid = getpid();
    sem_init(&m_wake, 0, 0);
    if (!subscribe())
        return false;
    const std::optional<int64_t> startNs = openSession(origin);
    if (!startNs)
        return false;
    m_sampling = prepareHostCapture();
    // Capture control may start closed: then only its triggers' callbacks are on. A trigger on
    // another thread waits until the samplers below know too.
    std::unique_lock captureLock(m_captureMutex);
    const bool capturing = startCapture(*startNs);
    startRing();
    m_probing = probeWanted();
    if (capturing)
        switchApiCallbacks(true);
    if (m_probing && m_config.experiments.probeGate)
        armGate();
    configureClock();
    configureActivityBuffers();
    switchActivities(true, capturing ? Activities::All : Activities::Descriptions);
    if (!capturing)
        keepApiRecordsUntilContext();
    m_writer->commit();
    // Injected, the recorder commits what it has on a crash (onFatalSignal); linked in, the
    // program's own handlers stay.
    startThreads(capturing, strcmp(origin, "injection") == 0);
    captureLock.unlock();
    m_power.start(m_config.gpuPowerHz);
    if (m_config.stacks && m_config.experiments.fdeIndex) // else libgcc finds each FDE
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
                static_cast<long long>(m_pid));
        return false;
    }
    if (result != CUPTI_SUCCESS) {
        reportError("cuptiSubscribe", result);
        fprintf(stderr, "stallscope: process %lld runs untraced.\n", static_cast<long long>(m_pid));
        return false;
    }
    m_subscriber = subscriber;
    return true;
}

std::optional<int64_t> Recorder::openSession(const char* origin) {
    // Read once, before the output name (%r) and the process row need it.
    const LaunchEnvironment launch = LaunchEnvironment::current();
    m_outputPath = m_config.outputPathFor(m_pid, launch.rank);
    std::string error;
    m_writer = format::SessionWriter::create(m_outputPath, &error);
    if (!m_writer) {
        fprintf(stderr, "stallscope: %s; process %lld runs untraced.\n", error.c_str(),
                static_cast<long long>(m_pid));
        cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(m_subscriber));
        m_subscriber = nullptr;
        return std::nullopt;
    }
    m_sink = std::make_unique<SessionSink>(m_writer.get());
    m_sink->setSyncRecords(m_config.wantsSyncRecords());
    const int64_t startNs = CallbackHandler::nowNs();
    m_sink->beginProcess(m_pid, hostName(), commandLine(), startNs);
    m_sink->setLaunch(launch, startNs);
    m_writer->setMeta(format::meta::kRecorderOrigin, origin);
    m_writer->setMeta(format::meta::kRecorderKinds, m_config.describeKinds());
    m_writer->setMeta(format::meta::kRecorderMode, m_config.modeName());
    m_writer->setMeta(format::meta::kRecorderStacks, m_config.stacks ? "1" : "0");
    m_writer->setMeta(format::meta::kRecorderStackDepth, std::to_string(m_config.stackDepth));
    m_writer->setMeta(format::meta::kRecorderBufferBytes, std::to_string(m_config.bufferBytes));
    m_writer->setMeta(format::meta::kRecorderFlushMs, std::to_string(m_config.flushMs));
    m_writer->setMeta(format::meta::kStartNs, std::to_string(startNs));
    if (m_config.restartOverheadNs >= 0 && m_config.launchOverheadNs >= 0 &&
        m_config.deepQueueDelayNs >= 0) {
        m_writer->setMeta(format::meta::kRecorderRestartOverheadNs,
                          std::to_string(m_config.restartOverheadNs));
        m_writer->setMeta(format::meta::kRecorderLaunchOverheadNs,
                          std::to_string(m_config.launchOverheadNs));
        m_writer->setMeta(format::meta::kGpuDeepQueueDelayNs,
                          std::to_string(m_config.deepQueueDelayNs));
    }
    uint32_t cuptiVersion = 0;
    if (cuptiGetVersion(&cuptiVersion) == CUPTI_SUCCESS)
        m_writer->setMeta(format::meta::kCuptiApiVersion, std::to_string(cuptiVersion));
    return startNs;
}

bool Recorder::prepareHostCapture() {
    if (!m_classifier.build())
        reportError("cuptiGetCallbackName returned no API names", 0);
    m_handler.setStacks(m_config.stacks, m_config.stackDepth);
    // CUDA starts the recorder on the thread that initializes it, usually the one that syncs.
    if (m_config.stacks)
        StackUnwinder::prepareThread();
    // Python frames at every stack capture when this process hosts CPython (python_frames.h).
    bool python = m_config.stacks && m_config.pythonFrames && PythonFrames::initialize();
    m_handler.setPython(python);
    if (PythonFrames::version()[0])
        m_writer->setMeta(format::meta::kPythonVersion, PythonFrames::version());
    m_writer->setMeta(format::meta::kPythonFrames, !m_config.stacks ? "off (no stacks)"
                                                   : !m_config.pythonFrames
                                                       ? "off"
                                                       : PythonFrames::status());
    // The Python sampler has its own switch: samples name host time that no CUDA call covers.
    const bool sampling =
        m_config.sampleHz > 0 && m_config.pythonFrames && PythonSampler::prepare();
    m_writer->setMeta(format::meta::kSampleHz,
                      sampling ? std::to_string(m_config.sampleHz) : std::string("0"));
    m_writer->setMeta(format::meta::kSampling, m_config.sampleHz <= 0   ? "off"
                                               : !m_config.pythonFrames ? "off (no Python frames)"
                                                                        : PythonSampler::status());
    m_writer->setMeta(format::meta::kNcclProfiler,
                      NcclCollectives::status(m_config.kernels && m_config.driverApi));
    m_handler.setEnabled(true);
    m_wantCallbacks = m_config.experiments.apiCallbacks;
    return sampling;
}

void Recorder::configureClock() {
    // One host clock (cupti_clock.h): CUPTI's timestamps plus a per-buffer offset to
    // CLOCK_MONOTONIC; the benchmarks' clock experiments register CUPTI's per-timestamp callback
    // instead or keep CUPTI's clock unconverted.
    const RecorderExperiments& experiments = m_config.experiments;
    m_writer->setMeta(format::meta::kCuptiClockVsHost, CuptiClock::describe());
    if (const std::string list = experiments.text(); !list.empty())
        m_writer->setMeta(format::meta::kRecorderExperiments, list);
    if (experiments.clock == RecorderExperiments::Clock::Cupti) {
        m_writer->setMeta(format::meta::kClockWarning,
                          "CUPTI clock kept (STALLSCOPE_EXPERIMENT=clock=cupti)");
    } else if (experiments.clock == RecorderExperiments::Clock::Callback) {
        if (const CUptiResult result = cuptiActivityRegisterTimestampCallback(monotonicTimestamp);
            result != CUPTI_SUCCESS)
            reportError(
                "cuptiActivityRegisterTimestampCallback (timestamps not on CLOCK_MONOTONIC)",
                result);
    } else {
        m_shiftClock.store(true);
    }
    m_writer->setMeta(format::meta::kRecorderClock, experiments.clockName());
}

void Recorder::configureActivityBuffers() {
    const RecorderExperiments& experiments = m_config.experiments;
    // The writer's periodic cuptiActivityFlushAll delivers the buffers, or in the flush experiment
    // CUPTI's own thread (cuptiActivityFlushPeriod).
    m_cuptiFlushes = experiments.cuptiFlushes;
    if (m_cuptiFlushes && cuptiActivityFlushPeriod(uint32_t(m_config.flushMs)) != CUPTI_SUCCESS)
        m_cuptiFlushes = false;
    m_writer->setMeta(format::meta::kRecorderFlush, m_cuptiFlushes ? "cupti" : "writer");
    CUptiResult result = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    if (result != CUPTI_SUCCESS)
        reportError("cuptiSetThreadIdType", result);
    // The pool zeroes CUPTI's buffers off the program's threads (activity_buffer_pool.h); the
    // zeroing experiment leaves it to CUPTI.
    bool poolZeroes = false;
    if (!experiments.cuptiZeroes) {
        uint8_t zeroed = 1;
        size_t attributeSize = sizeof(zeroed);
        poolZeroes = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER,
                                               &attributeSize, &zeroed) == CUPTI_SUCCESS;
    }
    m_buffers.configure(size_t(m_config.bufferBytes), poolZeroes);
    m_writer->setMeta(format::meta::kRecorderBufferZeroing, poolZeroes ? "recorder" : "cupti");
    m_buffers.keepReady();
    m_takingBatches.store(true);
    if ((result = cuptiActivityRegisterCallbacks(bufferRequestedTrampoline,
                                                 bufferCompletedTrampoline)) != CUPTI_SUCCESS)
        reportError("cuptiActivityRegisterCallbacks", result);
}

void Recorder::startThreads(bool capturing, bool signalHandlers) { // under m_captureMutex
    installProcessHooks();
    if (signalHandlers)
        installSignalHandlers();
    m_stopRequested = false;
    m_active.store(true, std::memory_order_release);
    EventRing::setWakeup(wakeWriter);
    m_thread = std::thread([this] { writerLoop(); });
    if (m_sampling) {
        m_sampler.setPaused(!capturing);
        m_sampler.start(m_config.sampleHz, m_config.experiments.sampler);
    }
    m_power.setPaused(!capturing);
}

void Recorder::drainRings() {
    struct Context {
        SessionSink* sink;
        OverheadProbe* probe; // null when it does not watch
        int64_t dropped;
    } context{m_sink.get(), m_probing && !m_probe.found() ? &m_probe : nullptr, 0};
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
        m_sink->addDropped(CallbackHandler::nowNs(), format::dropped_source::kHostEventRing,
                           context.dropped);
}

void Recorder::drainOnce(bool stepsProbe) {
    const std::vector<CaptureControl::Transition> transitions = takeCaptureTransitions();
    drainRings();
    std::vector<std::unique_ptr<ActivityBatch>> batches;
    std::vector<std::pair<int64_t, std::string>> diagnostics;
    {
        std::lock_guard<std::mutex> lock(m_queueMutex);
        batches.swap(m_batches);
        diagnostics.swap(m_diagnostics);
    }
    for (std::unique_ptr<ActivityBatch>& batch : batches) {
        m_sink->consumeBatch(*batch);
        batch.reset();
        // Writing a full activity buffer takes tens of milliseconds, in which a thread that
        // syncs thousands of times a second fills its ring: empty the rings between buffers.
        drainRings();
        // Nor may a backlog of buffers keep the probe's stretch off past its time.
        if (stepsProbe)
            stepProbe(CallbackHandler::nowNs());
    }
    for (auto& [at, message] : diagnostics)
        m_writer->addDiagnostic(at, "error", message);
    writeCaptureTransitions(transitions);
}

void Recorder::writerLoop() {
    pthread_setname_np(pthread_self(), "stallscope-wr");
    m_writerTid.store(gettid());
    // The writer thread must not be interrupted by the signals we forward to it via sem_post.
    sigset_t mask;
    sigemptyset(&mask);
    for (int s : {SIGINT, SIGTERM, SIGHUP})
        sigaddset(&mask, s);
    pthread_sigmask(SIG_BLOCK, &mask, nullptr);

    int64_t lastFlush = CallbackHandler::nowNs();
    int64_t lastCommit = lastFlush;
    const int64_t periodNs = int64_t(m_config.flushMs) * 1000000;
    while (true) {
        // Half a period, or sooner when capture control waits for a time (delay, duration).
        const int64_t wakeNs =
            std::min({CallbackHandler::nowNs() + periodNs / 2, m_captureDeadlineNs.load(),
                      m_probing ? probeDeadlineNs() : INT64_MAX});
        const timespec deadline{time_t(wakeNs / 1000000000), long(wakeNs % 1000000000)};
        while (sem_clockwait(&m_wake, CLOCK_MONOTONIC, &deadline) != 0 && errno == EINTR) {
        }
        if (const int fatal = m_fatalSignal.load()) {
            commitAfterCrash(fatal);
            return; // the process is going down; nothing more is written
        }
        int signal = m_pendingSignal.exchange(0);
        bool stopping = m_stopRequested.load() || signal != 0;
        int64_t now = CallbackHandler::nowNs();
        if (now >= m_captureDeadlineNs.load())
            advanceCapture(now);
        if (signal != 0) {
            cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        } else if (!stopping && !m_cuptiFlushes && now - lastFlush >= periodNs) {
            cuptiActivityFlushAll(0);
            lastFlush = now;
        }
        const bool probing = m_probing && !stopping;
        if (probing)
            stepProbe(now);
        drainOnce(probing);
        if (probing)
            stepProbe(CallbackHandler::nowNs());
        m_buffers.keepReady();
        m_sink->expirePending(now, kJoinMaxAgeNs);
        m_sink->refreshModules(now);
        if (stopping) {
            if (signal != 0) {
                // The recording is whole up to the signal, but the program's run was cut short.
                m_writer->setMeta(format::meta::kTerminatedBySignal, std::to_string(signal));
                m_writer->setMeta(format::meta::kIncompleteReason, signalReason(signal));
                finishWriter(format::kStatusIncomplete);
                m_active.store(false);
                ::signal(signal, SIG_DFL);
                kill(getpid(), signal);
            }
            return;
        }
        const bool committing = now - lastCommit >= periodNs;
        if (committing) {
            m_writer->commit();
            lastCommit = now;
        }
        stepRing(now, committing);
    }
}

void Recorder::finishWriter(std::string_view status) {
    if (!m_writer)
        return;
    drainOnce();
    int64_t endNs = CallbackHandler::nowNs();
    m_sink->captureClosed(endNs, format::capture_reason::kEnd); // still open: a signal's end
    if (m_flight) { // the last cut: what ended more than the ring before the end goes
        m_writer->commit();
        cutRing(CallbackHandler::nowNs(), true);
    }
    if (m_probing)
        finishProbe();
    m_sink->finishProcess(endNs);
    m_sampler.writeStats(*m_writer, m_sink->stats().hostSamples);
    m_power.stop(); // here only: on the thread that finishes the writer (a signal: the writer's)
    m_power.writeStats(*m_writer);
    m_fdeIndex.stop();
    m_writer->setMeta(format::meta::kFdeIndex, m_fdeIndex.describe());
    m_writer->setMeta(format::meta::kEndNs, std::to_string(endNs));
    if (!m_writer->finish(status))
        fprintf(stderr, "stallscope: writing %s failed: %s\n", m_outputPath.c_str(),
                m_writer->lastError().c_str());
    m_writer.reset();
}

void Recorder::stop() {
    std::lock_guard<std::mutex> stopLock(m_stopMutex);
    if (!m_active.load() || getpid() != m_pid)
        return;
    // Nothing is recorded after stop(): a program that goes on (the linked-in API, or
    // stallscope_stop through ctypes) runs without CUPTI's cost on its launches, and no record of
    // its later work waits in CUPTI's buffers for a session that is gone or the next one.
    endCapture(CallbackHandler::nowNs());
    switchActivities(false);
    // Everything CUPTI still holds, including partially filled buffers, before the writer ends.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    m_sampler.stop(); // its last samples are in its ring for the writer's last drain
    m_stopRequested.store(true);
    sem_post(&m_wake);
    if (m_thread.joinable())
        m_thread.join();
    if (!m_active.load())
        return; // the writer already finished (signal path)
    m_handler.setEnabled(false);
    finishWriter(format::kStatusComplete);
    m_takingBatches.store(false);
    {
        std::lock_guard<std::mutex> lock(m_queueMutex);
        m_batches.clear(); // pushed after the writer's last drain
    }
    m_active.store(false);
    if (m_subscriber) {
        cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(m_subscriber));
        m_subscriber = nullptr;
    }
}

void Recorder::onAtExit() {
    if (getpid() != m_pid)
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
    m_gated.store(false);
    m_gate.reset(); // no writer thread here to open it
    m_sampler.forgetAfterFork();
    m_power.forgetAfterFork();
    m_fdeIndex.forgetAfterFork();
    m_active.store(false);
}

} // namespace stallscope::recorder
