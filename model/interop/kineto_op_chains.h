// KinetoOpChains: names the syncs of a trace recorded without Python stacks (with_stack=False,
// the common case) by what encloses their CUDA call on the same host thread: the CPU ops
// (`cpu_op`, PyTorch 1.8's `Operator`) from the outermost in, and the innermost user annotation
// (`record_function`, `Optimizer.step#AdamW.step`) around them, e.g.
//   aten::item ← aten::_local_scalar_dense in Optimizer.step#AdamW.step
// ProfilerStep#N annotations are left out of the name, so the same chain in every step is one
// sync site (the steps stay on the timeline as ranges).
//
// The name travels as the sync's one-frame stack: a Python-kind frame with the chain as its
// function and no file (no schema change; SyncSites names a site by such a frame's function).
// A sync with Python frames keeps them: this is only the fallback. CPU ops are a large share of
// a trace's events, so like python_function calls they are spooled to disk and only those that
// enclose a sync are kept.
#pragma once

#include "model/interop/kineto_call_spool.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stallscope::format {
class SessionWriter;
}

namespace stallscope::model {

class KinetoOpChains {
public:
    explicit KinetoOpChains(format::SessionWriter& writer) : m_writer(writer) {}

    // True for the categories of CPU-op events (any case): "cpu_op", "Operator".
    static bool isCpuOpCategory(std::string_view category);

    // One enclosing candidate of host thread `tid`: a CPU op, or a user annotation.
    void addOp(int64_t tid, int64_t start, int64_t end, std::string_view name);
    void addAnnotation(int64_t tid, int64_t start, int64_t end, std::string_view name);

    // At the end of a file: keeps, per thread, the candidates that enclose one of its sync
    // starts (sorted). False when the spool's temporary file failed.
    bool keepEnclosing(const std::unordered_map<int64_t, std::vector<int64_t>>& syncStartsByTid);

    // The frame naming what encloses `time` on thread `tid`; where nothing does (a
    // torch.cuda.synchronize() between ops), "<syncKind> outside any op", e.g. "device
    // synchronize outside any op". Times must not decrease from call to call for one thread (a
    // sweep, like the Python stacks').
    int64_t frameAt(int64_t tid, int64_t time, std::string_view syncKind);
    static std::string outsideAnyOp(std::string_view syncKind);

    // The chain's name for the enclosing names, outermost first (exposed for tests).
    static std::string chainName(const std::vector<std::string_view>& ops,
                                 std::string_view annotation);

    // Drops the file's candidates (frames stay: the writer is shared by all files).
    void clearFile();

private:
    int64_t frameNamed(const std::string& name); // interned once per file set

    struct Interval {
        int64_t start;
        int64_t end;
        uint32_t name; // index into m_names
    };
    struct Thread {
        std::vector<Interval> kept;
        std::vector<const Interval*> open;
        size_t next = 0;
    };
    uint32_t nameIndex(std::string_view name, bool annotation);
    uint32_t threadIndex(int64_t tid);

    format::SessionWriter& m_writer;
    KinetoCallSpool m_spool; // Call::frameId holds the name index
    std::vector<std::string> m_names;
    std::vector<bool> m_isAnnotation;
    std::unordered_map<std::string, uint32_t> m_nameIndex; // "o:" / "a:" + name
    std::vector<int64_t> m_tids;
    std::unordered_map<int64_t, uint32_t> m_threadIndex;
    std::vector<Thread> m_threads;
    std::unordered_map<std::string, int64_t> m_frames; // chain name -> frame id
};

} // namespace stallscope::model
