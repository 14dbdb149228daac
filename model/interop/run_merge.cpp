#include "model/interop/run_merge.h"

#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "model/session/collective_names.h"
#include "model/session/session_file_check.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

namespace fs = std::filesystem;

namespace stallscope::model {

namespace {

constexpr std::string_view kSource = "src";

// What a merged file's rows refer to: a column named like a key of this table holds another
// table's row id (streams.stream_id is CUPTI's own id and stays as it is).
std::optional<std::string_view> referencedTable(std::string_view table, std::string_view column) {
    static const std::map<std::string_view, std::string_view> kReferences = {
        {"process_id", "processes"}, {"thread_id", "threads"}, {"device_id", "devices"},
        {"stream_id", "streams"},    {"name_id", "strings"},   {"module_id", "modules"},
        {"frame_id", "frames"},      {"stack_id", "stacks"}};
    if (table == "streams" && column == "stream_id")
        return std::nullopt;
    const auto found = kReferences.find(column);
    return found == kReferences.end() ? std::nullopt : std::optional(found->second);
}

bool isTimeColumn(std::string_view column) {
    return column.size() > 3 && column.substr(column.size() - 3) == "_ns";
}

bool isRowIdTable(const format::Table& table) {
    return !table.withoutRowid && table.firstColumnIsRowId();
}

// One input as checked before merging.
struct Input {
    std::string path;
    std::string name; // file name, for messages
    std::string host;
    std::optional<int64_t> rank;
    std::string status;
    std::string incompleteReason;
    std::vector<int64_t> collectiveEndsNs; // NCCL kernels' ends, in start order
    std::optional<int64_t> wallOffsetNs;   // CLOCK_REALTIME - CLOCK_MONOTONIC on its host
    // Tables newer than the input's format version that it lacks (a v1 file has no
    // process_ranks, a v2 file no host_samples): nothing to copy from them.
    std::vector<std::string_view> absentTables;
    int64_t rows = 0;
    int64_t shiftNs = 0;
};

std::string oneValue(const format::Database& db, const std::string& sql) {
    format::Statement statement = db.prepare(sql);
    return statement.step() ? statement.text(0) : std::string();
}

int64_t oneInteger(const format::Database& db, const std::string& sql) {
    format::Statement statement = db.prepare(sql);
    return statement.step() ? statement.integer(0) : 0;
}

bool hasProcessRanks(const format::Database& db) {
    return format::hasTable(db, format::tables::kProcessRanks.name);
}

std::optional<int64_t> firstRank(const format::Database& db) {
    if (!hasProcessRanks(db))
        return std::nullopt;
    format::Statement rank = db.prepare("SELECT rank FROM process_ranks ORDER BY id LIMIT 1");
    if (!rank.step())
        return std::nullopt;
    return rank.integer(0);
}

// Empty when every reference column of `db` names a row id its table can hold: ids are moved as
// one block per file, so a reference outside [1, max id] could land in another file's rows.
std::string referenceProblem(const format::Database& db) {
    for (const format::Table* table : format::kTables) {
        if (table->sinceVersion > 1 && !format::hasTable(db, table->name))
            continue;
        for (const format::Column& column : table->columns) {
            const auto target = referencedTable(table->name, column.name);
            if (!target)
                continue;
            const std::string sql =
                "SELECT count(*) FROM " + std::string(table->name) + " WHERE " +
                std::string(column.name) + " IS NOT NULL AND (" + std::string(column.name) +
                " < 1 OR " + std::string(column.name) + " > (SELECT coalesce(max(id), 0) FROM " +
                std::string(*target) + "))";
            if (oneInteger(db, sql) != 0)
                return "corrupt session: " + std::string(table->name) + "." +
                       std::string(column.name) + " names a row that does not exist";
        }
    }
    return {};
}

int64_t rowCount(const format::Database& db) {
    int64_t rows = 0;
    for (const format::Table* table : format::kTables)
        if (isRowIdTable(*table) && table->name != "meta")
            rows += oneInteger(db, "SELECT coalesce(max(id), 0) FROM " + std::string(table->name));
    return rows;
}

// The earliest time any row of `db` holds (0 when it holds none).
int64_t earliestTime(const format::Database& db) {
    std::optional<int64_t> earliest;
    for (const format::Table* table : format::kTables) {
        if (table->sinceVersion > 1 && !format::hasTable(db, table->name))
            continue;
        for (const format::Column& column : table->columns) {
            if (!isTimeColumn(column.name) || column.name == "clock_shift_ns")
                continue;
            format::Statement least = db.prepare("SELECT min(" + std::string(column.name) +
                                                 ") FROM " + std::string(table->name));
            if (least.step() && !least.isNull(0))
                earliest = std::min(earliest.value_or(least.integer(0)), least.integer(0));
        }
    }
    return earliest.value_or(0);
}

// Opens and checks one input; false with *error naming it.
bool readInput(Input& input, std::string* error) {
    if (std::string problem = checkSqliteFile(input.path); !problem.empty()) {
        *error = input.path + ": " + problem;
        return false;
    }
    format::Database db;
    std::string problem;
    if (!format::openSession(db, input.path, &problem)) {
        *error = input.path + ": " + problem;
        return false;
    }
    if (oneValue(db, "SELECT value FROM meta WHERE key = 'format_name'") != format::kFormatName) {
        *error = input.path + ": not a Stallscope session";
        return false;
    }
    const std::string version = oneValue(db, "SELECT value FROM meta WHERE key = 'format_version'");
    int versionNumber = 0;
    for (int v = 1; v <= format::kFormatVersion; ++v)
        if (version == std::to_string(v))
            versionNumber = v;
    if (versionNumber == 0) {
        *error = input.path + ": format version '" + version + "' is not one this Stallscope reads";
        return false;
    }
    for (const format::Table* table : format::kTables) {
        if (table->sinceVersion == 1 || format::hasTable(db, table->name))
            continue;
        if (versionNumber >= table->sinceVersion) {
            *error =
                input.path + ": corrupt session: missing table '" + std::string(table->name) + "'";
            return false;
        }
        input.absentTables.push_back(table->name);
    }
    if (problem = referenceProblem(db); !problem.empty()) {
        *error = input.path + ": " + problem;
        return false;
    }
    input.host = oneValue(db, "SELECT host FROM processes ORDER BY id LIMIT 1");
    input.rank = firstRank(db);
    input.status = oneValue(db, "SELECT value FROM meta WHERE key = 'status'");
    input.incompleteReason = oneValue(db, "SELECT value FROM meta WHERE key = 'incomplete_reason'");
    std::string collectiveNames;
    format::Statement names = db.prepare("SELECT id, text FROM strings");
    while (names.step())
        if (isCollectiveKernelName(names.text(1)))
            collectiveNames += (collectiveNames.empty() ? "" : ", ") + names.text(0);
    if (!collectiveNames.empty()) {
        format::Statement ends = db.prepare("SELECT end_ns FROM kernels WHERE name_id IN (" +
                                            collectiveNames + ") ORDER BY start_ns, id");
        while (ends.step())
            input.collectiveEndsNs.push_back(ends.integer(0));
    }
    input.wallOffsetNs = realtimeMinusMonotonic(
        oneValue(db, "SELECT value FROM meta WHERE key = 'cupti_clock_vs_host'"));
    input.rows = rowCount(db);
    return true;
}

std::string selectExpression(const format::Table& table, const format::Column& column,
                             const std::map<std::string_view, int64_t>& offsets, int64_t shiftNs) {
    const std::string name(column.name);
    if (&column == &table.columns.front() && isRowIdTable(table))
        return name + " + " + std::to_string(offsets.at(table.name));
    // Names are one string per text across the run (see mapStrings).
    if (column.name == "name_id")
        return "(SELECT merged FROM temp.string_map WHERE original = name_id)";
    if (const auto target = referencedTable(table.name, column.name))
        return name + " + " + std::to_string(offsets.at(*target));
    if (isTimeColumn(column.name) && shiftNs != 0)
        return name + " + " + std::to_string(shiftNs);
    return name;
}

// "INSERT INTO main.t (columns) SELECT moved columns FROM src.t": sources are keyed by path, so
// a file two ranks embedded is kept once (its row id is not referred to).
std::string copySql(const format::Table& table, const std::map<std::string_view, int64_t>& offsets,
                    int64_t shiftNs) {
    const bool sources = table.name == format::tables::kSources.name;
    std::string columns, values;
    for (const format::Column& column : table.columns) {
        if (sources && &column == &table.columns.front())
            continue;
        columns += (columns.empty() ? "" : ", ") + std::string(column.name);
        values += (values.empty() ? "" : ", ") + selectExpression(table, column, offsets, shiftNs);
    }
    return std::string(sources ? "INSERT OR IGNORE" : "INSERT") + " INTO main." +
           std::string(table.name) + " (" + columns + ") SELECT " + values + " FROM " +
           std::string(kSource) + "." + std::string(table.name);
}

// One string per text in the merged file, so that the same kernel or API name has one id on
// every rank (statistics by name, collectives matched by name): the input's new texts are added,
// and temp.string_map maps each of its string ids to the merged one.
bool mapStrings(format::Database& db, std::string* error) {
    return db.exec(
        "INSERT INTO main.strings (text) SELECT text FROM src.strings s WHERE NOT EXISTS "
        "(SELECT 1 FROM main.strings m WHERE m.text = s.text) GROUP BY text ORDER BY "
        "min(id);"
        "DELETE FROM temp.string_map;"
        "INSERT INTO temp.string_map (original, merged) SELECT s.id, m.id FROM "
        "src.strings s JOIN main.strings m ON m.text = s.text",
        error);
}

std::string hostShiftText(const std::string& host, const ClockAlignment& alignment) {
    char text[160];
    std::snprintf(text, sizeof text, "%s: %+.3f ms (±%.3f ms, %lld collectives)", host.c_str(),
                  alignment.shiftNs / 1e6, alignment.spreadNs / 1e6,
                  static_cast<long long>(alignment.matched));
    return text;
}

// Puts every host's inputs on the first input's clock; returns the text for meta.
std::string alignHosts(std::vector<Input>& inputs) {
    const std::string& referenceHost = inputs.front().host;
    std::map<std::string, ClockAlignment> byHost;
    std::string text;
    for (const Input& input : inputs) {
        if (input.host == referenceHost || byHost.count(input.host))
            continue;
        std::optional<int64_t> hint;
        if (inputs.front().wallOffsetNs && input.wallOffsetNs)
            hint = *input.wallOffsetNs - *inputs.front().wallOffsetNs;
        const ClockAlignment alignment =
            alignOnCollectives(inputs.front().collectiveEndsNs, input.collectiveEndsNs, hint);
        byHost[input.host] = alignment;
        text +=
            (text.empty() ? "" : "; ") +
            (alignment.matched ? hostShiftText(input.host, alignment)
                               : input.host + ": not aligned (no collective kernels in common)");
    }
    int64_t lowest = 0;
    for (Input& input : inputs) {
        input.shiftNs = input.host == referenceHost ? 0 : byHost[input.host].shiftNs;
        if (input.shiftNs < 0) {
            format::Database db;
            std::string ignored; // opened and checked before
            if (format::openSession(db, input.path, &ignored))
                lowest = std::min(lowest, earliestTime(db) + input.shiftNs);
        }
    }
    // Times must stay non-negative: when a shift would take one below 0, move every host on.
    for (Input& input : inputs)
        input.shiftNs -= lowest;
    return text.empty() ? text : "clocks aligned to " + referenceHost + " — " + text;
}

} // namespace

ClockAlignment alignOnCollectives(const std::vector<int64_t>& referenceEndsNs,
                                  const std::vector<int64_t>& otherEndsNs,
                                  std::optional<int64_t> wallClockHintNs) {
    auto median = [](std::vector<int64_t>& values) {
        std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
        return values[values.size() / 2];
    };
    // Pairing j: the other's k-th collective is the reference's (k + j)-th.
    auto pairing = [&](int64_t j) {
        std::vector<int64_t> differences;
        for (int64_t k = std::max<int64_t>(0, -j);
             k < static_cast<int64_t>(otherEndsNs.size()) &&
             k + j < static_cast<int64_t>(referenceEndsNs.size());
             ++k)
            differences.push_back(referenceEndsNs[k + j] - otherEndsNs[k]);
        if (differences.empty())
            return ClockAlignment{};
        const int64_t shift = median(differences);
        for (int64_t& d : differences)
            d = d > shift ? d - shift : shift - d;
        return ClockAlignment{shift, median(differences), static_cast<int64_t>(differences.size())};
    };
    if (!wallClockHintNs)
        return pairing(0);
    constexpr int64_t kMaxPairingOffset = 64; // recordings that began this many collectives apart
    ClockAlignment best;
    int64_t bestDistance = 0;
    for (int64_t j = -kMaxPairingOffset; j <= kMaxPairingOffset; ++j) {
        const ClockAlignment candidate = pairing(j);
        if (candidate.matched == 0)
            continue;
        const int64_t distance = candidate.shiftNs > *wallClockHintNs
                                     ? candidate.shiftNs - *wallClockHintNs
                                     : *wallClockHintNs - candidate.shiftNs;
        if (best.matched == 0 || distance < bestDistance ||
            (distance == bestDistance && candidate.spreadNs < best.spreadNs)) {
            best = candidate;
            bestDistance = distance;
        }
    }
    return best;
}

std::optional<int64_t> realtimeMinusMonotonic(const std::string& cuptiClockVsHost) {
    auto value = [&](std::string_view key) -> std::optional<int64_t> {
        const size_t at = cuptiClockVsHost.find(std::string(key) + "=");
        if (at == std::string::npos || (at > 0 && cuptiClockVsHost[at - 1] != ' '))
            return std::nullopt;
        const char* begin = cuptiClockVsHost.c_str() + at + key.size() + 1;
        char* end = nullptr;
        errno = 0;
        const long long parsed = std::strtoll(begin, &end, 10);
        if (end == begin || errno != 0 || (*end != ' ' && *end != '\0'))
            return std::nullopt;
        return static_cast<int64_t>(parsed);
    };
    const auto cuptiMinusRealtime = value("realtime");
    const auto cuptiMinusMonotonic = value("monotonic");
    if (!cuptiMinusRealtime || !cuptiMinusMonotonic)
        return std::nullopt;
    // Both within ±2^62: the difference cannot overflow.
    if (std::llabs(*cuptiMinusRealtime) >= format::kTimeLimitNs ||
        std::llabs(*cuptiMinusMonotonic) >= format::kTimeLimitNs)
        return std::nullopt;
    return *cuptiMinusMonotonic - *cuptiMinusRealtime;
}

bool RunMerger::looksLikeRun(const std::string& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return false;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".stallscope" && it->is_regular_file(ec))
            return true;
    return false;
}

RunFiles RunMerger::runFiles(const std::vector<std::string>& paths, std::string* error) {
    RunFiles files;
    std::vector<std::string> candidates;
    for (const std::string& path : paths) {
        std::error_code ec;
        if (!fs::is_directory(path, ec)) {
            candidates.push_back(path);
            continue;
        }
        std::vector<std::string> inFolder;
        for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().extension() == ".stallscope" && it->is_regular_file(ec))
                inFolder.push_back(it->path().string());
        if (ec) {
            *error = path + ": cannot list the folder: " + ec.message();
            return {};
        }
        std::sort(inFolder.begin(), inFolder.end());
        candidates.insert(candidates.end(), inFolder.begin(), inFolder.end());
    }
    struct Candidate {
        std::string path;
        std::optional<int64_t> rank;
    };
    std::vector<Candidate> kept;
    std::map<std::string, std::string> ranks; // rank|pid|host -> the file kept
    for (const std::string& path : candidates) {
        const std::string name = fs::path(path).filename().string();
        if (name.find(".recording") != std::string::npos) {
            files.skipped.push_back(name + ": a partial recording (still running or cut short)");
            continue;
        }
        format::Database db;
        std::string problem;
        if (!checkSqliteFile(path).empty() || !format::openSession(db, path, &problem)) {
            files.skipped.push_back(name + ": not a Stallscope session");
            continue;
        }
        // A copy of a rank's file (same rank, process and host) is merged once; a rank's own
        // CUDA subprocess inherits its rank but is another process, and stays.
        const std::optional<int64_t> rank = firstRank(db);
        if (rank) {
            const std::string identity = std::to_string(*rank) + "|" +
                                         oneValue(db, "SELECT pid FROM processes ORDER BY id") +
                                         "|" +
                                         oneValue(db, "SELECT host FROM processes ORDER BY id");
            if (const auto first = ranks.find(identity); first != ranks.end()) {
                files.skipped.push_back(name + ": a second copy of rank " + std::to_string(*rank) +
                                        " (kept " + first->second + ")");
                continue;
            }
            ranks[identity] = name;
        }
        kept.push_back({path, rank});
    }
    std::stable_sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) {
        return a.rank.value_or(std::numeric_limits<int64_t>::max()) <
               b.rank.value_or(std::numeric_limits<int64_t>::max());
    });
    for (Candidate& candidate : kept)
        files.sessions.push_back(std::move(candidate.path));
    if (files.sessions.empty())
        *error = (paths.empty() ? std::string("no file") : paths.front()) +
                 ": no Stallscope session to open" +
                 (files.skipped.empty() ? std::string()
                                        : " (skipped " + files.skipped.front() +
                                              (files.skipped.size() > 1 ? ", …" : "") + ")");
    return files;
}

RunMergeResult RunMerger::merge(const std::vector<std::string>& sessions,
                                const std::string& outPath, const RunMergeOptions& options) {
    RunMergeResult result;
    if (sessions.empty()) {
        result.error = outPath + ": no sessions to merge";
        return result;
    }
    std::vector<Input> inputs(sessions.size());
    int64_t totalRows = 0;
    for (size_t i = 0; i < sessions.size(); ++i) {
        inputs[i].path = sessions[i];
        inputs[i].name = fs::path(sessions[i]).filename().string();
        if (!readInput(inputs[i], &result.error))
            return result;
        totalRows += inputs[i].rows;
    }
    result.clockAlignment = alignHosts(inputs);

    format::OutputPolicy policy = options.output;
    policy.inputs.insert(policy.inputs.end(), sessions.begin(), sessions.end());
    format::OutputFile output;
    if (!output.create(outPath, policy, &result.error))
        return result;
    format::Database db;
    std::string error;
    auto fail = [&](const std::string& what) {
        result.error = outPath + ": " + what + (error.empty() ? "" : ": " + error);
        return result;
    };
    if (!db.openForAttach(output.temporaryPath(), &error))
        return fail("cannot create the merged session");
    // A temporary file made durable by OutputFile::commit: no journal needed while writing.
    if (!db.exec("PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF",
                 &error) ||
        !db.exec(format::schemaSql(), &error) ||
        // Dropped before the end: a session holds only its own indexes.
        !db.exec("CREATE INDEX merge_strings_by_text ON strings(text);"
                 "CREATE TEMP TABLE string_map (original INTEGER PRIMARY KEY, merged INTEGER)",
                 &error))
        return fail("cannot create the merged session");

    std::string incomplete;
    for (const Input& input : inputs)
        if (input.status != format::kStatusComplete && incomplete.empty())
            incomplete = input.name + ": " +
                         (input.incompleteReason.empty() ? "the recording did not finish"
                                                         : input.incompleteReason);
    format::Statement meta = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
    auto setMeta = [&](std::string_view key, const std::string& value) {
        meta.reset();
        meta.bindAll(key, value);
        return meta.execute();
    };
    setMeta(format::meta::kFormatName, std::string(format::kFormatName));
    setMeta(format::meta::kFormatVersion, std::to_string(format::kFormatVersion));
    setMeta(format::meta::kClock, std::string(format::kClockName));
    setMeta(format::meta::kStatus,
            std::string(incomplete.empty() ? format::kStatusComplete : format::kStatusIncomplete));
    if (!incomplete.empty())
        setMeta(format::meta::kIncompleteReason, incomplete);
    setMeta(format::meta::kImportFormat, "stallscope run");
    setMeta(format::meta::kImportFiles, std::to_string(inputs.size()));
    if (!result.clockAlignment.empty())
        setMeta(format::meta::kRunClockAlignment, result.clockAlignment);

    int64_t copiedRows = 0;
    for (const Input& input : inputs) {
        if (options.cancel && options.cancel->load()) {
            result.cancelled = true;
            return fail("cancelled");
        }
        // One transaction per input: a database is detached only outside one.
        if (!db.attachReadOnly(input.path, kSource, &error) || !db.exec("BEGIN", &error))
            return fail("cannot read " + input.path);
        std::map<std::string_view, int64_t> offsets;
        for (const format::Table* table : format::kTables)
            if (isRowIdTable(*table))
                offsets[table->name] = oneInteger(db, "SELECT coalesce(max(id), 0) FROM main." +
                                                          std::string(table->name));

        if (!mapStrings(db, &error))
            return fail("cannot copy strings of " + input.path);
        for (const format::Table* table : format::kTables) {
            if (table->name == format::tables::kMeta.name ||
                table->name == format::tables::kStrings.name ||
                std::find(input.absentTables.begin(), input.absentTables.end(), table->name) !=
                    input.absentTables.end())
                continue;
            if (!db.exec(copySql(*table, offsets, input.shiftNs), &error))
                return fail("cannot copy " + std::string(table->name) + " of " + input.path);
        }
        // The first input's other meta (command, recorder settings) describes the run.
        if (&input == &inputs.front() &&
            !db.exec("INSERT OR IGNORE INTO main.meta (key, value) SELECT key, value FROM src.meta",
                     &error))
            return fail("cannot copy meta of " + input.path);
        if (!db.exec("COMMIT", &error) || !db.detach(kSource, &error))
            return fail("cannot close " + input.path);
        copiedRows += input.rows;
        if (options.progress && totalRows > 0)
            options.progress(static_cast<double>(copiedRows) / totalRows);
    }
    if (!db.exec("DROP INDEX merge_strings_by_text", &error) || !db.exec(format::kIndexSql, &error))
        return fail("cannot write the merged session");
    meta = format::Statement();
    if (!db.close())
        return fail("cannot close the merged session");
    if (!output.commit(&result.error))
        return result;
    result.ok = true;
    result.processes = static_cast<int>(inputs.size());
    return result;
}

} // namespace stallscope::model
