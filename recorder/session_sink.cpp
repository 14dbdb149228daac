#include "recorder/session_sink.h"

#include "format/session_meta.h"
#include "recorder/api_classifier.h"
#include "recorder/nccl_collectives.h"
#include "recorder/row_id_cache.h"

#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace stallscope::recorder {

namespace {

using format::SyncKind;

int64_t monotonicNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string threadName(int64_t pid, int32_t tid) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/%lld/task/%d/comm", static_cast<long long>(pid), tid);
    FILE* file = fopen(path, "re");
    if (!file)
        return {};
    char buffer[64] = {};
    size_t n = fread(buffer, 1, sizeof(buffer) - 1, file);
    fclose(file);
    std::string name(buffer, n);
    while (!name.empty() && (name.back() == '\n' || name.back() == '\0'))
        name.pop_back();
    return name;
}

constexpr uint32_t kInvalidId = 0xffffffffu; // CUPTI_SYNCHRONIZATION_INVALID_VALUE and friends

// Copies what every timed activity row takes from its CUPTI record: its span and correlation id.
template <class Row> void copyTiming(const ActivityRecord& r, Row& row) {
    row.startNs = r.startNs;
    row.endNs = r.endNs;
    row.correlationId = r.correlationId;
}

// Why a timed record cannot become an event, or nullptr when it can. CUPTI leaves the end (or
// both times) zero on records cut short by teardown — a forced flush while the work still ran —
// and a record ending before it starts has no duration to show; either written as an event would
// stretch the session's span or every share computed from it.
const char* invalidTiming(const ActivityRecord& r) {
    switch (r.kind) {
    case ActivityRecord::Kind::Kernel:
    case ActivityRecord::Kind::Memcpy:
    case ActivityRecord::Kind::Memset:
    case ActivityRecord::Kind::Sync:
    case ActivityRecord::Kind::Api:
        if (r.startNs <= 0 || r.endNs <= 0)
            return format::dropped_source::kIncompleteRecord;
        if (r.endNs < r.startNs)
            return format::dropped_source::kEndBeforeStart;
        return nullptr;
    default:
        return nullptr;
    }
}

} // namespace

SessionSink::SessionSink(format::SessionWriter* writer)
    : m_writer(writer), m_stackInterner(writer, [this](uintptr_t pc) { return moduleRowFor(pc); }),
      m_ranges(writer, [this](int32_t tid) { return threadRow(tid ? tid : int32_t(m_pid)); }) {}

void SessionSink::captureOpened(int64_t atNs, const std::string& reason) {
    if (m_captureRow != 0)
        captureClosed(atNs, reason); // never two open: the recorder alternates them
    m_captureRow = m_writer->addCaptureInterval({m_processId, atNs, std::nullopt, reason, {}});
}

void SessionSink::captureClosed(int64_t atNs, const std::string& reason) {
    if (m_captureRow == 0)
        return;
    m_writer->endCaptureInterval(m_captureRow, atNs, reason);
    m_captureRow = 0;
    m_stats.events.ranges += m_ranges.closeOpenBy(atNs); // their ends are not recorded
}

void SessionSink::beginProcess(int64_t pid, const std::string& host, const std::string& command,
                               int64_t startNs) {
    m_pid = pid;
    format::ProcessRow row;
    row.pid = pid;
    row.host = host;
    row.command = command;
    row.startNs = startNs;
    m_processId = m_writer->addProcess(row);
    m_mainThreadRow = threadRow(int32_t(pid));
    refreshModules(startNs);
}

void SessionSink::setLaunch(const LaunchEnvironment& launch, int64_t atNs) {
    for (const std::string& message : launch.diagnostics)
        m_writer->addDiagnostic(atNs, "warning", "launcher environment: " + message);
    if (!launch.rank)
        return;
    format::ProcessRankRow row;
    row.processId = m_processId;
    row.rank = *launch.rank;
    row.localRank = launch.localRank;
    row.worldSize = launch.worldSize;
    row.launcher = launch.launcher;
    m_writer->addProcessRank(row);
}

int64_t SessionSink::threadRow(int32_t tid) {
    return rowIdFor(m_threads, tid, [&] {
        format::ThreadRow row;
        row.processId = m_processId;
        row.tid = tid;
        row.name = threadName(m_pid, tid);
        return m_writer->addThread(row);
    });
}

int64_t SessionSink::deviceRow(uint32_t deviceId) {
    return rowIdFor(m_devices, deviceId, [&] {
        // Placeholder until (or unless) CUPTI's DEVICE record names it.
        format::DeviceRow row;
        row.processId = m_processId;
        row.deviceIndex = deviceId;
        row.name = "GPU " + std::to_string(deviceId);
        return m_writer->addDevice(row);
    });
}

int64_t SessionSink::streamRow(uint32_t contextId, uint32_t streamId, uint32_t deviceId,
                               bool deviceKnown) {
    uint64_t key = (uint64_t(contextId) << 32) | streamId;
    auto it = m_streams.find(key);
    if (it != m_streams.end())
        return it->second;
    if (!deviceKnown) {
        auto context = m_contextDevice.find(contextId);
        deviceId = context != m_contextDevice.end() ? context->second : 0;
    }
    format::StreamRow row;
    row.deviceId = deviceRow(deviceId);
    row.contextId = contextId;
    row.streamId = streamId;
    auto nullStream = m_contextNullStream.find(contextId);
    row.isDefault = nullStream != m_contextNullStream.end() && nullStream->second == streamId;
    int64_t id = m_writer->addStream(row);
    m_streams.emplace(key, id);
    return id;
}

void SessionSink::refreshModules(int64_t nowNs) {
    for (const ModuleTable::Module& module : m_modules.refresh()) {
        format::ModuleRow row;
        row.processId = m_processId;
        row.path = module.path;
        row.loadBias = int64_t(module.loadBias);
        row.startAddress = int64_t(module.start);
        row.endAddress = int64_t(module.end);
        row.buildId = module.buildId;
        row.loadedNs = nowNs;
        m_moduleRowByStart[module.start] = m_writer->addModule(row);
    }
}

int64_t SessionSink::moduleRowFor(uintptr_t pc) {
    int index = m_modules.find(pc);
    if (index < 0 && m_modules.changed()) {
        refreshModules(monotonicNs());
        index = m_modules.find(pc);
    }
    if (index < 0)
        return -1;
    auto it = m_moduleRowByStart.find(m_modules.modules()[size_t(index)].start);
    return it == m_moduleRowByStart.end() ? -1 : it->second;
}

int64_t SessionSink::apiName(uint8_t domain, uint32_t cbid) {
    uint64_t key = (uint64_t(domain) << 32) | cbid;
    auto it = m_apiNames.find(key);
    if (it != m_apiNames.end())
        return it->second;
    const char* name = nullptr;
    std::string text;
    if (cuptiGetCallbackName(CUpti_CallbackDomain(domain), cbid, &name) == CUPTI_SUCCESS && name)
        text = name;
    else
        text = (domain == 1 ? "driver#" : "runtime#") + std::to_string(cbid);
    int64_t id = m_writer->internString(text);
    m_apiNames.emplace(key, id);
    return id;
}

void SessionSink::consumeHostEvent(const HostEvent& event) {
    if (event.type == HostEvent::Type::Scope) {
        // A braced list runs left to right: the thread row is written before the name string.
        m_writer->addRange({threadRow(event.tid), format::RangeKind::Scope,
                            m_writer->internString(event.name), event.startNs, event.endNs,
                            event.depth});
        ++m_stats.events.ranges;
        return;
    }
    if (event.type == HostEvent::Type::Sample) {
        consumeSample(event);
        return;
    }
    if (event.captureNs) {
        ++m_stats.stackCaptures;
        m_nativeCapture.add(event.captureNs);
        (event.captureMisses ? m_coldCapture : m_warmCapture).add(event.captureNs);
    }
    if (event.pythonCaptureNs)
        m_pythonCapture.add(event.pythonCaptureNs);
    PendingHost host;
    host.threadId = threadRow(event.tid);
    host.apiClass = event.apiClass;
    host.startNs = event.startNs;
    host.endNs = event.endNs;
    int64_t stacksBefore = m_stackInterner.stacksWritten();
    host.stackId = m_stackInterner.stackRow(event);
    m_stats.stacks += m_stackInterner.stacksWritten() - stacksBefore;
    host.seenNs = monotonicNs();
    host.correlationId = event.correlationId;
    host.contextId = event.contextId;
    host.deviceId = event.deviceId;
    host.streamId = event.streamId;
    auto c = ApiClass(event.apiClass);
    if (m_stepClock && (ApiClassifier::isSync(c) || ApiClassifier::isCopy(c)))
        m_stepClock->syncBegan(host.stackId, host.startNs);
    if (ApiClassifier::isSync(c)) {
        // A free's wait has no CUPTI synchronization record: the host event is the sync.
        if (!m_syncRecords || c == ApiClass::Free) {
            emitSync(&host, nullptr, m_mainThreadRow);
            return;
        }
        auto record = m_pendingSyncRecords.find(event.correlationId);
        if (record != m_pendingSyncRecords.end()) {
            emitSync(&host, &record->second, m_mainThreadRow);
            m_pendingSyncRecords.erase(record);
            return;
        }
    } else if (ApiClassifier::isCopy(c)) {
        auto copy = m_pendingCopies.find(event.correlationId);
        if (copy != m_pendingCopies.end()) {
            emitCopySync(host, &copy->second);
            m_pendingCopies.erase(copy);
            return;
        }
    } else {
        return;
    }
    m_pendingHost[event.correlationId] = host;
}

void SessionSink::consumeSample(const HostEvent& event) {
    const int64_t stacksBefore = m_stackInterner.stacksWritten();
    const int64_t stack = m_stackInterner.stackRow(event);
    m_stats.stacks += m_stackInterner.stacksWritten() - stacksBefore;
    if (stack < 0)
        return;
    ++m_stats.hostSamples;
    auto [entry, added] = m_sampleRuns.try_emplace(event.tid);
    SampleRun& run = entry->second;
    // The same stack at the thread's next tick: the run goes on (a missed tick ends it).
    if (!added && run.row.stackId == stack && event.correlationId == run.lastTick + 1 &&
        event.startNs >= run.row.endNs) {
        run.row.endNs = event.startNs;
        ++run.row.samples;
        run.lastTick = event.correlationId;
        return;
    }
    if (!added)
        writeSampleRun(run);
    run.row = {threadRow(event.tid), event.startNs, event.startNs, 1, stack};
    run.lastTick = event.correlationId;
}

void SessionSink::writeSampleRun(const SampleRun& run) {
    m_writer->addHostSample(run.row);
    ++m_stats.hostSampleRows;
}

void SessionSink::emitSync(const PendingHost* host, const ActivityRecord* record,
                           int64_t fallbackThread) {
    format::SyncRow row;
    row.threadId = host ? host->threadId : fallbackThread;
    ApiClass c = host ? ApiClass(host->apiClass) : ApiClass::None;
    uint32_t type = record ? record->syncType : 0;
    switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
        row.kind = SyncKind::Event;
        break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
        row.kind = SyncKind::StreamWaitEvent;
        break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
        row.kind = SyncKind::Stream;
        break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
        row.kind = SyncKind::Device;
        break;
    default:
        row.kind = c == ApiClass::Free              ? SyncKind::BlockingAlloc
                   : c == ApiClass::EventSync       ? SyncKind::Event
                   : c == ApiClass::StreamWaitEvent ? SyncKind::StreamWaitEvent
                   : c == ApiClass::DeviceSync      ? SyncKind::Device
                                                    : SyncKind::Stream;
    }
    if (record) {
        row.startNs = record->startNs;
        row.endNs = record->endNs;
        row.correlationId = record->correlationId;
        if (record->streamId != kInvalidId)
            row.streamId = streamRow(record->contextId, record->streamId, 0, false);
        if (record->eventId != kInvalidId)
            row.eventId = record->eventId;
    } else if (host) {
        row.startNs = host->startNs;
        row.endNs = host->endNs;
        row.correlationId = host->correlationId;
        if (host->deviceId != HostEvent::kNoStream)
            m_contextDevice.emplace(host->contextId, host->deviceId);
        if (host->streamId != HostEvent::kNoStream)
            row.streamId = streamRow(host->contextId, host->streamId, host->deviceId,
                                     host->deviceId != HostEvent::kNoStream);
    }
    if (host && host->stackId >= 0)
        row.stackId = host->stackId;
    m_writer->addSync(row);
    ++m_stats.events.syncs;
}

void SessionSink::emitCopySync(const PendingHost& host, const PendingCopy* copy) {
    // A copy between the device and pageable host memory, either way: the driver stages it
    // through its own pinned buffer while the host waits, even for cudaMemcpyAsync (a batch
    // moved with .to("cuda", non_blocking=True) from ordinary memory).
    const auto pageable = uint8_t(format::MemoryKind::Pageable);
    const bool pageableHost =
        copy && ((copy->copyKind == uint8_t(format::CopyKind::DtoH) && copy->dstKind == pageable) ||
                 (copy->copyKind == uint8_t(format::CopyKind::HtoD) && copy->srcKind == pageable));
    format::SyncRow row;
    if (ApiClass(host.apiClass) == ApiClass::CopySync)
        row.kind = pageableHost ? SyncKind::PageableCopy : SyncKind::BlockingCopy;
    else if (pageableHost)
        row.kind = SyncKind::PageableCopy;
    else
        return; // an async copy that did not block the host
    row.threadId = host.threadId;
    row.startNs = host.startNs;
    row.endNs = host.endNs;
    if (copy && copy->streamRow >= 0)
        row.streamId = copy->streamRow;
    if (host.stackId >= 0)
        row.stackId = host.stackId;
    row.correlationId = copy ? copy->correlationId : host.correlationId;
    m_writer->addSync(row);
    ++m_stats.events.syncs;
}

void SessionSink::consumeBatch(const ActivityBatch& batch) {
    int64_t incomplete = 0, endBeforeStart = 0;
    for (const ActivityRecord& r : batch.records) {
        if (const char* reason = invalidTiming(r)) {
            ++(reason == format::dropped_source::kIncompleteRecord ? incomplete : endBeforeStart);
            continue;
        }
        switch (r.kind) {
        case ActivityRecord::Kind::Kernel: {
            format::KernelRow row;
            row.streamId = streamRow(r.contextId, r.streamId, r.deviceId, true);
            row.nameId = m_writer->internString(batch.text(r.nameOffset, r.nameLength));
            copyTiming(r, row);
            for (int i = 0; i < 3; ++i) {
                row.grid[i] = r.grid[i];
                row.block[i] = r.block[i];
            }
            row.registersPerThread = r.registers;
            row.staticSharedBytes = r.staticShared;
            row.dynamicSharedBytes = r.dynamicShared;
            m_writer->addKernel(row);
            ++m_stats.events.kernels;
            break;
        }
        case ActivityRecord::Kind::Memcpy: {
            format::MemcpyRow row;
            row.streamId = streamRow(r.contextId, r.streamId, r.deviceId, true);
            copyTiming(r, row);
            row.copyKind = format::CopyKind(r.copyKind);
            row.srcKind = format::MemoryKind(r.srcKind);
            row.dstKind = format::MemoryKind(r.dstKind);
            row.bytes = int64_t(r.bytes);
            row.isAsync = r.isAsync;
            m_writer->addMemcpy(row);
            ++m_stats.events.memcpys;
            PendingCopy copy{r.copyKind,   r.dstKind,     r.srcKind,
                             row.streamId, monotonicNs(), r.correlationId};
            auto host = m_pendingHost.find(r.correlationId);
            if (host != m_pendingHost.end() &&
                ApiClassifier::isCopy(ApiClass(host->second.apiClass))) {
                emitCopySync(host->second, &copy);
                m_pendingHost.erase(host);
            } else {
                m_pendingCopies[r.correlationId] = copy;
            }
            break;
        }
        case ActivityRecord::Kind::Memset: {
            format::MemsetRow row;
            row.streamId = streamRow(r.contextId, r.streamId, r.deviceId, true);
            copyTiming(r, row);
            row.value = r.value;
            row.bytes = int64_t(r.bytes);
            row.dstKind = format::MemoryKind(r.dstKind);
            row.isAsync = r.isAsync;
            m_writer->addMemset(row);
            ++m_stats.events.memsets;
            break;
        }
        case ActivityRecord::Kind::Sync: {
            if (!m_syncRecords)
                break; // the callbacks' host events are the syncs (setSyncRecords)
            auto host = m_pendingHost.find(r.correlationId);
            if (host != m_pendingHost.end()) {
                emitSync(&host->second, &r, m_mainThreadRow);
                m_pendingHost.erase(host);
            } else {
                ActivityRecord copy = r;
                copy.tid = int32_t(monotonicNs() / 1000000); // arrival, in ms, for expiry
                m_pendingSyncRecords[r.correlationId] = copy;
            }
            break;
        }
        case ActivityRecord::Kind::Api: {
            format::ApiCallRow row;
            row.threadId = threadRow(r.tid);
            row.domain = r.domain == 1 ? format::ApiDomain::Driver : format::ApiDomain::Runtime;
            row.cbid = r.cbid;
            row.nameId = apiName(r.domain, r.cbid);
            copyTiming(r, row);
            row.returnCode = r.returnValue;
            m_writer->addApiCall(row);
            ++m_stats.events.apiCalls;
            break;
        }
        case ActivityRecord::Kind::Device: {
            const auto placeholder = m_devices.find(r.deviceId);
            if (placeholder != m_devices.end() && m_namedDevices.count(r.deviceId))
                break;
            format::DeviceRow row;
            row.processId = m_processId;
            row.deviceIndex = r.deviceId;
            row.name = std::string(batch.text(r.nameOffset, r.nameLength));
            static const char digits[] = "0123456789abcdef";
            row.uuid = "GPU-";
            for (int i = 0; i < 16; ++i) {
                row.uuid += digits[r.uuid[i] >> 4];
                row.uuid += digits[r.uuid[i] & 15];
                if (i == 3 || i == 5 || i == 7 || i == 9)
                    row.uuid += '-';
            }
            row.computeMajor = r.computeMajor;
            row.computeMinor = r.computeMinor;
            row.smCount = r.value;
            row.globalMemoryBytes = int64_t(r.bytes);
            // A stream named the device first (a sync before this record): complete its row.
            if (placeholder != m_devices.end())
                m_writer->updateDevice(placeholder->second, row);
            else
                m_devices.emplace(r.deviceId, m_writer->addDevice(row));
            m_namedDevices.insert(r.deviceId);
            break;
        }
        case ActivityRecord::Kind::Context:
            m_contextDevice[r.contextId] = r.deviceId;
            m_contextNullStream[r.contextId] = r.streamId;
            break;
        case ActivityRecord::Kind::Marker:
            m_stats.events.ranges += m_ranges.onMarker(r, batch.text(r.nameOffset, r.nameLength));
            break;
        case ActivityRecord::Kind::CudaEvent: {
            format::CudaEventRow row;
            row.streamId = streamRow(r.contextId, r.streamId, r.deviceId, true);
            row.eventId = r.eventId;
            row.correlationId = r.correlationId;
            row.recordNs = r.startNs;
            m_writer->addCudaEvent(row);
            break;
        }
        case ActivityRecord::Kind::ExternalCorrelation:
            if (std::optional<format::CollectiveCallRow> call =
                    NcclCollectives::take(r.externalId)) {
                call->processId = m_processId;
                call->correlationId = r.correlationId;
                m_writer->addCollectiveCall(*call);
                ++m_stats.collectiveCalls;
            }
            break;
        }
    }
    const int64_t now = monotonicNs();
    if (batch.droppedRecords)
        addDropped(now, format::dropped_source::kActivityBuffer, int64_t(batch.droppedRecords));
    if (incomplete)
        addDropped(now, format::dropped_source::kIncompleteRecord, incomplete);
    if (endBeforeStart)
        addDropped(now, format::dropped_source::kEndBeforeStart, endBeforeStart);
}

void SessionSink::addDropped(int64_t atNs, const char* source, int64_t count) {
    format::DroppedRow row;
    row.processId = m_processId;
    row.atNs = atNs;
    row.source = source;
    row.count = count;
    m_writer->addDropped(row);
    if (std::string_view(source) == format::dropped_source::kHostEventRing)
        m_stats.droppedHostEvents += count;
    else
        m_stats.droppedRecords += count;
}

void SessionSink::expirePending(int64_t nowNs, int64_t maxAgeNs) {
    for (auto it = m_pendingHost.begin(); it != m_pendingHost.end();) {
        if (maxAgeNs && nowNs - it->second.seenNs < maxAgeNs) {
            ++it;
            continue;
        }
        ApiClass c = ApiClass(it->second.apiClass);
        if (ApiClassifier::isSync(c))
            emitSync(&it->second, nullptr, m_mainThreadRow);
        else if (c == ApiClass::CopySync)
            emitCopySync(it->second, nullptr);
        it = m_pendingHost.erase(it);
    }
    int64_t nowMs = nowNs / 1000000;
    for (auto it = m_pendingSyncRecords.begin(); it != m_pendingSyncRecords.end();) {
        if (maxAgeNs && nowMs - it->second.tid < maxAgeNs / 1000000) {
            ++it;
            continue;
        }
        emitSync(nullptr, &it->second, m_mainThreadRow);
        ++m_stats.unmatchedSyncRecords;
        it = m_pendingSyncRecords.erase(it);
    }
    for (auto it = m_pendingCopies.begin(); it != m_pendingCopies.end();) {
        if (maxAgeNs && nowNs - it->second.seenNs < maxAgeNs)
            ++it;
        else
            it = m_pendingCopies.erase(it);
    }
    // A thread that keeps one stack (idle in a wait) is written a run per maxAgeNs, so that a
    // process killed without warning loses at most that much of its samples.
    for (auto it = m_sampleRuns.begin(); it != m_sampleRuns.end();) {
        if (maxAgeNs && nowNs - it->second.row.startNs < maxAgeNs) {
            ++it;
            continue;
        }
        writeSampleRun(it->second);
        it = m_sampleRuns.erase(it);
    }
}

void SessionSink::finishProcess(int64_t endNs) {
    expirePending(endNs, 0);
    m_writer->setMeta(format::meta::kStackCaptureCount, std::to_string(m_stats.stackCaptures));
    m_writer->setMeta(format::meta::kStackCaptureMedianNs, std::to_string(captureMedianNs()));
    m_writer->setMeta(format::meta::kStackCaptureP90Ns, std::to_string(capturePercentileNs(0.9)));
    m_writer->setMeta(format::meta::kStackCaptureWarmCount, std::to_string(m_warmCapture.count()));
    m_writer->setMeta(format::meta::kStackCaptureWarmMedianNs,
                      std::to_string(m_warmCapture.percentile(0.5)));
    m_writer->setMeta(format::meta::kStackCaptureColdCount, std::to_string(m_coldCapture.count()));
    m_writer->setMeta(format::meta::kStackCaptureColdMedianNs,
                      std::to_string(m_coldCapture.percentile(0.5)));
    if (m_pythonCapture.count()) {
        m_writer->setMeta(format::meta::kPythonCaptureCount,
                          std::to_string(m_pythonCapture.count()));
        m_writer->setMeta(format::meta::kPythonCaptureMedianNs,
                          std::to_string(m_pythonCapture.percentile(0.5)));
        m_writer->setMeta(format::meta::kPythonCaptureP90Ns,
                          std::to_string(m_pythonCapture.percentile(0.9)));
    }
    m_writer->setMeta(format::meta::kDroppedRecords, std::to_string(m_stats.droppedRecords));
    m_writer->setMeta(format::meta::kNcclCollectiveCalls, std::to_string(m_stats.collectiveCalls));
    m_writer->setMeta(format::meta::kDroppedHostEvents, std::to_string(m_stats.droppedHostEvents));
    m_writer->finishProcess(m_processId, endNs, std::nullopt);
}

} // namespace stallscope::recorder
