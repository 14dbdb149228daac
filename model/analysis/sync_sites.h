// SyncSites: every host-blocking sync of the session attributed to a source site, with per-site
// statistics (count, blocked time, median, GPU bubble) and the syncs grouped by site. Built once
// per analysis; the sync rules and the summary read it.
//
// A stack becomes a site (file, line, function, language) by the first match, innermost first:
// the user's frame — a Python frame of user code (its is_user verdict, else its path:
// format::isUserPythonFile) or a native frame marked is_user, with a file — plus, when library
// Python frames lie between it and the sync, the innermost of them (SourceSite::library); a
// Python frame; a native frame with a file; `<driver-internal>` when only CUDA and C-runtime
// frames; else "<unknown>" named by module+offset of the innermost frame outside the recorder,
// CUPTI, driver and runtime libraries. Unknown sites are per stack. A sync without a stack is
// `<no stack>` when it was a sync call of the program's, `<driver-internal> in <call>` when
// CUPTI made the record inside another call (see siteForStackless). Then the sites one change
// removes become one: a backward pass's syncs with the line whose forward op made them, a line's
// sites through several library lines, and the next statements that sync the same way as often
// (joinBackwardSites, joinStatementsOfOneFix). docs/insights.md, "Site".
#pragma once

#include "model/analysis/gpu_activity.h"
#include "model/analysis/insight.h"
#include "model/analysis/insight_thresholds.h"
#include "model/analysis/session_ranks.h"
#include "model/analysis/sync_copies.h"
#include "model/analysis/sync_operations.h"
#include "model/session/session.h"
#include "model/session/session_database.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace stallscope::model {

struct ModuleLocation {
    std::string name; // file name without directories
    int64_t loadBias = 0;
};

class SyncSites {
public:
    // Returns false when cancelled. `warning` gets a line when stacks could not be read.
    bool build(const Session& session, const SessionDatabase& database, const GpuActivity& gpu,
               const InsightThresholds& thresholds, const std::atomic<bool>* cancel,
               std::string* warning);

    static SourceSite resolve(const std::vector<FrameInfo>& frames,
                              const std::unordered_map<int64_t, ModuleLocation>& modules);

    // The session's modules by row id, as resolve() takes them.
    const std::unordered_map<int64_t, ModuleLocation>& modules() const { return m_modules; }
    // Sites in decreasing blocked time; site indexes below refer to this order.
    const std::vector<SyncSiteStats>& stats() const { return m_stats; }
    size_t siteCount() const { return m_stats.size(); }
    // Site of a sync, -1 for syncs that do not block the host.
    int32_t siteOf(int32_t lane, size_t index) const { return m_siteOf[lane][index]; }
    // Every copy sync's memcpy (joinSyncCopies), sites or not.
    std::span<const SyncCopy> syncCopies() const { return m_syncCopies; }
    // Whether a sync is a later part of the user's call that the thread's previous blocking sync
    // began: the same line of the user's synced again, right after, from another stack (the
    // library code it called syncs several times: print(tensor) formats through 5 to 8 syncs).
    // A call that starts again from its first stack is the line's next call.
    bool continuesCall(int32_t lane, size_t index) const {
        return m_continuesCall[lane][index] != 0;
    }
    // The site's syncs (EventKind::Sync refs) by host lane, then time.
    std::span<const EventRef> syncsOf(int32_t site) const {
        return {m_bySite.data() + m_siteOffset[site], m_siteOffset[site + 1] - m_siteOffset[site]};
    }
    // The site's syncs as event spans (built on first use and shared by the insights of the
    // site; like the rest of the class, for one analysis thread).
    std::shared_ptr<const EventSpans> spansOf(int32_t site) const;
    // GPU idle time after a sync: from its end until the next work on its device starts, cut at
    // the thread's next blocking sync and at bubble.maxPerSyncNs; 0 when the device had no work
    // while the host waited, is still busy when the sync returns, or never works again.
    int64_t bubbleAfter(int32_t lane, size_t index) const { return m_bubble[lane][index]; }
    // Python when any site is Python, else native (Unknown when no sites): the wording of GPU
    // rules that have no site of their own.
    SourceLanguage dominantLanguage() const;

    static EventSpans spansFor(std::span<const EventRef> syncs);

    // The session's ranks (session_ranks.h; empty for a single process) and the place in them of
    // a host lane's process (-1: none). Each site's stats().ranks follow this order.
    const std::vector<RankInfo>& ranks() const { return m_ranks; }
    int32_t rankSlotOfLane(int32_t lane) const { return m_rankSlotOfLane[lane]; }

private:
    int32_t siteForStack(uint32_t stackId); // stackId != 0
    // A sync without a stack, by the API call with its correlation id (0: none found).
    int32_t siteForStackless(uint32_t apiNameId);
    int32_t siteFor(SourceSite site); // the site's index, added when new
    // `hints` holds, per device, the busy-interval index of the lane's previous query.
    int64_t computeBubble(int32_t lane, size_t index, std::vector<int64_t>& hints) const;
    // Joins each backward-pass site (m_backwardNodeOfSite) to the user's line whose forward op
    // made its node (m_forwardOpsOfSite): one fix removes both.
    void joinBackwardSites();
    // Joins the sites one code change removes: those of one line (its syncs in several library
    // frames: print(tensor)), and the next statements of a function that sync the same way as
    // often (two batches moved to the GPU, two buffers freed: InsightThresholds::fixGroup).
    void joinStatementsOfOneFix();
    // Each site's operation (SyncSiteStats::operation) from its first stack's evidence.
    void identifyOperations();
    // The text of line `line` of an embedded source file ("" when not embedded).
    std::string_view sourceLine(const std::string& file, int64_t line);
    // Moves site `from`'s syncs and numbers into site `into`.
    void joinSite(int32_t from, int32_t into);
    void sortSitesByBlocked();

    const Session* m_session = nullptr;
    const SessionDatabase* m_database = nullptr;
    const GpuActivity* m_gpu = nullptr;
    const InsightThresholds* m_thresholds = nullptr;
    std::unordered_map<int64_t, ModuleLocation> m_modules;
    std::unordered_map<uint32_t, int32_t> m_stackToSite;
    std::unordered_map<std::string, int32_t> m_siteByKey;
    std::unordered_map<int32_t, std::string> m_backwardNodeOfSite; // site -> "IndexBackward0"
    std::unordered_map<int32_t, std::vector<std::string>> m_forwardOpsOfSite; // called ATen ops
    std::unordered_map<int32_t, SyncEvidence> m_evidenceOfSite;               // by its first stack
    std::unordered_map<std::string, std::optional<std::string>> m_sourceText; // by path
    std::vector<int32_t> m_joinedInto; // per site, the site joinSite moved it into (-1: none)
    std::vector<SyncSiteStats> m_stats;
    std::vector<std::vector<int32_t>> m_siteOf; // per host lane, per sync
    std::vector<SyncCopy> m_syncCopies;
    std::vector<std::vector<uint8_t>> m_continuesCall; // per host lane, per sync
    // Per host lane, per sync (0 for non-blocking ones); 32 bits hold the per-sync cap.
    std::vector<std::vector<uint32_t>> m_bubble;
    std::vector<EventRef> m_bySite; // syncs (EventKind::Sync)
    std::vector<size_t> m_siteOffset;
    mutable std::vector<std::shared_ptr<const EventSpans>> m_spans;
    std::vector<RankInfo> m_ranks;
    std::vector<int32_t> m_rankSlotOfLane;
    int64_t m_stacksWithoutFrames = 0;
    bool m_stacksRecorded = false; // meta recorder_stacks = 1: every sync call has a stack
};

} // namespace stallscope::model
