#include "model/interop/kineto_converter.h"

#include "format/module_class.h"
#include "format/session_meta.h"
#include "format/session_writer.h"
#include "model/interop/kineto_names.h"
#include "model/session/python_frame_name.h"

#include <algorithm>
#include <climits>

namespace stallscope::model {

using format::SyncKind;

namespace {
constexpr int64_t kCommitEvery = 200000; // rows per transaction: bounds the WAL
constexpr int64_t kPollEvery = 1 << 16;

int64_t pairKey(int64_t a, int64_t b) {
    return (a << 32) ^ (b & 0xffffffff);
}

// Copies what every timed row takes from its Kineto event: its span and correlation id.
template <class Row> void copyTiming(const KinetoEvent& e, Row& row) {
    row.startNs = e.tsNs;
    row.endNs = e.endNs();
    row.correlationId = e.correlation;
}
} // namespace

KinetoConverter::KinetoConverter(format::SessionWriter& writer) : m_writer(writer) {}
KinetoConverter::~KinetoConverter() = default;

void KinetoConverter::beginFile(const std::string&, const std::string& displayName) {
    m_fileName = displayName;
    m_processRow = 0;
    m_hostPid = -1;
    m_rank = -1;
    m_firstNs = INT64_MAX;
    m_lastNs = INT64_MIN;
    m_fileEvents = m_fileKnownEvents = m_fileExplicitSyncs = 0;
    m_fileIsExport = false;
    m_deviceProperties.clear();
    m_devices.clear();
    m_streams.clear();
    m_threadIndex.clear();
    m_annotationIndex.clear();
    m_threads.clear();
    m_exportStacks.clear();
    m_threadResolver.clearFile();
    m_threadNames.clear();
    m_pythonCalls.clear();
    m_opChains.clearFile();
    m_window.clear();
    m_span = {};
    m_eventRecords.clear();
    ++m_stats.files;
}

void KinetoConverter::onDeviceProperties(const KinetoDeviceProperties& device) {
    if (device.id >= 0)
        m_deviceProperties[device.id] = device;
}

void KinetoConverter::countRow() {
    ++m_stats.rows;
    if (++m_rowsSinceCommit >= kCommitEvery) {
        m_writer.commit();
        m_rowsSinceCommit = 0;
    }
}

int64_t KinetoConverter::stringId(std::string_view text) {
    auto it = m_strings.find(text);
    if (it != m_strings.end())
        return it->second;
    const int64_t id = m_writer.internString(text);
    m_strings.emplace(std::string(text), id);
    return id;
}

int64_t KinetoConverter::processRow(const KinetoEvent& event, bool hostEvent) {
    if (m_processRow != 0)
        return m_processRow;
    // Kineto writes host events (cpu_op, python_function) before GPU activity, so the host pid
    // is normally known here; a GPU-first file gets pid 0.
    format::ProcessRow row;
    row.pid = hostEvent && event.pidIsNumber ? event.pid : 0;
    row.host = "";
    row.command = "torch.profiler trace " + m_fileName;
    if (m_rank >= 0)
        row.command += " (rank " + std::to_string(m_rank) + ")";
    row.startNs = event.hasTs ? event.tsNs : 0;
    m_hostPid = row.pid;
    m_processRow = m_writer.addProcess(row);
    return m_processRow;
}

KinetoConverter::ThreadState& KinetoConverter::hostThread(const KinetoEvent& event) {
    const int64_t tid = event.tidIsNumber ? event.tid : 0;
    auto it = m_threadIndex.find(tid);
    if (it != m_threadIndex.end())
        return *m_threads[it->second];
    auto state = std::make_unique<ThreadState>();
    state->tid = tid;
    state->index = static_cast<uint32_t>(m_threads.size());
    state->row = m_writer.addThread({processRow(event, true), tid, ""});
    m_threadIndex.emplace(tid, m_threads.size());
    m_threads.push_back(std::move(state));
    return *m_threads.back();
}

// gpu_user_annotation ranges live on a GPU stream, but ranges belong to threads: they get a
// pseudo thread per stream, tid = -(device * 1'000'000 + stream) - 1, named after the stream
// (computed unsigned: absurd ids from a trace wrap instead of overflowing).
KinetoConverter::ThreadState& KinetoConverter::annotationThread(int64_t device, int64_t stream) {
    const int64_t key = pairKey(device, stream);
    auto it = m_annotationIndex.find(key);
    if (it != m_annotationIndex.end())
        return *m_threads[it->second];
    auto state = std::make_unique<ThreadState>();
    state->tid = static_cast<int64_t>(
        ~(static_cast<uint64_t>(device) * 1000000u + static_cast<uint64_t>(stream)));
    state->index = static_cast<uint32_t>(m_threads.size());
    KinetoEvent none;
    const std::string name =
        "GPU " + std::to_string(device) + " stream " + std::to_string(stream) + " annotations";
    state->row = m_writer.addThread({processRow(none, false), state->tid, name});
    m_annotationIndex.emplace(key, m_threads.size());
    m_threads.push_back(std::move(state));
    return *m_threads.back();
}

int64_t KinetoConverter::deviceRow(int64_t deviceIndex) {
    auto it = m_devices.find(deviceIndex);
    if (it != m_devices.end())
        return it->second;
    format::DeviceRow row;
    KinetoEvent none;
    row.processId = processRow(none, false);
    row.deviceIndex = deviceIndex; // no name without properties: labels say "GPU N" already
    auto props = m_deviceProperties.find(deviceIndex);
    if (props != m_deviceProperties.end()) {
        row.name = props->second.name;
        row.computeMajor = props->second.computeMajor;
        row.computeMinor = props->second.computeMinor;
        row.smCount = props->second.numSms;
        row.globalMemoryBytes = props->second.totalGlobalMem;
    }
    const int64_t id = m_writer.addDevice(row);
    m_devices.emplace(deviceIndex, id);
    return id;
}

int64_t KinetoConverter::streamRow(int64_t deviceIndex, int64_t stream, int64_t context) {
    const int64_t key = pairKey(deviceIndex, stream);
    auto it = m_streams.find(key);
    if (it != m_streams.end())
        return it->second;
    format::StreamRow row;
    row.deviceId = deviceRow(deviceIndex);
    row.contextId = context;
    row.streamId = stream;
    row.isDefault = stream == 0; // CUPTI's legacy default stream id
    const int64_t id = m_writer.addStream(row);
    m_streams.emplace(key, id);
    return id;
}

int64_t KinetoConverter::gpuDevice(const KinetoEvent& e) const {
    return e.device >= 0 ? e.device : (e.pidIsNumber ? e.pid : 0);
}

int64_t KinetoConverter::gpuStream(const KinetoEvent& e) const {
    return e.stream >= 0 ? e.stream : (e.tidIsNumber ? e.tid : 0);
}

template <class Row> void KinetoConverter::placeOnStream(const KinetoEvent& e, Row& row) {
    row.streamId = streamRow(gpuDevice(e), gpuStream(e), e.context);
    copyTiming(e, row);
    m_window.addGpuWork(row.startNs, row.endNs, e.correlation);
    m_eventRecords.addGpuOperation(e.correlation, row.streamId);
}

int64_t KinetoConverter::pythonFrame(const std::string& rawName) {
    auto raw = m_rawPythonNames.find(rawName);
    if (raw != m_rawPythonNames.end())
        return raw->second;
    const PythonFrameName parsed = PythonFrameName::parse(rawName);
    const std::string canonical = parsed.kinetoName();
    int64_t id = 0;
    auto it = m_pythonFrames.find(canonical);
    if (it != m_pythonFrames.end()) {
        id = it->second;
    } else {
        format::FrameRow row;
        row.kind = format::FrameKind::Python;
        row.function = parsed.function;
        if (!parsed.file.empty()) {
            row.file = parsed.file;
            row.line = parsed.line;
            row.column = kDefLineColumn; // Kineto gives the def line, not the executing line
        }
        id = m_writer.addFrame(row);
        m_frameUser.emplace_back(id, format::isUserPythonFile(parsed.file));
        m_pythonFrames.emplace(canonical, id);
        ++m_stats.pythonFrames;
    }
    m_rawPythonNames.emplace(rawName, id);
    return id;
}

bool KinetoConverter::onEvent(const KinetoEvent& e) {
    ++m_stats.events;
    ++m_fileEvents;
    if (m_poll && (m_stats.events % kPollEvery) == 0 && !m_poll())
        return false;
    using C = KinetoCategory;
    if (e.category == C::None) {
        if (e.ph == 'M')
            onMetadata(e);
        else if (e.ph == 'X')
            ++m_stats.unknownCategories["(none)"];
        return true;
    }
    if (e.category == C::Unknown) {
        ++m_stats.unknownCategories[e.cat];
        return true;
    }
    ++m_fileKnownEvents;
    if (e.category == C::Ignored) {
        if (e.ph == 'X' && e.hasTs && KinetoOpChains::isCpuOpCategory(e.cat))
            m_opChains.addOp(e.tidIsNumber ? e.tid : 0, e.tsNs, e.endNs(), e.name);
        ++m_stats.ignoredCategories[e.cat];
        if (e.ph == 'X' && e.hasTs) { // cpu_op ProfilerStep#N; Kineto's "Trace" span
            if (KinetoWindow::isProfilerStep(e.name))
                m_window.addProfilerStep(e.name, e.tsNs, e.endNs());
            else if (e.cat == "Trace" || e.cat == "trace")
                m_window.addProfilerSpan(e.tsNs, e.endNs());
        }
        return true;
    }
    if (e.category == C::Ac2g) // the launch link is the correlation id both ends carry
        return true;
    if (e.ph == 'X' && !e.hasTs)
        ++m_stats.untimedEvents;
    if (e.ph != 'X' || !e.hasTs) {
        ++m_stats.ignoredCategories[e.cat + " (ph " + std::string(1, e.ph ? e.ph : '?') + ")"];
        return true;
    }
    const int64_t end = e.endNs();
    m_firstNs = std::min(m_firstNs, e.tsNs);
    m_lastNs = std::max(m_lastNs, end);

    switch (e.category) {
    case C::CudaRuntime:
    case C::CudaDriver:
    case C::Kernel:
    case C::GpuMemcpy:
    case C::GpuMemset:
    case C::StallscopeSync:
        ++m_stats.cudaEvents;
        break;
    default:
        break;
    }
    switch (e.category) {
    case C::PythonFunction:
        m_pythonCalls.append(
            {e.tsNs, end, static_cast<uint32_t>(pythonFrame(e.name)), hostThread(e).index});
        break;
    case C::UserAnnotation: {
        if (KinetoWindow::isProfilerStep(e.name))
            m_window.addProfilerStep(e.name, e.tsNs, end);
        ThreadState& thread = hostThread(e);
        thread.ranges.push_back({e.tsNs, end, stringId(e.name)});
        m_opChains.addAnnotation(thread.tid, e.tsNs, end, e.name);
        break;
    }
    case C::GpuUserAnnotation:
        annotationThread(gpuDevice(e), gpuStream(e))
            .ranges.push_back({e.tsNs, end, stringId(e.name)});
        break;
    case C::CudaRuntime:
    case C::CudaDriver:
        onApiCall(e);
        break;
    case C::Kernel: {
        format::KernelRow row;
        placeOnStream(e, row);
        row.nameId = stringId(e.name);
        for (int i = 0; i < 3; ++i) {
            row.grid[i] = e.grid[i];
            row.block[i] = e.block[i];
        }
        row.registersPerThread = e.registersPerThread;
        row.staticSharedBytes = e.sharedMemory;
        m_writer.addKernel(row);
        countRow();
        break;
    }
    case C::GpuMemcpy:
        onMemcpy(e);
        break;
    case C::GpuMemset: {
        format::MemsetRow row;
        placeOnStream(e, row);
        row.bytes = e.bytes;
        row.dstKind = parseMemsetKind(e.name);
        m_writer.addMemset(row);
        countRow();
        break;
    }
    case C::CudaSync: {
        KinetoThreadResolver::SyncDetail& detail = m_threadResolver.syncDetail(e.correlation);
        if (e.stream >= 0)
            detail.streamRow = streamRow(gpuDevice(e), e.stream, e.context);
        detail.eventId = e.waitEventId;
        detail.recordCorrelation = e.waitRecordCorrelation;
        if (e.waitStream >= 0)
            detail.recordStreamRow = streamRow(gpuDevice(e), e.waitStream, e.context);
        break;
    }
    case C::StallscopeSync:
        onExplicitSync(e);
        break;
    case C::StallscopeProcess:
        processRow(e, true);
        break;
    default:
        break;
    }
    return true;
}

void KinetoConverter::onApiCall(const KinetoEvent& e) {
    ThreadState& thread = hostThread(e);
    format::ApiCallRow row;
    row.threadId = thread.row;
    row.domain = e.category == KinetoCategory::CudaDriver ? format::ApiDomain::Driver
                                                          : format::ApiDomain::Runtime;
    row.cbid = e.cbid;
    row.nameId = stringId(e.name);
    copyTiming(e, row);
    m_writer.addApiCall(row);
    countRow();
    m_window.addCudaCall(row.startNs, row.endNs, e.correlation);
    if (KinetoEventRecords::isRecordCall(e.name))
        m_eventRecords.addRecordCall(thread.index, row.startNs, e.correlation);

    const ApiSyncClass sync = classifyApi(e.name);
    if (sync.kind == 0)
        return;
    PendingSync pending{row.startNs, row.endNs, e.correlation, static_cast<SyncKind>(sync.kind)};
    pending.copyCandidate = sync.copyCandidate;
    thread.syncs.push_back(pending);
}

void KinetoConverter::onMemcpy(const KinetoEvent& e) {
    format::MemcpyRow row;
    placeOnStream(e, row);
    parseMemcpyName(e.name, &row.copyKind, &row.srcKind, &row.dstKind);
    row.bytes = e.bytes;
    m_writer.addMemcpy(row);
    countRow();
    if (row.copyKind == format::CopyKind::DtoH && row.dstKind == format::MemoryKind::Pageable)
        m_threadResolver.addPageableCopy(e.correlation);
}

int64_t KinetoConverter::stackFrame(const std::string& text) {
    auto it = m_otherFrames.find(text);
    if (it != m_otherFrames.end())
        return it->second;
    const format::FrameRow row = frameRowFromStackEntry(text);
    const int64_t id = m_writer.addFrame(row);
    if (row.kind == format::FrameKind::Python)
        m_frameUser.emplace_back(id, format::isUserPythonFile(row.file.value_or("")));
    m_otherFrames.emplace(text, id);
    return id;
}

void KinetoConverter::onExplicitSync(const KinetoEvent& e) {
    ThreadState& thread = hostThread(e);
    ++m_fileExplicitSyncs;
    const int64_t kind = e.syncKind >= 1 && e.syncKind <= format::kSyncKindMax ? e.syncKind : 1;
    PendingSync pending{e.tsNs, e.endNs(), e.correlation, static_cast<SyncKind>(kind)};
    if (e.stream >= 0)
        pending.streamRow = streamRow(e.device >= 0 ? e.device : 0, e.stream, e.context);
    pending.eventId = e.waitEventId;
    if (e.stackSize > 0) {
        std::vector<int64_t> frames;
        frames.reserve(e.stackSize);
        for (size_t i = 0; i < e.stackSize; ++i)
            frames.push_back(stackFrame(e.stack[i]));
        pending.stackId = m_threadResolver.internStack(frames);
        if (e.stackId >= 0)
            m_exportStacks[e.stackId] = pending.stackId;
    } else if (const auto written = m_exportStacks.find(e.stackId);
               written != m_exportStacks.end()) {
        pending.stackId = written->second; // a stack the file wrote with an earlier sync
    }
    pending.copyCandidate = 3; // explicit: keep as is
    thread.syncs.push_back(pending);
}

void KinetoConverter::onMetadata(const KinetoEvent& e) {
    if (e.name == "thread_name" && e.tidIsNumber && e.pidIsNumber && e.pid == m_hostPid &&
        !e.argName.empty())
        m_threadNames[e.tid] = e.argName; // the last one wins (pt_autograd_0 over python3)
}

// Once a file is read: its profiler window, its threads' syncs and ranges (KinetoThreadResolver),
// the process's span; after the last file the session's import meta.

void KinetoConverter::resolveWindow() {
    for (const auto& thread : m_threads)
        for (const PendingSync& sync : thread->syncs)
            m_window.addSync(sync.start, sync.end);
    m_span = m_fileIsExport ? KinetoWindow::Span() : m_window.resolve(); // exports: as recorded
    if (!m_span.valid() || m_lastNs == INT64_MIN)
        return;
    m_stats.windowClippedNs += std::max<int64_t>(0, m_span.startNs - m_firstNs) +
                               std::max<int64_t>(0, m_lastNs - m_span.endNs);
    m_windowLabels += (m_windowLabels.empty() ? "" : "; ") +
                      (m_stats.files > 1 ? m_fileName + ": " + m_span.label : m_span.label);
}

bool KinetoConverter::finishFile(std::string* error) {
    if (m_fileEvents > 0 && m_fileKnownEvents == 0) {
        *error = "not a PyTorch profiler (Kineto) trace: none of its " +
                 std::to_string(m_fileEvents) +
                 " events has a Kineto category (cuda_runtime, kernel, python_function, ...)";
        return false;
    }
    if (!m_threadResolver.keepEnclosingCalls(m_pythonCalls, m_threads)) {
        *error = "cannot spool Python calls to a temporary file";
        return false;
    }
    m_pythonCalls.clear();
    std::unordered_map<int64_t, std::vector<int64_t>> syncStartsByTid;
    for (const auto& thread : m_threads) {
        std::vector<int64_t>& starts = syncStartsByTid[thread->tid];
        for (const PendingSync& sync : thread->syncs)
            starts.push_back(sync.start);
        std::sort(starts.begin(), starts.end());
    }
    if (!m_opChains.keepEnclosing(syncStartsByTid)) {
        *error = "cannot spool CPU ops to a temporary file";
        return false;
    }
    resolveWindow();
    const bool syncsListed = m_fileExplicitSyncs > 0 || m_fileIsExport;
    for (auto& thread : m_threads) {
        m_threadResolver.writeThread(*thread, m_span, syncsListed);
        auto name = m_threadNames.find(thread->tid);
        if (name != m_threadNames.end() && thread->tid >= 0)
            m_writer.setThreadName(thread->row, name->second);
    }
    if (m_processRow != 0 && m_lastNs != INT64_MIN) {
        m_writer.finishProcess(m_processRow, m_span.valid() ? m_span.endNs : m_lastNs,
                               std::nullopt);
        m_processStarts.emplace_back(m_processRow, m_span.valid() ? m_span.startNs : m_firstNs);
        if (m_span.valid() && m_window.writtenRowsOutside(m_span))
            m_windowsToClip.push_back({m_processRow, m_span.startNs, m_span.endNs});
    }
    m_writer.commit();
    m_rowsSinceCommit = 0;
    return true;
}

void KinetoConverter::writeMeta() {
    auto join = [](const std::map<std::string, int64_t>& counts) {
        std::string text;
        for (const auto& [name, count] : counts)
            text += (text.empty() ? "" : " ") + name + "=" + std::to_string(count);
        return text;
    };
    m_writer.setMeta(format::meta::kImportFormat, "kineto");
    // Kineto's timestamps are the profiler's host clock in µs, not necessarily CLOCK_MONOTONIC.
    m_writer.setMeta(format::meta::kClock, "kineto-host-us");
    m_writer.setMeta(format::meta::kImportFiles, std::to_string(m_stats.files));
    m_writer.setMeta(format::meta::kImportEvents, std::to_string(m_stats.events));
    m_writer.setMeta(format::meta::kImportIgnoredCategories, join(m_stats.ignoredCategories));
    m_writer.setMeta(format::meta::kImportUnknownCategories, join(m_stats.unknownCategories));
    int64_t unknown = 0;
    for (const auto& [name, count] : m_stats.unknownCategories)
        unknown += count;
    m_writer.setMeta(format::meta::kImportUnknownEvents, std::to_string(unknown));
    m_writer.setMeta(format::meta::kImportWindow, m_windowLabels.empty() ? "none" : m_windowLabels);
    m_writer.setMeta(format::meta::kImportWindowClippedNs, std::to_string(m_stats.windowClippedNs));
    m_writer.setMeta(format::meta::kPythonLineKind,
                     "def"); // frames.column = -1: see python_frame_name.h
}

} // namespace stallscope::model
