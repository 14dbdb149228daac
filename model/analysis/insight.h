// The results of the insight engine: insights (rule, severity, evidence, site, events, fix,
// estimated savings), per-site sync statistics and the session summary. Plain values, shared
// read-only between the analysis thread and the views. docs/insights.md is the normative list.
#pragma once

#include "format/session_schema.h"
#include "model/session/event_ref.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::model {

struct SyncOperation; // sync_operations.h

namespace whatif {
class RunGraph;
struct WhatIf;
} // namespace whatif

enum class Severity : uint8_t { Low = 0, Medium = 1, High = 2 };
std::string_view severityName(Severity severity); // "HIGH", "MEDIUM", "LOW"

// Rule ids are stable: they appear in the JSON output, in tests and in docs/insights.md.
enum class InsightRule : uint8_t {
    SyncAttribution,
    InLoopSync,
    PageableCopy,
    DeviceSync,
    DefaultStream,
    GpuBubble,
    LaunchBound,
    Straggler,
    HostGap, // the GPU idle while the host's samples show one line (insight_host_rules.cpp)
};
inline constexpr int kInsightRuleCount = 9;
std::string_view ruleId(InsightRule rule); // "sync-attribution", "in-loop-sync", ...

enum class SourceLanguage : uint8_t { Unknown = 0, Python = 1, Native = 2 };
std::string_view languageName(SourceLanguage language); // "python", "native", "unknown"
std::string formatShare(double share);                  // 0.95 -> "95.0 %"

// A Python frame of library code (site-packages, the standard library, ...): see SourceSite.
struct LibraryFrame {
    std::string file; // as recorded; empty when there is none
    int64_t line = 0;
    std::string function;

    bool empty() const { return file.empty(); }
    bool operator==(const LibraryFrame&) const = default;
};

// Where a sync was issued (see SyncSites::resolve for how a stack becomes a site). Sites of GPU
// rules (default-stream, launch-bound) have no file: `function` names the device or stream.
struct SourceSite {
    std::string file; // "<unknown>" when no frame has a file
    int64_t line = 0;
    std::string function; // unknown sites: "module+0xoffset", "<no stack>", "<driver-internal>"
    SourceLanguage language = SourceLanguage::Unknown;
    // True when `line` is the function's first line, not the executing one (Python frames from
    // imported torch.profiler traces): the label then names the function, not a fake line.
    bool lineIsDefinition = false;
    // When the sync was made inside library code called from the user's line: the innermost
    // library Python frame between the sync and `file:line` (the library line that syncs, e.g.
    // lightning_fabric/utilities/apply_func.py:134 in move_data_to_device). Empty when the
    // user's line made the sync itself. Sites are told apart by (file:line, library), then one
    // line's sites join (SyncSites::joinStatementsOfOneFix), named by the busiest library line.
    LibraryFrame library{};

    bool hasLocation() const { return line > 0 && !file.empty() && file != "<unknown>"; }
    // "train.py:90 in train_step", "train.py · train()" (def line only),
    // "train.py:34 in main → lightning_fabric/utilities/apply_func.py:134" (library frame: its
    // path from the package folder), "<unknown> (libcuda.so.1+0x1a2b)", "GPU 0 · NVIDIA H100".
    std::string label() const;
};

// One rank's part of a sync site or of its finding, in sessions of several ranks
// (docs/insights.md, "Ranks"). Over a site's ranks, count, calls and blockedNs add up to its own.
struct RankNumbers {
    int32_t processIndex = -1; // into Session::processes
    int64_t rank = -1;         // the process's rank, -1 when the file has none
    std::string label;         // "rank 1", "pid 4242"
    int64_t count = 0;         // sync records
    int64_t calls = 0;         // user-visible calls (in the window for a site with a finding)
    int64_t blockedNs = 0;
};
// "×60 on rank 0: 1.22 s, rank 1: 1 ms" (every rank made as many calls), else
// "on rank 0: ×60 1.22 s, rank 1: ×2 1 ms"; "" when there are none.
std::string rankNumbersText(const std::vector<RankNumbers>& ranks);

// The straggler finding's numbers (InsightRule::Straggler).
struct StragglerNumbers {
    int32_t processIndex = -1; // the late rank
    std::string label;
    int64_t collectives = 0;        // those the ranks reached >= contendedNs apart
    int64_t matchedCollectives = 0; // matched collectives in the window
    int64_t lastCollectives = 0;    // those it arrived last at
    int64_t meanLatenessNs = 0;     // after the second-latest rank, over those
    int64_t periodNs = 0;           // median time between its consecutive collectives
    int64_t waitNs = 0;             // the others' wait for it, summed over them
    double waitShare = 0;           // waitNs over (window × other ranks)
    std::string cause;              // what its host did instead of launching
    struct Wait {
        std::string label;
        int64_t waitNs = 0;
        double share = 0; // of the window
    };
    std::vector<Wait> waits; // per other rank, in rank order
};

// The user's own line rewritten by its operation's template (line_rewrite.h), shown before the
// operation's recipe: `total += loss.detach()` for `total += loss.item()`.
struct LineRewrite {
    std::string line; // the statement as rewritten, without indentation; "" deletes the line
    std::string note; // what the user fills in or does elsewhere ("N: ..."); "" when nothing
    bool operator==(const LineRewrite&) const = default;
};

// The events an insight covers: runs of consecutive events of one column (EventSpan).

struct Insight {
    // The finding's main rule; `rules` lists every rule whose evidence it carries, main first (a
    // sync site is one finding: in-loop, pageable copy, device-wide, bubble are its evidence).
    InsightRule rule = InsightRule::SyncAttribution;
    std::vector<InsightRule> rules;
    Severity severity = Severity::Low;
    std::string title;
    std::string evidence;                     // one line with the numbers
    std::string recommendation;               // wording follows site.language
    const SyncOperation* operation = nullptr; // sync sites: SyncSiteStats::operation
    // Sync sites whose fix is their operation's rewrite: the user's line rewritten, where a
    // template of that operation fits it (SyncSiteStats::lineRewrite).
    std::optional<LineRewrite> lineRewrite;
    SourceSite site;
    int32_t siteIndex = -1; // into InsightReport::sites, -1 for GPU rules

    int64_t count = 0;     // syncs, copies or operations covered (rule-specific, see docs)
    int64_t blockedNs = 0; // host time blocked in the covered syncs
    int64_t bubbleNs = 0;  // GPU idle time after the covered syncs
    double share = 0;      // savingsNs over the analysis window: of a step, when it is the loop
    // What fixing it would save a step: savingsNs over the window's steps; 0 when the window has
    // no steps.
    int64_t stepSavingsNs = 0;
    // What fixing it would save over the window: for sync sites the what-if replay's answer
    // (docs/insights.md, "Simulated savings"), capped by the GPU idle time in the window.
    int64_t savingsNs = 0;
    bool simulated = false; // savingsNs comes from a replay (sites, launch-bound stretches)
    // The change that replay made where it is not siteFix of the finding's syncs (launch-bound:
    // the stretches as CUDA graphs; a site whose statement's work after the value went too:
    // WhatIf::statementShareAfter), for the timeline's after-fix bars; null otherwise.
    std::shared_ptr<const whatif::WhatIf> change;
    std::string assumption;     // what the saving assumes, e.g. "if the host did not wait here"
    int64_t medianPeriodNs = 0; // sync sites: median time between consecutive calls on a thread
    // Rule-specific numbers (0 where they do not apply).
    int64_t bytes = 0;                 // pageable-copy
    int64_t medianBlockedNs = 0;       // sync rules
    int64_t medianLaunchesBetween = 0; // in-loop-sync
    int64_t kernelCount = 0;           // launch-bound
    int64_t startNs = 0, endNs = 0;    // launch-bound: longest stretch; default-stream: first..last
    std::vector<RankNumbers> ranks;    // sync sites of multi-rank sessions: per rank
    std::optional<StragglerNumbers> straggler; // straggler only

    std::shared_ptr<const EventSpans> events; // never null in a report
    int64_t eventCount = 0;                   // sum of the spans' counts
};

// "Your line, rewritten: `total += loss.detach()` (note)." or "Delete your line."
std::string lineRewriteText(const LineRewrite& rewrite);
// The fix as the text output, the card, the report and the CI reports give it: the line
// rewritten, if any, then the recommendation.
std::string fixText(const Insight& insight);

struct SyncSiteStats {
    SourceSite site;
    int64_t count = 0;      // sync records
    int64_t calls = 0;      // user-visible calls: a `.cpu()` is one (its copy and its sync)
    int64_t savingsNs = -1; // the simulated saving, -1 when not simulated
    int64_t blockedNs = 0;
    int64_t medianBlockedNs = 0;
    int64_t bubbleNs = 0;
    // Of blockedNs, the syncs that began in the analysis window, and their share of that window
    // without the recorder's cost (AnalysisContext::savingsWindowNs): the one share definition of
    // every figure the user reads, a finding's saving included (InsightEngine fills both).
    int64_t windowBlockedNs = 0;
    double share = 0;
    // No line of the user's made these syncs, so they are never a user finding (rules skip
    // them; they stay in the sites list). driverInternal: `<driver-internal>` — the driver
    // synchronized on its own (only CUDA and C-runtime frames), or a CUPTI synchronization record
    // that no sync call of the program made (inside cudaHostAlloc on PyTorch's pin-memory
    // thread, a graph launch). noStack: `<no stack>` — a sync call whose stack was not recorded.
    bool driverInternal = false;
    bool noStack = false;
    // Syncs of this line's op in its backward pass, on the autograd engine's thread, joined to it
    // (SyncSites::joinBackwardSites), and the autograd node that made them ("IndexBackward0").
    int64_t backwardSyncs = 0;
    std::string backwardNode;
    // The other lines of the statements joined to this one (SyncSites::joinStatementsOfOneFix:
    // the same pattern on the next lines, removed by the same change), in line order, with their
    // part of count and blockedNs (which include them).
    struct JoinedLine {
        int64_t line = 0;
        int64_t count = 0;
        int64_t blockedNs = 0;
        bool operator==(const JoinedLine&) const = default;
    };
    std::vector<JoinedLine> joinedLines;
    bool joinsLine(int64_t line) const {
        return std::any_of(joinedLines.begin(), joinedLines.end(),
                           [line](const JoinedLine& joined) { return joined.line == line; });
    }
    // The ATen ops of its first stack with them (AtenFrames): the one the user's line called
    // ("is_nonzero": `if tensor:`) and the one that synchronized ("nonzero"); empty without.
    std::string calledOp;
    std::string syncingOp;
    // What the user wrote that synced (sync_operations.h's catalog), by its first stack; null
    // when the catalog does not know it.
    const SyncOperation* operation = nullptr;
    std::string statement; // the user's line as written, trimmed (at most 120 characters)
    // That line rewritten by the operation's template (siteLineRewrite); none when none fits.
    std::optional<LineRewrite> lineRewrite;
    bool isUserFinding() const { return !driverInternal && !noStack; }
    std::array<int64_t, format::kSyncKindMax + 1> countByKind{}; // index = format::SyncKind
    std::vector<RankNumbers> ranks; // sessions of several ranks: per rank (session_ranks.h)
    // The most frequent kind, for titles ("cudaStreamSynchronize × 50").
    format::SyncKind dominantKind() const;
};

// A site's share as a table shows it: "–" for a site whose syncs all lie outside the analysis
// window (start-up, tail), which counts in no share.
std::string siteShareText(const SyncSiteStats& site);

struct DeviceBusy {
    int32_t deviceIndex = -1; // into Session::devices
    std::string label;        // "GPU 0 · NVIDIA H100 80GB HBM3"
    int64_t busyNs = 0;       // union of kernel, memcpy and memset intervals in the window
    double busyShare = 0;     // busyNs / window
};

struct KernelStats {
    std::string name;
    int64_t count = 0;
    int64_t totalNs = 0;
    int64_t maxNs = 0;
    double shareOfGpu = 0; // totalNs / sum of all kernel time
};

// Busy and blocked times are those inside the analysis window (model/analysis/analysis_window.h),
// and their shares are over the window, not over the session's wall time.
struct SessionStatistics {
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t wallNs = 0; // the session span
    int64_t eventCount = 0;
    int64_t windowStartNs = 0, windowEndNs = 0, windowNs = 0;
    std::string windowLabel; // AnalysisWindow::label
    // What a recording with capture control recorded (capturedText); "" without it.
    std::string captured;
    int64_t startupNs = 0; // session start to window start (0 when the window starts there)
    // The loop's steps in the window (AnalysisWindow::steps; 0 when the window is not steps) and
    // one step's time; for the default window (the loop), the GPU work before it (warm-up, part
    // of startupNs) and after it (the tail). docs/insights.md, "The steady state".
    int64_t steps = 0;
    int64_t stepNs = 0;
    int64_t warmupNs = 0;
    int64_t tailNs = 0;
    int64_t gpuBusyNs = 0;   // summed over devices
    double gpuBusyShare = 0; // gpuBusyNs / (window × devices with work in it)
    // The GPUs ran at their power limit while busy: savings discounted
    // (InsightThresholds::powerCap)
    bool gpuPowerCapped = false;
    // Some process recorded no API calls (a light recording): the replay inferred its launches
    // from the order of the correlation ids (model/whatif/inferred_launches.h).
    bool launchesInferred = false;
    // The recorder's own cost the savings leave out (SimulatedSavings::recorderRestartNs; 0 when
    // the session did not measure it).
    int64_t recorderRestartOverheadNs = 0;
    int64_t recorderLaunchOverheadNs = 0;
    // What that cost took of the window (SimulatedSavings::recorderCostInWindowNs): the savings'
    // shares are of the window without it.
    int64_t recorderCostInWindowNs = 0;
    // The GPU's deep-queue delay the savings use (SimulatedSavings::deepQueueDelayNs).
    int64_t gpuDeepQueueDelayNs = 0;
    std::vector<DeviceBusy> devices;
    int64_t hostSyncCount = 0; // host-blocking syncs (all kinds but stream-wait-event) in it
    int64_t hostBlockedNs = 0; // summed over threads
    // hostBlockedNs / window, over the processes that blocked in it (a run's ranks: the mean
    // rank's share); > 1 only when a process's threads block at once.
    double hostBlockedShare = 0;
    int64_t hostBlockingProcesses = 0;   // processes with a host-blocking sync in the window
    bool hostBlockingRanks = false;      // every one of them a rank of a run
    std::vector<int32_t> topSites;       // indexes into InsightReport::sites, largest blocked first
    std::vector<KernelStats> topKernels; // largest total time first
};

struct InsightReport {
    SessionStatistics summary;
    // The run's dependency graph, for replaying a finding's fix (the timeline's "after" bars).
    std::shared_ptr<const whatif::RunGraph> runGraph;
    std::vector<SyncSiteStats> sites; // every host-blocking sync site, largest blocked first
    std::vector<Insight> insights;    // largest savings first
    std::string warning;              // e.g. stacks could not be read
    // What every simulated saving assumes, said once for the whole report rather than on every
    // card: the recorder's own cost left out, a power-capped GPU, inferred launch times
    // (insight_rules::assumptionsText); empty when nothing is assumed.
    std::string assumptions;
    bool cancelled = false;
    double analysisSeconds = 0;
};

} // namespace stallscope::model
