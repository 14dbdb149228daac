#include "model/fleet/rank_reader.h"

#include "format/module_class.h"
#include "format/session_schema.h"
#include "format/terminal_text.h"
#include "model/fleet/fleet_sql.h"
#include "model/session/collective_names.h"
#include "model/session/session_database.h"

#include <algorithm>
#include <map>
#include <utility>

namespace stallscope::model::fleet {

namespace {

// A site's file as kept: enough to name any path, bounded for a crafted file's.
constexpr size_t kMaxSiteFileBytes = 1024;
constexpr const char* kNoStack = "<no stack>";
constexpr const char* kNoUserFrame = "<no user frame>";
constexpr const char* kOtherSites = "<other sites>";

using format::Statement;

// A time as the loader accepts it; anything else (a crafted file's) reads as 0, so that sums and
// differences cannot overflow.
int64_t acceptedTime(int64_t ns) {
    return format::isAcceptedTime(ns) ? ns : 0;
}

// Whether a query failed; *error then says what was read ("reading its syncs: integer overflow").
bool failed(const Statement& statement, const char* what, std::string* error) {
    if (statement.failed())
        *error = std::string("reading its ") + what + ": " + statement.error();
    return statement.failed();
}

struct SiteTally {
    int64_t blockedNs = 0;
    int64_t syncs = 0;
    std::vector<int64_t> stacks; // the first few, for the sync-period steps
    bool withoutStack = false;
};
using SiteKey = std::pair<std::string, int64_t>; // (file, line)
constexpr size_t kStacksPerSite = 64;

// A step runs from its start to the next one's; the last one to its own end.
class StepTimes {
public:
    explicit StepTimes(RankSummary& rank) : m_rank(rank) {}
    void add(int64_t start, int64_t end) {
        if (m_any)
            m_rank.stepNs.add(start - m_start);
        m_any = true;
        m_start = start;
        m_end = std::max(start, end);
        ++m_rank.steps;
    }
    void finish() {
        if (m_any)
            m_rank.stepNs.add(m_end - m_start);
    }

private:
    RankSummary& m_rank;
    bool m_any = false;
    int64_t m_start = 0, m_end = 0;
};

// The steps from the session's step ranges; false with *error when the query fails.
bool readStepRanges(const format::Database& db, RankSummary& rank, std::string* error) {
    Statement rows = db.prepare(sql::stepRanges());
    StepTimes steps(rank);
    while (rows.step()) {
        if (rank.stepSource == StepSource::None)
            rank.stepSource =
                rows.integer(0) == 1 ? StepSource::ProfilerSteps : StepSource::NvtxSteps;
        steps.add(acceptedTime(rows.integer(1)), acceptedTime(rows.integer(2)));
    }
    steps.finish();
    return !failed(rows, "step ranges", error);
}

// Without step ranges: the period of the host-blocking syncs of the site with the most.
bool readSyncSteps(const format::Database& db, const std::map<SiteKey, SiteTally>& sites,
                   RankSummary& rank, std::string* error) {
    const std::pair<const SiteKey, SiteTally>* busiest = nullptr;
    for (const auto& site : sites)
        if (site.first.first != kOtherSites &&
            (!busiest || site.second.syncs > busiest->second.syncs))
            busiest = &site;
    if (!busiest || busiest->second.syncs < 2)
        return true;
    Statement rows =
        db.prepare(sql::blockingSyncStarts(busiest->second.stacks, busiest->second.withoutStack));
    // A sync's start to the next one's start is a step: n syncs make n - 1.
    bool any = false;
    int64_t previous = 0;
    while (rows.step()) {
        const int64_t start = acceptedTime(rows.integer(0));
        if (any) {
            rank.stepNs.add(start - previous);
            ++rank.steps;
        }
        any = true;
        previous = start;
    }
    if (failed(rows, "syncs", error))
        return false;
    if (rank.steps > 0) {
        rank.stepSource = StepSource::SyncPeriod;
        rank.stepSite = busiest->first.second > 0
                            ? busiest->first.first + ":" + std::to_string(busiest->first.second)
                            : busiest->first.first;
    }
    return true;
}

// Per device, the union of its operations' intervals as they come in start order: each counts
// from where the ones before it reached.
bool readGpuBusy(const format::Database& db, RankSummary& rank, std::string* error) {
    Statement rows = db.prepare(sql::gpuOperations());
    bool any = false;
    int64_t device = 0, reach = 0;
    while (rows.step()) {
        const int64_t rowDevice = rows.integer(0);
        const int64_t start = acceptedTime(rows.integer(1)), end = acceptedTime(rows.integer(2));
        if (!any || rowDevice != device) {
            ++rank.devices;
            device = rowDevice;
            reach = start;
            rank.gpuStartNs = any ? std::min(rank.gpuStartNs, start) : start;
            rank.gpuEndNs = any ? std::max(rank.gpuEndNs, end) : end;
            any = true;
        }
        rank.gpuBusyNs = format::addSaturated(rank.gpuBusyNs,
                                              std::max<int64_t>(0, end - std::max(start, reach)));
        reach = std::max(reach, end);
        rank.gpuEndNs = std::max(rank.gpuEndNs, end);
    }
    return !failed(rows, "GPU operations", error);
}

// The site of one stack: the first user frame with a file, as SyncSites::resolve finds it.
class StackSite {
public:
    void frame(const Statement& row) {
        if (m_found || row.isNull(3) || row.integer(3) >= format::kMaxStackDepth)
            return;
        m_frames = true;
        FrameInfo frame;
        frame.kind = static_cast<format::FrameKind>(row.integer(4));
        frame.file = format::clippedText(row.textView(5), kMaxSiteFileBytes);
        if (!row.isNull(7))
            frame.isUser = row.integer(7) != 0;
        if (frame.isUserCode() && !frame.file.empty() && !format::isCudaToolkitHeader(frame.file)) {
            m_found = true;
            m_key = {std::move(frame.file), std::max<int64_t>(0, row.integer(6))};
        }
    }
    SiteKey key(bool hasStack) const {
        if (m_found)
            return m_key;
        return {!hasStack || !m_frames ? kNoStack : kNoUserFrame, 0};
    }

private:
    bool m_found = false, m_frames = false;
    SiteKey m_key;
};

size_t siteBytes(const std::map<SiteKey, SiteTally>& sites) {
    size_t bytes = 0;
    for (const auto& [key, tally] : sites)
        bytes += sizeof(key) + sizeof(tally) + 64 + key.first.capacity() +
                 tally.stacks.capacity() * sizeof(int64_t);
    return bytes;
}

// The host-blocking syncs by site; sites past maxSitesPerRank count as "<other sites>".
bool readSyncSites(const format::Database& db, const FleetOptions& options, RankRead& read,
                   std::map<SiteKey, SiteTally>& sites, std::string* error) {
    Statement rows = db.prepare(sql::blockingSyncsByStack());
    bool folded = false;
    auto add = [&](bool hasStack, int64_t stack, const StackSite& site, int64_t syncs,
                   int64_t blockedNs) {
        SiteKey key = site.key(hasStack);
        auto found = sites.find(key);
        if (found == sites.end() && sites.size() >= options.maxSitesPerRank) {
            folded = true;
            found = sites.try_emplace({kOtherSites, 0}).first;
        } else if (found == sites.end()) {
            found = sites.try_emplace(std::move(key)).first;
        }
        SiteTally& tally = found->second;
        tally.syncs += syncs;
        tally.blockedNs = format::addSaturated(tally.blockedNs, blockedNs);
        if (!hasStack)
            tally.withoutStack = true;
        else if (tally.stacks.size() < kStacksPerSite)
            tally.stacks.push_back(stack);
        read.summary.blockingSyncs += syncs;
        read.summary.blockedNs = format::addSaturated(read.summary.blockedNs, blockedNs);
    };
    bool open = false, hasStack = false;
    int64_t stack = 0, syncs = 0, blockedNs = 0;
    StackSite site;
    while (rows.step()) {
        const bool rowHasStack = !rows.isNull(0);
        const int64_t rowStack = rows.integer(0);
        if (!open || rowHasStack != hasStack || rowStack != stack) {
            if (open)
                add(hasStack, stack, site, syncs, blockedNs);
            open = true;
            hasStack = rowHasStack;
            stack = rowStack;
            syncs = std::max<int64_t>(0, rows.integer(1));
            blockedNs = std::max<int64_t>(0, rows.integer(2));
            site = StackSite();
        }
        site.frame(rows);
    }
    if (open)
        add(hasStack, stack, site, syncs, blockedNs);
    if (folded)
        read.notes.push_back("more than " + std::to_string(options.maxSitesPerRank) +
                             " sync sites: the rest counted as " + kOtherSites);
    return !failed(rows, "syncs and their stacks", error);
}

// The rank's largest sites, and the largest one left out.
void keepTopSites(const std::map<SiteKey, SiteTally>& sites, size_t count, RankRead& read) {
    std::vector<const std::pair<const SiteKey, SiteTally>*> ranked;
    for (const auto& site : sites)
        ranked.push_back(&site);
    std::sort(ranked.begin(), ranked.end(), [](const auto* a, const auto* b) {
        return a->second.blockedNs != b->second.blockedNs
                   ? a->second.blockedNs > b->second.blockedNs
                   : a->first < b->first;
    });
    for (size_t i = 0; i < ranked.size(); ++i) {
        if (i == count) {
            read.siteCutoffNs = ranked[i]->second.blockedNs;
            break;
        }
        read.topSites.push_back({ranked[i]->first.first, ranked[i]->first.second,
                                 ranked[i]->second.blockedNs, ranked[i]->second.syncs});
    }
}

// The rank's collective kernels: each name's starts, sorted by SQLite, into the spill.
bool readArrivals(const format::Database& db, const FleetOptions& options, int32_t spillIndex,
                  ArrivalSpill& spill, CollectiveNames& names, RankRead& read, std::string* error) {
    std::map<int64_t, int32_t> fleetName; // the file's string id -> the fleet's name index
    Statement strings = db.prepare(sql::strings());
    bool capped = false;
    while (strings.step()) {
        const std::string_view text = strings.textView(1);
        if (!isCollectiveKernelName(text))
            continue;
        if (fleetName.size() >= options.maxCollectiveNames) {
            capped = true;
            continue;
        }
        fleetName[strings.integer(0)] =
            names.indexOf(format::clippedText(text, format::kMaxNameBytes));
    }
    if (failed(strings, "strings", error))
        return false;
    if (capped)
        read.notes.push_back("more than " + std::to_string(options.maxCollectiveNames) +
                             " collective kernel names: the rest not matched");
    if (fleetName.empty())
        return true;
    std::vector<int64_t> ids;
    for (const auto& [id, name] : fleetName)
        ids.push_back(id);
    Statement rows = db.prepare(sql::collectiveArrivals(ids));
    ArrivalSegment* segment = nullptr;
    int64_t segmentId = -1;
    while (rows.step()) {
        const int64_t id = rows.integer(0);
        if (!segment || id != segmentId) {
            const auto name = fleetName.find(id);
            if (name == fleetName.end())
                continue;
            segment = &read.arrivals.emplace_back(
                ArrivalSegment{name->second, spillIndex, spill.size(), 0});
            segmentId = id;
        }
        if (!spill.append(acceptedTime(rows.integer(1)), error))
            return false;
        ++segment->count;
        ++read.summary.collectives;
    }
    return !failed(rows, "collective kernels", error) && spill.flush(error);
}

} // namespace

size_t RankRead::keptBytes() const {
    size_t bytes = sizeof(RankRead) + summary.stepNs.bytes() + summary.latenessNs.bytes() +
                   summary.file.capacity() + summary.label.capacity() + summary.host.capacity() +
                   summary.stepSite.capacity() + arrivals.capacity() * sizeof(ArrivalSegment);
    for (const RankSite& site : topSites)
        bytes += sizeof(site) + site.file.capacity();
    for (const std::string& note : notes)
        bytes += note.capacity();
    return bytes;
}

bool readRank(const RankFile& file, const FleetOptions& options, int32_t spillIndex,
              ArrivalSpill& spill, CollectiveNames& names, RankRead* read, std::string* error) {
    RankSummary& rank = read->summary;
    rank = RankSummary();
    rank.stepNs = BoundedQuantiles(options.exactQuantiles);
    rank.latenessNs = BoundedQuantiles(options.exactQuantiles);
    rank.file = file.readPath;
    rank.label = file.label();
    rank.rank = file.rank.value_or(-1);
    rank.host = file.host;
    format::Database db;
    if (!openRankFile(db, file.readPath, error))
        return false;
    std::map<SiteKey, SiteTally> sites;
    if (!readStepRanges(db, rank, error) || !readGpuBusy(db, rank, error) ||
        !readSyncSites(db, options, *read, sites, error) ||
        (rank.steps == 0 && !readSyncSteps(db, sites, rank, error)))
        return false;
    const size_t siteMapBytes = siteBytes(sites);
    keepTopSites(sites, options.sitesPerRank, *read);
    sites.clear();
    if (!readArrivals(db, options, spillIndex, spill, names, *read, error))
        return false;
    read->peakBytes = read->keptBytes() + siteMapBytes;
    return true;
}

} // namespace stallscope::model::fleet
