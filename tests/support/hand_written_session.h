// HandWrittenSession: the rows the hand-written test sessions are made of, written through the
// real SessionWriter, with correlation ids handed out in order from 1: one process and its
// threads, the H100 its streams run on, a launch with its kernel, a blocking call with its sync,
// Python frames. Each builder (small_session.h, loop_session.h, tests/views/tiny_session.h,
// tests/views/insight_session.h) states only what makes its session its own: its times, names and
// the rows no other has. Strings are interned by the builders, in their own order, so that each
// session's string ids stay what its tests read.
#pragma once

#include "format/session_writer.h"

#include <cstdint>
#include <optional>
#include <string>

namespace stallscope::testing {

class HandWrittenSession {
public:
    explicit HandWrittenSession(format::SessionWriter& writer) : m_writer(writer) {}

    // The process the threads and the GPU below belong to (exit code 0).
    int64_t process(int64_t pid, const std::string& host, const std::string& command,
                    int64_t startNs, int64_t endNs) {
        m_process = m_writer.addProcess({pid, host, command, startNs, endNs, 0});
        return m_process;
    }
    int64_t thread(int64_t tid, const std::string& name) {
        return m_writer.addThread({m_process, tid, name});
    }
    // The GPU of every hand-written session: an H100 (compute 9.0, 132 SMs, 80 GiB) as device 0.
    // The sessions differ only in how CUPTI named it.
    int64_t h100(const std::string& name, const std::string& uuid) {
        m_gpu = m_writer.addDevice({m_process, 0, name, uuid, 9, 0, 132, int64_t(80) << 30});
        return m_gpu;
    }
    // A stream of the H100 in context 1.
    int64_t stream(int64_t streamId, int64_t priority = 0) {
        return m_writer.addStream({m_gpu, 1, streamId, false, priority});
    }

    int64_t nextCorrelation() { return ++m_correlation; }

    // A runtime API call of `thread` named `nameId` (cbid) at [startNs, endNs), with the next
    // correlation id; returns the id.
    int64_t apiCall(int64_t thread, int64_t cbid, int64_t nameId, int64_t startNs, int64_t endNs) {
        const int64_t id = nextCorrelation();
        m_writer.addApiCall(
            {thread, format::ApiDomain::Runtime, cbid, nameId, startNs, endNs, id, 0});
        return id;
    }
    // cudaLaunchKernel (cbid 211, `launchNameId`) at [callNs, callEndNs) and `kernel`, which it
    // launched (its correlation id is set here).
    int64_t launch(int64_t thread, int64_t launchNameId, int64_t callNs, int64_t callEndNs,
                   format::KernelRow kernel) {
        kernel.correlationId = apiCall(thread, 211, launchNameId, callNs, callEndNs);
        m_writer.addKernel(kernel);
        return kernel.correlationId;
    }
    // A blocking call (cbid, `nameId`) that lasts as long as its sync, and the sync (its thread,
    // times and correlation id set here).
    int64_t blockingCall(int64_t thread, int64_t cbid, int64_t nameId, int64_t startNs,
                         int64_t endNs, format::SyncRow sync) {
        sync.threadId = thread;
        sync.startNs = startNs;
        sync.endNs = endNs;
        sync.correlationId = apiCall(thread, cbid, nameId, startNs, endNs);
        m_writer.addSync(sync);
        return sync.correlationId;
    }
    // A Python frame: `function` at file:line.
    int64_t pythonFrame(const std::string& file, int64_t line, const std::string& function) {
        format::FrameRow frame;
        frame.kind = format::FrameKind::Python;
        frame.file = file;
        frame.line = line;
        frame.function = function;
        return m_writer.addFrame(frame);
    }

private:
    format::SessionWriter& m_writer;
    int64_t m_process = 0;
    int64_t m_gpu = 0;
    int64_t m_correlation = 0;
};

// A stream sync on `stream` (SyncRow's kind, stream and stack; HandWrittenSession sets the rest).
inline format::SyncRow streamSync(int64_t stream, std::optional<int64_t> stack = std::nullopt) {
    format::SyncRow sync;
    sync.kind = format::SyncKind::Stream;
    sync.streamId = stream;
    sync.stackId = stack;
    return sync;
}

} // namespace stallscope::testing
