#include "model/interop/chrome_trace_export.h"

#include "format/terminal_text.h"

#include "model/interop/kineto_names.h"
#include "model/interop/trace_file_writer.h"
#include "model/session/session.h"
#include "model/session/session_database.h"
#include "model/session/session_summary.h"
#include "model/session/waited_work.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace stallscope::model {

namespace {

// A JSON string; bytes that are not UTF-8 (a name's stray bytes, an encoded lone surrogate) become
// U+FFFD, so the output is always valid UTF-8 and valid JSON.
void appendEscaped(std::string& out, std::string_view text) {
    out.push_back('"');
    while (!text.empty()) {
        const char c = text.front();
        size_t length = 1;
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
            out += escaped;
        } else if (static_cast<unsigned char>(c) < 0x80) {
            out.push_back(c);
        } else if ((length = format::utf8SequenceLength(text)) > 0) {
            out.append(text.substr(0, length));
        } else {
            out += "\\ufffd";
            length = 1;
        }
        text.remove_prefix(length);
    }
    out.push_back('"');
}

void appendMicros(std::string& out, int64_t ns) {
    char text[32];
    const bool negative = ns < 0;
    const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
    std::snprintf(text, sizeof text, "%s%llu.%03llu", negative ? "-" : "",
                  static_cast<unsigned long long>(magnitude / 1000),
                  static_cast<unsigned long long>(magnitude % 1000));
    out += text;
}

class Exporter {
public:
    Exporter(const Session& session, const SessionDatabase& database, TraceFileWriter& out)
        : m_session(session), m_database(database), m_out(out) {}

    void run() {
        std::string& o = m_out.text();
        o += "{\"schemaVersion\":1,\"stallscope\":{\"export_version\":1,\"source\":";
        appendEscaped(o, m_session.path);
        o += "},\"displayTimeUnit\":\"ms\",\"deviceProperties\":[";
        for (size_t i = 0; i < m_session.devices.size(); ++i) {
            const DeviceInfo& d = m_session.devices[i];
            o += i ? "," : "";
            o += "{\"id\":" + std::to_string(d.deviceIndex) + ",\"name\":";
            appendEscaped(o, d.name);
            o += ",\"totalGlobalMem\":" + std::to_string(d.globalMemoryBytes) +
                 ",\"computeMajor\":" + std::to_string(d.computeMajor) +
                 ",\"computeMinor\":" + std::to_string(d.computeMinor) +
                 ",\"numSms\":" + std::to_string(d.smCount) + "}";
        }
        o += "],\"traceEvents\":[\n";
        collectCorrelations();
        writeProcessSpans();
        writeMetadata();
        for (size_t l = 0; l < m_session.hostLanes.size(); ++l)
            writeHostLane(static_cast<int32_t>(l));
        for (size_t l = 0; l < m_session.streamLanes.size(); ++l)
            writeStreamLane(static_cast<int32_t>(l));
        o += "\n]}\n";
    }
    int64_t events() const { return m_events; }

private:
    int64_t hostPid(int32_t threadIndex) const {
        const ThreadInfo& t = m_session.threads[threadIndex];
        return t.processIndex >= 0 ? m_session.processes[t.processIndex].pid : 0;
    }
    // The stream's device; a blank one where the device is unknown (only in a session that the
    // loader did not build: it refuses streams naming no device).
    const DeviceInfo& deviceOf(const StreamInfo& stream) const {
        static const DeviceInfo kUnknownDevice;
        return stream.deviceIndex >= 0 ? m_session.devices[stream.deviceIndex] : kUnknownDevice;
    }
    int32_t processOfStream(int32_t streamIndex) const {
        return deviceOf(m_session.streams[streamIndex]).processIndex;
    }
    // Kineto's GPU pid is the device index; with several processes, keep their GPUs apart (in
    // 64 bits: 3000 processes pass 2^31).
    int64_t gpuPid(int32_t streamIndex) const {
        const DeviceInfo& d = deviceOf(m_session.streams[streamIndex]);
        return m_session.processes.size() <= 1
                   ? d.deviceIndex
                   : int64_t{1000000} * (d.processIndex + 1) + d.deviceIndex;
    }
    static int64_t flowId(int32_t processIndex, uint32_t correlation) {
        return (static_cast<int64_t>(processIndex + 1) << 40) | correlation;
    }

    void collectCorrelations() {
        for (const StreamLane& lane : m_session.streamLanes) {
            const int32_t process = processOfStream(lane.streamIndex);
            for (uint32_t c : lane.kernels.correlationId)
                m_gpuFlows.insert(flowId(process, c));
            for (uint32_t c : lane.memcpys.correlationId)
                m_gpuFlows.insert(flowId(process, c));
            for (uint32_t c : lane.memsets.correlationId)
                m_gpuFlows.insert(flowId(process, c));
        }
        for (const HostLane& lane : m_session.hostLanes) {
            const int32_t process = m_session.threads[lane.threadIndex].processIndex;
            for (uint32_t c : lane.apiCalls.correlationId)
                if (m_gpuFlows.count(flowId(process, c)))
                    m_hostFlows.insert(flowId(process, c));
        }
    }

    void begin(const char* ph, const char* cat, const std::string& name, int64_t pid, int64_t tid,
               int64_t ts) {
        std::string& o = m_out.text();
        o += m_events++ ? ",\n{\"ph\":\"" : "{\"ph\":\"";
        o += ph;
        o += "\",\"cat\":\"";
        o += cat;
        o += "\",\"name\":";
        appendEscaped(o, name);
        o += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
        appendMicros(o, ts);
    }
    void complete(const char* cat, const std::string& name, int64_t pid, int64_t tid, int64_t start,
                  int64_t end) {
        begin("X", cat, name, pid, tid, start);
        m_out.text() += ",\"dur\":";
        appendMicros(m_out.text(), end - start);
    }
    void endEvent() {
        m_out.text() += "}";
        m_out.maybeFlush();
    }
    void metadata(const char* what, int64_t pid, int64_t tid, const std::string& key,
                  const std::string& value) {
        std::string& o = m_out.text();
        o += m_events++ ? ",\n{\"ph\":\"M\",\"name\":\"" : "{\"ph\":\"M\",\"name\":\"";
        o += what;
        o += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
             ",\"args\":{\"" + key + "\":";
        appendEscaped(o, value);
        o += "}}";
    }
    void flow(const char* ph, int64_t id, int64_t pid, int64_t tid, int64_t ts,
              const char* cat = "ac2g") {
        std::string& o = m_out.text();
        o += ",\n{\"ph\":\"";
        o += ph;
        o += "\",\"id\":" + std::to_string(id) + ",\"pid\":" + std::to_string(pid) +
             ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
        appendMicros(o, ts);
        o += ",\"cat\":\"";
        o += cat;
        o += "\",\"name\":\"";
        o += cat;
        o += "\",\"bp\":\"e\"}";
        ++m_events;
    }

    // The recorded interval of each process (it may reach past its first and last events: a
    // Kineto import spans the profiling window), so a re-import keeps the session's times.
    void writeProcessSpans() {
        for (const ProcessInfo& p : m_session.processes) {
            complete("stallscope_process", p.command, p.pid, p.pid, p.startNs, p.spanEndNs());
            endEvent();
        }
    }

    void sortIndex(const char* what, int64_t pid, int64_t tid, int64_t index) {
        std::string& o = m_out.text();
        o += ",\n{\"ph\":\"M\",\"name\":\"";
        o += what;
        o += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
             ",\"args\":{\"sort_index\":" + std::to_string(index) + "}}";
        ++m_events;
    }

    // Names and sort order as the timeline lays lanes out (views/timeline/timeline_layout.h):
    // per process, its host threads in lane order, then its GPUs (one Chrome process each) with
    // their streams in lane order; threads and devices of no known process last.
    void writeMetadata() {
        const auto processCount = static_cast<int32_t>(m_session.processes.size());
        auto ownerOf = [&](int32_t processIndex) {
            return processIndex >= 0 && processIndex < processCount ? processIndex : -1;
        };
        int64_t processRank = 0;
        std::unordered_map<int64_t, int64_t> streamRank; // GPU pid -> next stream's rank
        std::unordered_set<int32_t> namedThreads;
        for (int32_t group = 0; group <= processCount; ++group) {
            const int32_t process = group < processCount ? group : -1;
            if (process >= 0) {
                const ProcessInfo& p = m_session.processes[process];
                metadata("process_name", p.pid, 0, "name",
                         p.command.empty() ? "process" : p.command);
                metadata("process_labels", p.pid, 0, "labels", "CPU");
                sortIndex("process_sort_index", p.pid, 0, processRank++);
            }
            int64_t threadRank = 0;
            for (const HostLane& lane : m_session.hostLanes) {
                const ThreadInfo& t = m_session.threads[lane.threadIndex];
                if (ownerOf(t.processIndex) != process ||
                    !namedThreads.insert(lane.threadIndex).second)
                    continue;
                const int64_t pid = hostPid(lane.threadIndex);
                metadata("thread_name", pid, t.tid, "name", m_session.threadLabel(t));
                sortIndex("thread_sort_index", pid, t.tid, threadRank++);
            }
            for (const StreamLane& lane : m_session.streamLanes) {
                if (ownerOf(processOfStream(lane.streamIndex)) != process)
                    continue;
                const StreamInfo& s = m_session.streams[lane.streamIndex];
                const DeviceInfo& d = deviceOf(s);
                const int64_t pid = gpuPid(lane.streamIndex);
                auto [rank, first] = streamRank.try_emplace(pid, 0);
                if (first) {
                    metadata("process_name", pid, 0, "name",
                             "GPU " + std::to_string(d.deviceIndex) + " " + d.name);
                    metadata("process_labels", pid, 0, "labels",
                             "GPU " + std::to_string(d.deviceIndex));
                    sortIndex("process_sort_index", pid, 0, processRank++);
                }
                metadata("thread_name", pid, s.streamId, "name",
                         "stream " + std::to_string(s.streamId) +
                             (s.isDefault ? " (default)" : ""));
                sortIndex("thread_sort_index", pid, s.streamId, rank->second++);
            }
        }
        for (size_t i = 0; i < m_session.threads.size(); ++i) // threads with no lane: named only
            if (!namedThreads.count(static_cast<int32_t>(i))) {
                const ThreadInfo& t = m_session.threads[i];
                metadata("thread_name", hostPid(static_cast<int32_t>(i)), t.tid, "name",
                         m_session.threadLabel(t));
            }
    }

    // A stack is written once, with the first sync that has it; later syncs name it by
    // "stack_id" (the importer resolves it), so the output grows with the session's stacks, not
    // with syncs × depth.
    void writeStack(std::string& o, uint32_t stackId) {
        o += ",\"stack_id\":" + std::to_string(stackId);
        if (!m_writtenStacks.insert(stackId).second)
            return;
        o += ",\"stack\":[";
        bool first = true;
        for (const FrameInfo& frame : m_database.stack(stackId)) {
            o += first ? "" : ",";
            appendEscaped(o, stackEntryForFrame(frame));
            first = false;
        }
        o += "]";
    }

    static uint64_t workKey(const EventRef& work) {
        return (uint64_t(work.kind) << 56) | (uint64_t(uint32_t(work.lane)) << 32) | work.index;
    }

    // A "sync_wait" flow from the sync to the GPU work it waited for (model/session/waited_work.h,
    // the timeline's "waited for" arrow): starts in the sync, ends in the work's last nanosecond.
    void syncWaitFlow(int32_t hostLane, uint32_t sync, int64_t pid, int64_t tid) {
        const EventRef work = waitedWork(m_session, hostLane, sync);
        if (!work.isValid())
            return;
        const int64_t id = kSyncWaitFlowBase + m_syncWaits++;
        flow("s", id, pid, tid, m_session.hostLanes[hostLane].syncs.start[sync], kSyncWaitCategory);
        m_waitsOf[workKey(work)].push_back(id);
    }
    void waitedBy(const EventRef& work, int64_t pid, int64_t tid, int64_t start, int64_t end) {
        const auto found = m_waitsOf.find(workKey(work));
        if (found == m_waitsOf.end())
            return;
        for (const int64_t id : found->second)
            flow("f", id, pid, tid, std::max(start, end - 1), kSyncWaitCategory);
    }

    void writeHostLane(int32_t hostLane) {
        const HostLane& lane = m_session.hostLanes[hostLane];
        const int64_t pid = hostPid(lane.threadIndex);
        const int64_t tid = m_session.threads[lane.threadIndex].tid;
        const int32_t process = m_session.threads[lane.threadIndex].processIndex;
        const ApiCallColumns& calls = lane.apiCalls;
        for (size_t i = 0; i < calls.size(); ++i) {
            const std::string& name = m_session.string(calls.nameId[i]);
            const bool driver = name.rfind("cu", 0) == 0 && name.rfind("cuda", 0) != 0;
            complete(driver ? "cuda_driver" : "cuda_runtime", name, pid, tid, calls.start[i],
                     calls.end[i]);
            m_out.text() +=
                ",\"args\":{\"correlation\":" + std::to_string(calls.correlationId[i]) + "}";
            endEvent();
            const int64_t id = flowId(process, calls.correlationId[i]);
            if (m_hostFlows.count(id))
                flow("s", id, pid, tid, calls.start[i]);
        }
        const SyncColumns& syncs = lane.syncs;
        for (size_t i = 0; i < syncs.size(); ++i) {
            complete("sync", syncKindName(syncs.kind[i]), pid, tid, syncs.start[i], syncs.end[i]);
            std::string& o = m_out.text();
            o += ",\"args\":{\"kind\":" + std::to_string(syncs.kind[i]) +
                 ",\"correlation\":" + std::to_string(syncs.correlationId[i]);
            if (syncs.streamIndex[i] >= 0) {
                const StreamInfo& s = m_session.streams[syncs.streamIndex[i]];
                o += ",\"device\":" + std::to_string(deviceOf(s).deviceIndex) +
                     ",\"context\":" + std::to_string(s.contextId) +
                     ",\"stream\":" + std::to_string(s.streamId);
            }
            if (syncs.stackId[i] != 0)
                writeStack(o, syncs.stackId[i]);
            o += "}";
            endEvent();
            syncWaitFlow(hostLane, static_cast<uint32_t>(i), pid, tid);
        }
        for (const RangeColumns& ranges : lane.rangesByDepth)
            for (size_t i = 0; i < ranges.size(); ++i) {
                complete("user_annotation", m_session.string(ranges.nameId[i]), pid, tid,
                         ranges.start[i], ranges.end[i]);
                endEvent();
            }
    }

    void gpuArgs(const StreamInfo& s, uint32_t correlation) {
        m_out.text() += ",\"args\":{\"device\":" + std::to_string(deviceOf(s).deviceIndex) +
                        ",\"context\":" + std::to_string(s.contextId) +
                        ",\"stream\":" + std::to_string(s.streamId) +
                        ",\"correlation\":" + std::to_string(correlation);
    }

    void writeStreamLane(int32_t streamLane) {
        const StreamLane& lane = m_session.streamLanes[streamLane];
        const StreamInfo& s = m_session.streams[lane.streamIndex];
        const int64_t pid = gpuPid(lane.streamIndex);
        const int32_t process = processOfStream(lane.streamIndex);
        auto link = [&](uint32_t correlation, int64_t ts) {
            const int64_t id = flowId(process, correlation);
            if (m_hostFlows.count(id))
                flow("f", id, pid, s.streamId, ts);
        };
        const KernelColumns& k = lane.kernels;
        for (size_t i = 0; i < k.size(); ++i) {
            const std::string& name = kernelName(k.nameId[i]);
            complete("kernel", name, pid, s.streamId, k.start[i], k.end[i]);
            gpuArgs(s, k.correlationId[i]);
            const std::string& raw = m_session.string(k.nameId[i]);
            if (raw != name) { // demangled: the symbol as recorded rides along
                m_out.text() += ",\"mangled\":";
                appendEscaped(m_out.text(), raw);
            }
            m_out.text() += "}";
            endEvent();
            link(k.correlationId[i], k.start[i]);
            waitedBy({EventKind::Kernel, streamLane, 0, static_cast<uint32_t>(i)}, pid, s.streamId,
                     k.start[i], k.end[i]);
        }
        for (int set = 0; set < 2; ++set) {
            const TransferColumns& t = set ? lane.memsets : lane.memcpys;
            for (size_t i = 0; i < t.size(); ++i) {
                const std::string name =
                    set ? memsetName(t.dstKind[i])
                        : memcpyName(t.copyKind[i], t.srcKind[i], t.dstKind[i]);
                complete(set ? "gpu_memset" : "gpu_memcpy", name, pid, s.streamId, t.start[i],
                         t.end[i]);
                gpuArgs(s, t.correlationId[i]);
                m_out.text() += ",\"bytes\":" + std::to_string(t.bytes[i]) + "}";
                endEvent();
                link(t.correlationId[i], t.start[i]);
                waitedBy({set ? EventKind::Memset : EventKind::Memcpy, streamLane, 0,
                          static_cast<uint32_t>(i)},
                         pid, s.streamId, t.start[i], t.end[i]);
            }
        }
    }

    // Kernel names as the GUI shows them and as torch.profiler writes them: demangled, once
    // per distinct name.
    const std::string& kernelName(uint32_t nameId) {
        auto [found, inserted] = m_kernelNames.try_emplace(nameId);
        if (inserted)
            found->second = readableKernelName(m_session.string(nameId));
        return found->second;
    }

    const Session& m_session;
    const SessionDatabase& m_database;
    std::unordered_map<uint32_t, std::string> m_kernelNames;
    TraceFileWriter& m_out;
    int64_t m_events = 0;
    std::unordered_set<int64_t> m_gpuFlows;
    std::unordered_set<int64_t> m_hostFlows;
    std::unordered_set<uint32_t> m_writtenStacks;
    // Sync-wait flow ids: above every launch flow id (flowId stays below 2^52), below 2^53 so
    // that JavaScript readers keep them exact.
    static constexpr int64_t kSyncWaitFlowBase = int64_t{1} << 52;
    static constexpr const char* kSyncWaitCategory = "sync_wait";
    int64_t m_syncWaits = 0;
    std::unordered_map<uint64_t, std::vector<int64_t>> m_waitsOf; // workKey -> flow ids
};

} // namespace

bool ChromeTraceExporter::write(const Session& session, const SessionDatabase& database,
                                const std::string& outPath, const format::OutputPolicy& policy,
                                std::string* error, ChromeExportStats* stats) {
    TraceFileWriter out;
    if (!out.open(outPath, policy, error))
        return false;
    Exporter exporter(session, database, out);
    exporter.run();
    const int64_t bytes = out.bytes();
    if (!out.finish(error))
        return false;
    if (stats) {
        stats->events = exporter.events();
        stats->bytes = bytes;
    }
    return true;
}

} // namespace stallscope::model
