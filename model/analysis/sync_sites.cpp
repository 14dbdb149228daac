#include "model/analysis/sync_sites.h"

#include "format/module_class.h"
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "model/analysis/aten_frames.h"
#include "model/analysis/line_rewrite.h"
#include "model/analysis/sync_copies.h"
#include "model/session/python_frame_name.h"
#include "model/whatif/median_sample.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <numeric>

namespace stallscope::model {

namespace {

// The same line of the user's (sites that differ at most in the library frame below it).
bool sameUserLine(const SourceSite& a, const SourceSite& b) {
    return a.hasLocation() && a.line == b.line && a.file == b.file && a.function == b.function;
}

SourceSite siteFromFrame(const FrameInfo& frame) {
    SourceSite site;
    site.file = frame.file;
    site.line = frame.line;
    site.function = frame.function.empty() ? std::string("<unknown>") : frame.function;
    site.language =
        frame.kind == format::FrameKind::Python ? SourceLanguage::Python : SourceLanguage::Native;
    site.lineIsDefinition = isDefLineFrame(frame);
    return site;
}

constexpr std::string_view kNoStack = "<no stack>";
constexpr std::string_view kDriverInternal = "<driver-internal>";

// API calls that synchronize or copy by their purpose: the recorder captures a stack for these,
// so a stackless sync of theirs lacks its stack. A sync inside any other call (cudaHostAlloc,
// cudaFree, a graph launch) is the driver's own.
bool isExplicitSyncCall(std::string_view name) {
    for (std::string_view purpose : {"Synchronize", "WaitEvent", "Memcpy", "Memset"})
        if (name.find(purpose) != std::string_view::npos)
            return true;
    return false;
}

// Per stackless host-blocking sync of the lane: the name id of the lane's API call with the
// same correlation id (0: none). The loader has moved such syncs to their caller's lane.
std::unordered_map<uint32_t, uint32_t> callsOfStacklessSyncs(const HostLane& lane) {
    std::unordered_map<uint32_t, uint32_t> calls;
    const SyncColumns& syncs = lane.syncs;
    for (size_t i = 0; i < syncs.size(); ++i)
        if (syncs.stackId[i] == 0 && syncs.correlationId[i] != 0 && isHostBlocking(syncs.kind[i]))
            calls.emplace(syncs.correlationId[i], 0);
    if (calls.empty())
        return calls;
    const ApiCallColumns& api = lane.apiCalls;
    for (size_t j = 0; j < api.size(); ++j) {
        const auto call = calls.find(api.correlationId[j]);
        if (call != calls.end())
            call->second = api.nameId[j];
    }
    return calls;
}

std::string hex(int64_t value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "0x%" PRIx64, static_cast<uint64_t>(value));
    return buffer;
}

std::string baseName(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

SourceSite SyncSites::resolve(const std::vector<FrameInfo>& frames,
                              const std::unordered_map<int64_t, ModuleLocation>& modules) {
    if (frames.empty())
        return {"<unknown>", 0, std::string(kNoStack), SourceLanguage::Unknown};
    const auto user = std::find_if(frames.begin(), frames.end(), [](const FrameInfo& frame) {
        return frame.isUserCode() && !frame.file.empty() &&
               !format::isCudaToolkitHeader(frame.file); // inlined into the user's binary
    });
    if (user != frames.end()) {
        SourceSite site = siteFromFrame(*user);
        // Library Python frames inside the user's frame: the library made the sync, the user's
        // line called it. Name the innermost one, the line that synchronized.
        const auto library = std::find_if(frames.begin(), user, [](const FrameInfo& frame) {
            return frame.kind == format::FrameKind::Python && !frame.file.empty();
        });
        if (library != user)
            site.library = {library->file, library->line, library->function};
        return site;
    }
    // No user frame (a thread that runs library code only): the innermost frame with a line.
    for (const FrameInfo& frame : frames)
        if (frame.kind == format::FrameKind::Python)
            return siteFromFrame(frame);
    for (const FrameInfo& frame : frames)
        if (frame.kind == format::FrameKind::Native && !frame.file.empty())
            return siteFromFrame(frame);
    // Only CUDA and C-runtime frames: the driver synchronized on its own (context teardown at
    // exit), no line of the user's made this sync.
    const bool driverInternal = std::all_of(frames.begin(), frames.end(), [&](const FrameInfo& f) {
        const auto module = modules.find(f.moduleId);
        return f.kind == format::FrameKind::Native && module != modules.end() &&
               (format::isSyncEntryModule(module->second.name) ||
                format::isCRuntimeModule(module->second.name));
    });
    if (driverInternal)
        return {"", 0, std::string(kDriverInternal), SourceLanguage::Native};
    // Nothing names a source line. Name the innermost frame outside the profiler and CUDA
    // libraries (every sync passes through those, so they would tell nothing apart) by module
    // and offset, so a user can symbolize it by hand.
    const FrameInfo* named = &frames.front();
    for (const FrameInfo& frame : frames) {
        const auto module = modules.find(frame.moduleId);
        if (module == modules.end() || !format::isSyncEntryModule(module->second.name)) {
            named = &frame;
            break;
        }
    }
    const FrameInfo& innermost = *named;
    SourceSite site{"<unknown>", 0, {}, SourceLanguage::Native};
    const auto module = modules.find(innermost.moduleId);
    if (module != modules.end())
        site.function =
            module->second.name + "+" + hex(innermost.address - module->second.loadBias);
    else
        site.function = hex(innermost.address);
    return site;
}

int32_t SyncSites::siteForStack(uint32_t stackId) {
    const auto known = m_stackToSite.find(stackId);
    if (known != m_stackToSite.end())
        return known->second;
    std::vector<FrameInfo> frames = m_database->stack(stackId);
    if (frames.empty())
        ++m_stacksWithoutFrames;
    SourceSite site = resolve(frames, m_modules);
    // Without a source line, different stacks may be different call sites: keep them apart.
    if (site.file == "<unknown>" && !frames.empty())
        site.function += ", stack " + std::to_string(stackId);
    // PyTorch's autograd thread runs no Python: a sync in an op's backward pass is named by the
    // op and its node, and joined to the line whose forward op made the node (joinBackwardSites).
    const AtenFrames aten = atenFramesOf(frames);
    const bool python = std::any_of(frames.begin(), frames.end(), [](const FrameInfo& frame) {
        return frame.kind == format::FrameKind::Python;
    });
    // A native frame's name that is a C++ template (PyTorch's dispatcher wrappers) says less than
    // the ATen op that synced.
    if (!site.hasLocation() && site.language == SourceLanguage::Native && !aten.syncingOp.empty() &&
        site.function.find('<') != std::string::npos)
        site = {"", 0, "aten::" + aten.syncingOp, SourceLanguage::Native};
    if (!python && !aten.backwardNode.empty())
        site = {"", 0,
                (aten.syncingOp.empty() ? std::string("sync") : aten.syncingOp) +
                    " in the backward pass (" + aten.backwardNode + ")",
                SourceLanguage::Python};
    const int32_t index = siteFor(std::move(site));
    m_stackToSite.emplace(stackId, index);
    if (!m_evidenceOfSite.contains(index)) { // a site's operation is told by its first stack
        const SourceSite& located = m_stats[index].site;
        m_evidenceOfSite.emplace(index, SyncEvidence{located.library, aten, cudaCallOf(frames),
                                                     located.hasLocation()
                                                         ? sourceLine(located.file, located.line)
                                                         : std::string_view{}});
    }
    if (m_stats[index].calledOp.empty()) {
        m_stats[index].calledOp = aten.calledOp;
        m_stats[index].syncingOp = aten.syncingOp;
    }
    if (!python && !aten.backwardNode.empty())
        m_backwardNodeOfSite.emplace(index, aten.backwardNode);
    else if (python && !aten.calledOp.empty())
        m_forwardOpsOfSite[index].push_back(aten.calledOp);
    return index;
}

int32_t SyncSites::siteForStackless(uint32_t apiNameId) {
    const std::string& call = m_session->string(apiNameId);
    // A sync call whose stack is missing; or, when no call correlates, one of a session that
    // recorded no stacks (or wrote none: imported, generated) — nothing says whose it was.
    if (apiNameId != 0 ? isExplicitSyncCall(call) : !m_stacksRecorded)
        return siteFor({"<unknown>", 0, std::string(kNoStack), SourceLanguage::Unknown});
    // A synchronization record that no sync call of the program made (the recorder captures a
    // stack at every one): named by the call that made it when CUPTI's correlation id finds one.
    std::string function(kDriverInternal);
    if (!call.empty())
        function += " in " + call;
    return siteFor({"", 0, std::move(function), SourceLanguage::Native});
}

int32_t SyncSites::siteFor(SourceSite site) {
    std::string key;
    for (const std::string* part :
         {&site.file, &site.function, &site.library.file, &site.library.function}) {
        key += *part;
        key += '\0';
    }
    key += std::to_string(site.line) + ':' + std::to_string(site.library.line);
    key += static_cast<char>('0' + static_cast<int>(site.language));
    auto [entry, added] =
        m_siteByKey.try_emplace(std::move(key), static_cast<int32_t>(m_stats.size()));
    if (added) {
        SyncSiteStats stats;
        stats.driverInternal = site.function.starts_with(kDriverInternal);
        stats.noStack = site.function == kNoStack;
        stats.site = std::move(site);
        m_stats.push_back(std::move(stats));
    }
    return entry->second;
}

bool SyncSites::build(const Session& session, const SessionDatabase& database,
                      const GpuActivity& gpu, const InsightThresholds& thresholds,
                      const std::atomic<bool>* cancel, std::string* warning) {
    m_session = &session;
    m_database = &database;
    m_gpu = &gpu;
    m_thresholds = &thresholds;
    m_stacksRecorded = session.metaValue(format::meta::kRecorderStacks) == "1";
    for (const ModuleInfo& module : database.modules())
        m_modules[module.id] = {baseName(module.path), module.loadBias};

    m_ranks = sessionRanks(session);
    const std::vector<int32_t> slotOfProcess = rankSlots(session, m_ranks);
    m_rankSlotOfLane.assign(session.hostLanes.size(), -1);
    for (size_t l = 0; l < session.hostLanes.size(); ++l)
        if (const int32_t thread = session.hostLanes[l].threadIndex;
            thread >= 0 && static_cast<size_t>(thread) < session.threads.size() &&
            session.threads[thread].processIndex >= 0)
            m_rankSlotOfLane[l] = slotOfProcess[session.threads[thread].processIndex];

    // Pass 1: the site of every blocking sync, counts, blocked time and bubbles.
    m_siteOf.assign(session.hostLanes.size(), {});
    m_continuesCall.assign(session.hostLanes.size(), {});
    m_bubble.assign(session.hostLanes.size(), {});
    std::vector<int64_t> hints;
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const SyncColumns& syncs = session.hostLanes[l].syncs;
        std::vector<int32_t>& siteOf = m_siteOf[l];
        siteOf.assign(syncs.size(), -1);
        m_continuesCall[l].assign(syncs.size(), 0);
        m_bubble[l].assign(syncs.size(), 0);
        hints.assign(gpu.deviceCount(), -1);
        const std::unordered_map<uint32_t, uint32_t> stacklessCalls =
            callsOfStacklessSyncs(session.hostLanes[l]);
        uint32_t lastStack = 0, callStack = 0;
        int32_t lastSite = -1, callSite = -1; // the site and stack that began the current call
        for (size_t i = 0; i < syncs.size(); ++i) {
            if (!isHostBlocking(syncs.kind[i]))
                continue;
            if (syncs.stackId[i] == 0) {
                const auto call = stacklessCalls.find(syncs.correlationId[i]);
                lastSite = siteForStackless(call == stacklessCalls.end() ? 0 : call->second);
            } else if (syncs.stackId[i] != lastStack) {
                // Loops sync from the same stack over and over: skip the hash lookup then.
                lastSite = siteForStack(syncs.stackId[i]);
            }
            lastStack = syncs.stackId[i];
            siteOf[i] = lastSite;
            if (callSite >= 0 && lastStack != 0 && lastStack != callStack &&
                sameUserLine(m_stats[callSite].site, m_stats[lastSite].site)) {
                m_continuesCall[l][i] = 1;
            } else {
                callSite = lastSite;
                callStack = lastStack;
            }
            SyncSiteStats& stats = m_stats[lastSite];
            const int64_t blocked = syncs.duration(i);
            ++stats.count;
            stats.blockedNs = format::addSaturated(stats.blockedNs, blocked);
            ++stats.countByKind[syncs.kind[i] <= format::kSyncKindMax ? syncs.kind[i] : 0];
            const int64_t bubble = computeBubble(static_cast<int32_t>(l), i, hints);
            m_bubble[l][i] = static_cast<uint32_t>(
                std::min<int64_t>(bubble, std::numeric_limits<uint32_t>::max()));
            stats.bubbleNs = format::addSaturated(stats.bubbleNs, m_bubble[l][i]);
            if (const int32_t slot = m_rankSlotOfLane[l]; slot >= 0) {
                if (stats.ranks.empty())
                    for (const RankInfo& rank : m_ranks)
                        stats.ranks.push_back({rank.processIndex, rank.rank, rank.label});
                RankNumbers& numbers = stats.ranks[slot];
                ++numbers.count;
                numbers.blockedNs = format::addSaturated(numbers.blockedNs, blocked);
            }
        }
        if (cancel && cancel->load())
            return false;
    }
    if (warning && m_stacksWithoutFrames > 0)
        *warning = std::to_string(m_stacksWithoutFrames) +
                   " call stacks could not be read: their syncs are attributed to <no stack>";
    identifyOperations();
    joinBackwardSites();
    joinStatementsOfOneFix();
    sortSitesByBlocked();

    // Pass 2: group the syncs by site (a counting sort keeps lane and time order in a site).
    m_siteOffset.assign(m_stats.size() + 1, 0);
    for (size_t s = 0; s < m_stats.size(); ++s)
        m_siteOffset[s + 1] = m_siteOffset[s] + static_cast<size_t>(m_stats[s].count);
    m_bySite.resize(m_siteOffset.back());
    std::vector<size_t> fill(m_siteOffset.begin(), m_siteOffset.end() - 1);
    for (size_t l = 0; l < m_siteOf.size(); ++l)
        for (size_t i = 0; i < m_siteOf[l].size(); ++i)
            if (m_siteOf[l][i] >= 0)
                m_bySite[fill[m_siteOf[l][i]]++] =
                    EventRef::sync(static_cast<int32_t>(l), static_cast<uint32_t>(i));

    // Medians (the shares are of the analysis window, which the engine knows).
    std::vector<int64_t> durations;
    for (size_t s = 0; s < m_stats.size(); ++s) {
        durations.clear();
        for (const EventRef& ref : syncsOf(static_cast<int32_t>(s)))
            durations.push_back(session.hostLanes[ref.lane].syncs.duration(ref.index));
        m_stats[s].medianBlockedNs = whatif::upperMedian(durations);
    }
    m_spans.assign(m_stats.size(), nullptr);
    return !(cancel && cancel->load());
}

std::string_view SyncSites::sourceLine(const std::string& file, int64_t line) {
    auto [entry, added] = m_sourceText.try_emplace(file);
    if (added)
        if (std::optional<SourceFile> source = m_database->source(file))
            entry->second = std::move(source->text);
    return entry->second ? sourceLineOf(*entry->second, line) : std::string_view{};
}

void SyncSites::identifyOperations() {
    m_syncCopies = joinSyncCopies(*m_session, *m_gpu);
    const std::vector<bool> readsValues = sitesReadingValues(
        *m_session, m_syncCopies,
        [this](int32_t lane, size_t index) { return m_siteOf[lane][index]; }, m_stats.size());
    for (auto& [site, evidence] : m_evidenceOfSite) {
        evidence.readsValues = readsValues[site];
        evidence.kinds = 0;
        for (size_t k = 1; k < m_stats[site].countByKind.size(); ++k)
            if (m_stats[site].countByKind[k] > 0)
                evidence.kinds |= syncKindBit(static_cast<format::SyncKind>(k));
        m_stats[site].operation = identifySyncOperation(evidence);
        m_stats[site].statement = statementText(evidence.line);
        m_stats[site].lineRewrite =
            siteLineRewrite(m_stats[site].operation, evidence, m_stats[site].site);
    }
    // Only the build needs them (evidence.line points into m_sourceText).
    m_evidenceOfSite.clear();
    m_sourceText.clear();
}

void SyncSites::joinSite(int32_t from, int32_t into) {
    SyncSiteStats& source = m_stats[from];
    SyncSiteStats& target = m_stats[into];
    if (!target.operation) {
        target.operation = source.operation;
        target.statement = source.statement;
        target.lineRewrite = source.lineRewrite;
    }
    target.count += source.count;
    target.backwardSyncs += source.backwardSyncs;
    if (target.backwardNode.empty())
        target.backwardNode = source.backwardNode;
    target.blockedNs = format::addSaturated(target.blockedNs, source.blockedNs);
    target.bubbleNs = format::addSaturated(target.bubbleNs, source.bubbleNs);
    for (size_t k = 0; k < target.countByKind.size(); ++k)
        target.countByKind[k] += source.countByKind[k];
    if (source.site.line != target.site.line && source.site.hasLocation()) {
        // (Several sites of one line join one after the other: one entry.)
        auto line = std::find_if(
            target.joinedLines.begin(), target.joinedLines.end(),
            [&source](const SyncSiteStats::JoinedLine& l) { return l.line == source.site.line; });
        if (line == target.joinedLines.end())
            line = target.joinedLines.insert(target.joinedLines.end(), {source.site.line, 0, 0});
        line->count += source.count;
        line->blockedNs = format::addSaturated(line->blockedNs, source.blockedNs);
    }
    if (target.ranks.empty())
        target.ranks = source.ranks;
    else
        for (size_t r = 0; r < target.ranks.size() && r < source.ranks.size(); ++r) {
            target.ranks[r].count += source.ranks[r].count;
            target.ranks[r].blockedNs =
                format::addSaturated(target.ranks[r].blockedNs, source.ranks[r].blockedNs);
        }
    source = SyncSiteStats{}; // no sync left: sortSitesByBlocked drops it
    // Its syncs, stacks and keys move to `into` in sortSitesByBlocked's one pass over them.
    if (m_joinedInto.size() < m_stats.size())
        m_joinedInto.resize(m_stats.size(), -1);
    m_joinedInto[from] = into;
}

void SyncSites::joinBackwardSites() {
    for (const auto& [backward, backwardNode] : m_backwardNodeOfSite) {
        const std::string& node = backwardNode; // a lambda may not capture a structured binding
        // The user's line whose forward op made the node; of several, the one with most syncs.
        int32_t forward = -1;
        for (const auto& [site, ops] : m_forwardOpsOfSite) {
            const SyncSiteStats& stats = m_stats[site];
            if (!stats.site.hasLocation() ||
                std::none_of(ops.begin(), ops.end(),
                             [&node](const std::string& op) { return isBackwardOf(node, op); }))
                continue;
            if (forward < 0 || stats.count > m_stats[forward].count ||
                (stats.count == m_stats[forward].count && site < forward))
                forward = site;
        }
        if (forward < 0)
            continue;
        m_stats[forward].backwardSyncs += m_stats[backward].count;
        m_stats[forward].backwardNode = node;
        joinSite(backward, forward);
    }
}

void SyncSites::joinStatementsOfOneFix() {
    // Sites of the user's code, by file and function, in line order; the one with more syncs
    // first among those of one line.
    std::vector<int32_t> order;
    for (size_t s = 0; s < m_stats.size(); ++s)
        if (m_stats[s].count > 0 && m_stats[s].isUserFinding() && m_stats[s].site.hasLocation())
            order.push_back(static_cast<int32_t>(s));
    auto key = [this](int32_t s) {
        const SourceSite& site = m_stats[s].site;
        return std::tie(site.file, site.function, site.language);
    };
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        if (key(a) != key(b))
            return key(a) < key(b);
        if (m_stats[a].site.line != m_stats[b].site.line)
            return m_stats[a].site.line < m_stats[b].site.line;
        return m_stats[a].count > m_stats[b].count;
    });
    const InsightThresholds::FixGroup& group = m_thresholds->fixGroup;
    // `into` gathers a run of statements; `last` is the line the run reached, `runCount` its
    // first statement's syncs.
    int32_t into = -1;
    int64_t last = 0, runCount = 0;
    for (int32_t s : order) {
        const SyncSiteStats& stats = m_stats[s];
        const bool sameLine = into >= 0 && key(s) == key(into) && stats.site.line == last;
        // The next statement of the same kind, run as often: the same pattern written twice
        // (two batches moved to the GPU, two buffers freed), which one change removes.
        const bool nextStatement = into >= 0 && key(s) == key(into) && stats.site.line > last &&
                                   stats.site.line - last <= group.maxLineGap &&
                                   stats.dominantKind() == m_stats[into].dominantKind() &&
                                   std::abs(static_cast<double>(stats.count - runCount)) <=
                                       group.maxCountDifference * static_cast<double>(runCount);
        if (sameLine || nextStatement) {
            last = stats.site.line;
            joinSite(s, into);
            continue;
        }
        into = s;
        last = stats.site.line;
        runCount = stats.count;
    }
}

void SyncSites::sortSitesByBlocked() {
    std::vector<int32_t> order(m_stats.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [this](int32_t a, int32_t b) {
        if (m_stats[a].blockedNs != m_stats[b].blockedNs)
            return m_stats[a].blockedNs > m_stats[b].blockedNs;
        return m_stats[a].count > m_stats[b].count;
    });
    // Sites left without syncs (joined to another: joinSite) sort last and go.
    while (!order.empty() && m_stats[order.back()].count == 0)
        order.pop_back();
    std::vector<int32_t> newIndex(m_stats.size(), -1);
    std::vector<SyncSiteStats> sorted;
    sorted.reserve(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        newIndex[order[i]] = static_cast<int32_t>(i);
        sorted.push_back(std::move(m_stats[order[i]]));
    }
    // A joined site's syncs go where it was joined (the end of a chain: a backward site joined
    // to a line that then joined the statement before it).
    m_joinedInto.resize(m_stats.size(), -1);
    for (size_t s = 0; s < m_stats.size(); ++s) {
        int32_t root = static_cast<int32_t>(s);
        while (m_joinedInto[root] >= 0)
            root = m_joinedInto[root];
        if (root != static_cast<int32_t>(s))
            newIndex[s] = newIndex[root];
    }
    m_joinedInto.clear();
    m_stats = std::move(sorted);
    for (std::vector<int32_t>& lane : m_siteOf)
        for (int32_t& site : lane)
            if (site >= 0)
                site = newIndex[site];
    for (auto& [key, site] : m_siteByKey)
        site = newIndex[site];
    for (auto& [stack, site] : m_stackToSite)
        site = newIndex[site];
}

int64_t SyncSites::computeBubble(int32_t lane, size_t index, std::vector<int64_t>& hints) const {
    const int32_t device = m_gpu->deviceOfSync(lane, index);
    if (device < 0)
        return 0;
    const SyncColumns& syncs = m_session->hostLanes[lane].syncs;
    const int64_t from = syncs.start[index];
    const int64_t t = syncs.end[index];
    const BusyIntervals& busy = m_gpu->busy(device);
    // One search answers all three questions (the intervals are disjoint and sorted).
    const int64_t last = busy.lastStartingAtOrBefore(t, hints[device]);
    hints[device] = last;
    // Idle time is the sync's doing only when the sync drained work (the device was busy while
    // the host waited) and nothing else keeps the device busy when it returns. A sync that finds
    // the GPU already idle (a loader thread's event sync) did not cause the idle time after it.
    if (last < 0 || busy.end[last] > t || busy.end[last] <= from || t <= from)
        return 0;
    if (static_cast<size_t>(last + 1) >= busy.size())
        return 0; // no later GPU work: nothing was delayed
    const int64_t next = busy.start[last + 1];
    int64_t until = std::min(next, t + m_thresholds->bubble.maxPerSyncNs);
    // The thread's next blocking sync owns the idle time from its own end on.
    for (size_t j = index + 1; j < syncs.size(); ++j) {
        if (!isHostBlocking(syncs.kind[j]))
            continue;
        until = std::min(until, std::max(syncs.start[j], t));
        break;
    }
    return until - t;
}

std::shared_ptr<const EventSpans> SyncSites::spansOf(int32_t site) const {
    if (!m_spans[site])
        m_spans[site] = std::make_shared<const EventSpans>(spansFor(syncsOf(site)));
    return m_spans[site];
}

EventSpans SyncSites::spansFor(std::span<const EventRef> syncs) {
    EventSpans spans;
    for (const EventRef& ref : syncs) {
        if (!spans.empty() && spans.back().at(spans.back().count) == ref) {
            ++spans.back().count;
            continue;
        }
        spans.push_back({ref, 1});
    }
    return spans;
}

SourceLanguage SyncSites::dominantLanguage() const {
    SourceLanguage language = SourceLanguage::Unknown;
    for (const SyncSiteStats& stats : m_stats) {
        if (stats.site.language == SourceLanguage::Python)
            return SourceLanguage::Python;
        if (stats.site.language == SourceLanguage::Native)
            language = SourceLanguage::Native;
    }
    return language;
}

} // namespace stallscope::model
