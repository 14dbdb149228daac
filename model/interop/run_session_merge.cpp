#include "model/interop/run_session_merge.h"

#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "model/interop/run_clock.h"
#include "model/session/collective_names.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace stallscope::model {

namespace {

namespace tables = format::tables;

// The tables whose rows a loaded session holds as its processes and event columns: their
// earliest time is the session's startNs.
constexpr const format::Table* kLoadedTimeTables[] = {
    &tables::kProcesses, &tables::kApiCalls, &tables::kKernels, &tables::kMemcpys,
    &tables::kMemsets,   &tables::kSyncs,    &tables::kRanges,  &tables::kHostSamples};

// What the run's clock alignment needs of one loaded file.
RankClock clockOf(const Session& session) {
    RankClock clock;
    if (!session.processes.empty())
        clock.host = session.processes.front().host;
    std::vector<int8_t> collective(session.strings.size(), -1);  // by name id: unknown, no, yes
    std::vector<std::tuple<int64_t, uint32_t, int64_t>> kernels; // start, row id, end
    for (const StreamLane& lane : session.streamLanes) {
        const KernelColumns& k = lane.kernels;
        for (size_t i = 0; i < k.size(); ++i) {
            int8_t& known = collective[k.nameId[i]];
            if (known < 0)
                known = isCollectiveKernelName(session.strings[k.nameId[i]]) ? 1 : 0;
            if (known)
                kernels.emplace_back(k.start[i], k.rowId[i], k.end[i]);
        }
    }
    std::sort(kernels.begin(), kernels.end());
    for (const auto& kernel : kernels)
        clock.collectiveEndsNs.push_back(std::get<2>(kernel));
    clock.wallOffsetNs = realtimeMinusMonotonic(session.metaValue(format::meta::kCuptiClockVsHost));
    return clock;
}

// The earliest time any row of the rank's file holds: the loaded session's start, and the times
// of the tables it does not hold (modules, CUDA events, dropped records, diagnostics).
int64_t earliestTime(const LoadedRank& rank) {
    int64_t earliest = rank.session->startNs;
    format::Database db;
    std::string ignored; // loaded before: a file that no longer opens keeps the session's start
    if (!format::openSession(db, rank.path, &ignored))
        return earliest;
    for (const format::Table* table : format::kTables) {
        if (std::find(std::begin(kLoadedTimeTables), std::end(kLoadedTimeTables), table) !=
                std::end(kLoadedTimeTables) ||
            (table->sinceVersion > 1 && !format::hasTable(db, table->name)))
            continue;
        for (const format::Column& column : table->columns) {
            if (!format::isInstantColumn(column))
                continue;
            format::Statement least = db.prepare("SELECT min(" + std::string(column.name) +
                                                 ") FROM " + std::string(table->name));
            if (least.step() && !least.isNull(0))
                earliest = std::min(earliest, least.integer(0));
        }
    }
    return earliest;
}

// The run's strings, one id per text, in the order the files first use them.
class StringMerger {
public:
    StringMerger(std::vector<std::string>& strings, size_t capacity) : m_strings(strings) {
        m_strings.assign(1, std::string());
        m_strings.reserve(capacity); // never reallocated: m_ids views its texts
    }
    // The file's string id -> the run's; empty when every id stays as it is.
    std::vector<uint32_t> add(std::vector<std::string>& fileStrings) {
        std::vector<uint32_t> ids(fileStrings.size(), 0);
        bool identity = true;
        for (size_t i = 1; i < fileStrings.size(); ++i) {
            if (const auto found = m_ids.find(fileStrings[i]); found != m_ids.end()) {
                ids[i] = found->second;
            } else {
                ids[i] = static_cast<uint32_t>(m_strings.size());
                m_strings.push_back(std::move(fileStrings[i]));
                m_ids.emplace(m_strings.back(), ids[i]);
            }
            identity = identity && ids[i] == i;
        }
        return identity ? std::vector<uint32_t>() : ids;
    }

private:
    std::vector<std::string>& m_strings;
    std::unordered_map<std::string_view, uint32_t> m_ids;
};

void moveIntervals(IntervalColumns& columns, int64_t rowOffset, int64_t shiftNs) {
    if (rowOffset != 0)
        for (uint32_t& row : columns.rowId)
            row += static_cast<uint32_t>(rowOffset);
    if (shiftNs != 0) {
        for (int64_t& start : columns.start)
            start += shiftNs;
        for (int64_t& end : columns.end)
            end += shiftNs;
    }
}

void mapNames(std::vector<uint32_t>& nameIds, const std::vector<uint32_t>& runIds) {
    if (!runIds.empty())
        for (uint32_t& id : nameIds)
            id = runIds[id]; // the loader checked every name id against the file's strings
}

// Moves one loaded file's descriptions and lanes into `run`.
class RankMover {
public:
    RankMover(Session& run, const format::RowMoves& moves, std::vector<uint32_t> stringIds)
        : m_run(run), m_moves(moves), m_stringIds(std::move(stringIds)) {}

    void move(Session& rank) {
        const int32_t processBase = static_cast<int32_t>(m_run.processes.size());
        const int32_t threadBase = static_cast<int32_t>(m_run.threads.size());
        const int32_t deviceBase = static_cast<int32_t>(m_run.devices.size());
        const int32_t streamBase = static_cast<int32_t>(m_run.streams.size());
        const int64_t processOffset = m_moves.offset(tables::kProcesses);
        for (ProcessInfo& process : rank.processes) {
            process.rowId += processOffset;
            process.startNs += m_moves.shiftNs;
            if (process.endNs)
                *process.endNs += m_moves.shiftNs;
            if (process.rank) {
                process.rank->processId += processOffset;
                process.rank->clockShiftNs += m_moves.shiftNs;
            }
            m_run.processes.push_back(std::move(process));
        }
        for (ThreadInfo& thread : rank.threads) {
            thread.rowId += m_moves.offset(tables::kThreads);
            thread.processId += processOffset;
            thread.processIndex += processBase;
            m_run.threads.push_back(std::move(thread));
        }
        for (DeviceInfo& device : rank.devices) {
            device.rowId += m_moves.offset(tables::kDevices);
            device.processId += processOffset;
            device.processIndex += processBase;
            m_run.devices.push_back(std::move(device));
        }
        for (StreamInfo& stream : rank.streams) {
            stream.rowId += m_moves.offset(tables::kStreams);
            stream.deviceId += m_moves.offset(tables::kDevices);
            stream.deviceIndex += deviceBase;
            m_run.streams.push_back(stream);
        }
        for (HostLane& lane : rank.hostLanes) {
            lane.threadIndex += threadBase;
            moveNamed(lane.apiCalls, tables::kApiCalls);
            moveIntervals(lane.syncs, m_moves.offset(tables::kSyncs), m_moves.shiftNs);
            for (int32_t& stream : lane.syncs.streamIndex)
                stream += stream >= 0 ? streamBase : 0;
            moveStacks(lane.syncs.stackId);
            for (RangeColumns& depth : lane.rangesByDepth) {
                moveIntervals(depth, m_moves.offset(tables::kRanges), m_moves.shiftNs);
                mapNames(depth.nameId, m_stringIds);
            }
            moveIntervals(lane.samples, m_moves.offset(tables::kHostSamples), m_moves.shiftNs);
            moveStacks(lane.samples.stackId);
            m_run.hostLanes.push_back(std::move(lane));
        }
        moveCaptureIntervals(rank, processBase);
        for (auto& [kernel, call] : rank.collectiveCalls) {
            call.processId += processOffset;
            m_run.collectiveCalls.emplace(
                kernel + static_cast<uint32_t>(m_moves.offset(tables::kKernels)), std::move(call));
        }
        for (StreamLane& lane : rank.streamLanes) {
            lane.streamIndex += streamBase;
            moveNamed(lane.kernels, tables::kKernels);
            moveIntervals(lane.memcpys, m_moves.offset(tables::kMemcpys), m_moves.shiftNs);
            moveIntervals(lane.memsets, m_moves.offset(tables::kMemsets), m_moves.shiftNs);
            m_run.streamLanes.push_back(std::move(lane));
        }
    }

private:
    // A rank recorded with capture control keeps its intervals; in a run where other ranks used
    // it, a rank without it recorded its processes' whole time.
    void moveCaptureIntervals(Session& rank, int32_t processBase) {
        if (!m_run.captureControlled)
            return;
        for (CaptureInterval& interval : rank.captureIntervals) {
            interval.processIndex += processBase;
            interval.startNs += m_moves.shiftNs;
            interval.endNs += m_moves.shiftNs;
            m_run.captureIntervals.push_back(std::move(interval));
        }
        if (!rank.captureControlled) // its processes, moved already
            for (size_t p = static_cast<size_t>(processBase); p < m_run.processes.size(); ++p)
                m_run.captureIntervals.push_back(
                    {static_cast<int32_t>(p), m_run.processes[p].startNs,
                     rank.endNs + m_moves.shiftNs, format::capture_reason::kStart,
                     format::capture_reason::kEnd});
    }

    void moveStacks(std::vector<uint32_t>& stackIds) {
        if (const int64_t stacks = m_moves.offset(tables::kStacks); stacks != 0)
            for (uint32_t& stack : stackIds)
                stack += stack != 0 ? static_cast<uint32_t>(stacks) : 0; // 0: no stack
    }

    template <typename Columns> void moveNamed(Columns& columns, const format::Table& table) {
        moveIntervals(columns, m_moves.offset(table), m_moves.shiftNs);
        mapNames(columns.nameId, m_stringIds);
    }

    Session& m_run;
    const format::RowMoves& m_moves;
    const std::vector<uint32_t> m_stringIds;
};

// The tables whose row ids the session's columns hold in 32 bits.
constexpr const format::Table* kUint32IdTables[] = {
    &tables::kApiCalls, &tables::kKernels, &tables::kMemcpys,     &tables::kMemsets,
    &tables::kSyncs,    &tables::kRanges,  &tables::kHostSamples, &tables::kStacks};

// Sets every rank's id offsets (each file's ids after the previous file's) and shift (onto the
// first host's clock, every time kept non-negative); the alignment text, or an error.
bool placeRanks(std::vector<LoadedRank>& ranks, std::string* alignmentText, std::string* error) {
    std::vector<RankClock> clocks;
    for (const LoadedRank& rank : ranks)
        clocks.push_back(clockOf(*rank.session));
    const HostAlignment alignment = alignHosts(clocks);
    *alignmentText = alignment.text;
    int64_t lowest = 0;
    for (size_t i = 0; i < ranks.size(); ++i)
        if (alignment.shiftNs[i] < 0)
            lowest = std::min(lowest, earliestTime(ranks[i]) + alignment.shiftNs[i]);
    std::array<int64_t, format::kTables.size()> nextId{};
    for (size_t i = 0; i < ranks.size(); ++i) {
        LoadedRank& rank = ranks[i];
        rank.moves.idOffset = nextId;
        for (size_t t = 0; t < nextId.size(); ++t)
            nextId[t] += rank.moves.lastId[t];
        rank.moves.shiftNs = alignment.shiftNs[i] - lowest;
        for (const format::Table* table : kUint32IdTables)
            if (nextId[format::tableIndex(*table)] > std::numeric_limits<uint32_t>::max()) {
                *error = rank.path + ": the run has more than 2^32 rows in table '" +
                         std::string(table->name) + "' (unsupported)";
                return false;
            }
        const Session& s = *rank.session;
        if (s.endNs + rank.moves.shiftNs >= format::kTimeLimitNs ||
            s.startNs + rank.moves.shiftNs < 0) {
            *error = rank.path + ": its times do not fit the run's clock (shifted by " +
                     std::to_string(rank.moves.shiftNs) + " ns)";
            return false;
        }
    }
    return true;
}

// The run's meta: its own keys, then the first file's others (command, recorder settings).
void setRunMeta(Session& run, const std::vector<LoadedRank>& ranks, const RunFiles& files,
                const std::string& source, const std::string& alignment) {
    std::string incomplete;
    for (const LoadedRank& rank : ranks) {
        const Session& s = *rank.session;
        if (s.status != format::kStatusComplete && incomplete.empty()) {
            const std::string reason = s.metaValue(format::meta::kIncompleteReason);
            incomplete = std::filesystem::path(rank.path).filename().string() + ": " +
                         (reason.empty() ? "the recording did not finish" : reason);
        }
    }
    run.status = incomplete.empty() ? format::kStatusComplete : format::kStatusIncomplete;
    run.formatVersion = format::kFormatVersion;
    auto& meta = run.meta;
    meta[std::string(format::meta::kFormatName)] = format::kFormatName;
    meta[std::string(format::meta::kFormatVersion)] = std::to_string(format::kFormatVersion);
    meta[std::string(format::meta::kClock)] = format::kClockName;
    meta[std::string(format::meta::kStatus)] = run.status;
    if (!incomplete.empty())
        meta[std::string(format::meta::kIncompleteReason)] = incomplete;
    meta[std::string(format::meta::kImportFormat)] = "stallscope run";
    meta[std::string(format::meta::kImportFiles)] = std::to_string(ranks.size());
    if (!alignment.empty())
        meta[std::string(format::meta::kRunClockAlignment)] = alignment;
    meta.insert(ranks.front().session->meta.begin(), ranks.front().session->meta.end());
    meta[std::string(format::meta::kImportSource)] = source;
    if (!files.skipped.empty()) {
        std::string skipped =
            "skipped " + std::to_string(files.skipped.size()) + " file(s) of the run: ";
        for (size_t i = 0; i < files.skipped.size(); ++i)
            skipped += (i ? "; " : "") + files.skipped[i];
        meta[std::string(format::meta::kImportWarnings)] = skipped;
    }
}

} // namespace

bool readLastRowIds(const std::string& path, format::RowMoves* moves, std::string* error) {
    format::Database db;
    if (!format::openSession(db, path, error))
        return false;
    for (const format::Table* table : format::kTables) {
        int64_t& last = moves->lastId[format::tableIndex(*table)];
        last = 0;
        if (table->withoutRowid || !table->firstColumnIsRowId() ||
            !format::hasTable(db, table->name))
            continue;
        format::Statement maxId =
            db.prepare("SELECT coalesce(max(id), 0) FROM " + std::string(table->name));
        if (!maxId.step()) {
            *error = "corrupt session: cannot read table '" + std::string(table->name) +
                     "': " + db.lastMessage();
            return false;
        }
        last = std::max<int64_t>(0, maxId.integer(0));
    }
    return true;
}

LoadResult mergeLoadedRanks(std::vector<LoadedRank> ranks, const RunFiles& files,
                            const std::string& source) {
    LoadResult result;
    std::string alignment;
    if (ranks.empty() || !placeRanks(ranks, &alignment, &result.error))
        return result;
    auto run = std::make_unique<Session>();
    run->path = source;
    setRunMeta(*run, ranks, files, source, alignment);
    size_t strings = 1;
    for (const LoadedRank& rank : ranks)
        strings += rank.session->strings.size();
    StringMerger merger(run->strings, strings);
    for (const LoadedRank& rank : ranks)
        run->captureControlled = run->captureControlled || rank.session->captureControlled;
    run->startNs = std::numeric_limits<int64_t>::max();
    run->endNs = std::numeric_limits<int64_t>::min();
    for (LoadedRank& rank : ranks) {
        Session& s = *rank.session;
        std::vector<uint32_t> stringIds = merger.add(s.strings);
        run->parts.push_back({rank.path, rank.moves, stringIds});
        RankMover(*run, rank.moves, std::move(stringIds)).move(s);
        const format::EventCounts& c = s.counts;
        run->counts.apiCalls += c.apiCalls;
        run->counts.syncs += c.syncs;
        run->counts.kernels += c.kernels;
        run->counts.memcpys += c.memcpys;
        run->counts.memsets += c.memsets;
        run->counts.ranges += c.ranges;
        if (!s.processes.empty() || s.counts.total() > 0) { // else its bounds are only 0
            run->startNs = std::min(run->startNs, s.startNs + rank.moves.shiftNs);
            run->endNs = std::max(run->endNs, s.endNs + rank.moves.shiftNs);
        }
        run->hostSamples += s.hostSamples;
        run->droppedRecords = format::addSaturated(run->droppedRecords, s.droppedRecords);
        run->untimedEvents += s.untimedEvents;
        rank.session.reset(); // its lanes live on in the run
    }
    if (run->startNs > run->endNs)
        run->startNs = run->endNs = 0;
    std::stable_sort(
        run->captureIntervals.begin(), run->captureIntervals.end(),
        [](const CaptureInterval& a, const CaptureInterval& b) { return a.startNs < b.startNs; });
    run->warning = loadWarning(*run);
    result.session = std::move(run);
    return result;
}

} // namespace stallscope::model
