// KinetoConverter: turns the events of one or more Kineto traces into session rows as they
// stream by (KinetoEventSink). Bulk events (API calls, kernels, copies, sets) are written at
// once; what needs the whole file — the Python stack of each sync (the chain of python_function
// events enclosing it on its thread), whether a cudaMemcpy* blocked on pageable memory (its
// gpu_memcpy may come later), range depths — is kept in compact per-thread buffers and resolved
// by finishFile() (KinetoThreadResolver). One process row per trace file.
#pragma once

#include "format/session_rows.h"
#include "model/interop/kineto_call_spool.h"
#include "model/interop/kineto_event_records.h"
#include "model/interop/kineto_import_stats.h"
#include "model/interop/kineto_op_chains.h"
#include "model/interop/kineto_sax_handler.h"
#include "model/interop/kineto_thread_resolver.h"
#include "model/interop/kineto_window.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stallscope::format {
class SessionWriter;
}

namespace stallscope::model {

// One file's profiler window, for the rows written before it was known (see finalizeImport).
struct KinetoFileWindow {
    int64_t processRow = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
};

class KinetoConverter final : public KinetoEventSink {
public:
    explicit KinetoConverter(format::SessionWriter& writer);
    ~KinetoConverter() override;

    // Polled every 64 Ki events; returning false stops the parse (cancellation).
    void setPoll(std::function<bool()> poll) { m_poll = std::move(poll); }

    void beginFile(const std::string& path, const std::string& displayName);
    // Resolves the buffered syncs, stacks and ranges of the current file and writes them.
    // False with *error set when the file turned out not to be a Kineto trace.
    bool finishFile(std::string* error);
    // Writes the import's meta keys (counts of ignored/unknown categories, ...).
    void writeMeta();

    // Frames whose is_user the writer cannot set: (frame id, is_user) for every frame written.
    const std::vector<std::pair<int64_t, bool>>& frameUserFlags() const { return m_frameUser; }
    // (process row, first event time) per file: the writer fixes start_ns when the row is added,
    // before the earliest event of the file is known.
    const std::vector<std::pair<int64_t, int64_t>>& processStarts() const {
        return m_processStarts;
    }

    // Files whose CUDA calls or GPU work reach outside their window: clip those rows.
    const std::vector<KinetoFileWindow>& windowsToClip() const { return m_windowsToClip; }

    const KinetoImportStats& stats() const { return m_stats; }
    KinetoImportStats& stats() { return m_stats; }

    void onDeviceProperties(const KinetoDeviceProperties& device) override;
    void onRank(int64_t rank) override { m_rank = rank; }
    void onStallscopeExport() override { m_fileIsExport = true; }
    bool onEvent(const KinetoEvent& event) override;

private:
    using ThreadState = KinetoThreadResolver::Thread;
    using PendingSync = KinetoThreadResolver::PendingSync;
    struct TransparentHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    using StringIdMap = std::unordered_map<std::string, int64_t, TransparentHash, std::equal_to<>>;

    int64_t processRow(const KinetoEvent& event, bool hostEvent);
    ThreadState& hostThread(const KinetoEvent& event);
    ThreadState& annotationThread(int64_t device, int64_t stream);
    int64_t deviceRow(int64_t deviceIndex);
    int64_t streamRow(int64_t deviceIndex, int64_t stream, int64_t context);
    int64_t gpuDevice(const KinetoEvent& event) const;
    int64_t gpuStream(const KinetoEvent& event) const;
    // Fills a GPU activity row (kernel, memcpy, memset) from its event: stream, span, correlation.
    template <class Row> void placeOnStream(const KinetoEvent& event, Row& row);
    int64_t stringId(std::string_view text);
    int64_t pythonFrame(const std::string& kinetoName);
    int64_t stackFrame(const std::string& text);
    void onApiCall(const KinetoEvent& event);
    void onMemcpy(const KinetoEvent& event);
    void onExplicitSync(const KinetoEvent& event);
    void onMetadata(const KinetoEvent& event);
    void countRow();
    // The file's profiler window, from its events and syncs (none for a Stallscope export).
    void resolveWindow();

    format::SessionWriter& m_writer;
    std::function<bool()> m_poll;
    KinetoImportStats m_stats;

    // Session-wide interning.
    StringIdMap m_strings;
    StringIdMap m_rawPythonNames; // event name as written -> frame id
    StringIdMap m_pythonFrames;   // canonical name (no object address) -> frame id
    StringIdMap m_otherFrames;    // explicit-sync stack entries -> frame id
    std::unordered_map<int64_t, int64_t> m_exportStacks; // this file's "stack_id" -> stack id

    // Per-file state.
    std::string m_fileName;
    int64_t m_processRow = 0;
    int64_t m_hostPid = -1;
    int64_t m_rank = -1;
    int64_t m_firstNs = INT64_MAX;
    int64_t m_lastNs = INT64_MIN;
    int64_t m_fileEvents = 0;
    int64_t m_fileKnownEvents = 0;
    int64_t m_fileExplicitSyncs = 0;
    bool m_fileIsExport = false;
    std::map<int64_t, KinetoDeviceProperties> m_deviceProperties;
    std::unordered_map<int64_t, int64_t> m_devices;        // device index -> row
    std::unordered_map<int64_t, int64_t> m_streams;        // (device << 32 | stream) -> row
    std::unordered_map<int64_t, size_t> m_threadIndex;     // tid -> m_threads index
    std::unordered_map<int64_t, size_t> m_annotationIndex; // (device << 32 | stream) -> index
    std::vector<std::unique_ptr<ThreadState>> m_threads;
    std::unordered_map<int64_t, std::string> m_threadNames; // tid -> name (metadata)
    int64_t m_rowsSinceCommit = 0;
    std::vector<std::pair<int64_t, bool>> m_frameUser;
    std::vector<std::pair<int64_t, int64_t>> m_processStarts;
    KinetoCallSpool m_pythonCalls;
    KinetoOpChains m_opChains{m_writer}; // names stackless syncs (kineto_op_chains.h)
    KinetoWindow m_window;
    KinetoWindow::Span m_span;
    KinetoEventRecords m_eventRecords;
    // Writes the buffered syncs and ranges once a file is read; interns the session's stacks.
    KinetoThreadResolver m_threadResolver{m_writer, m_stats, m_opChains, m_eventRecords,
                                          [this] { countRow(); }};
    std::vector<KinetoFileWindow> m_windowsToClip;
    std::string m_windowLabels; // per file, "; "-separated (meta import_window)
};

} // namespace stallscope::model
