#include "tests/support/sql_run_merge.h"

#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "model/interop/run_merge.h"
#include "model/session/collective_names.h"
#include "model/session/session_file_check.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

namespace fs = std::filesystem;

namespace stallscope::testing {

namespace {

using model::RankClock;

constexpr std::string_view kSource = "src";

bool isRowIdTable(const format::Table& table) {
    return !table.withoutRowid && table.firstColumnIsRowId();
}

struct Input {
    std::string path;
    std::string name;
    RankClock clock;
    std::string status;
    std::string incompleteReason;
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

// Whether the attached input has `table` (a table newer than its format version may be missing).
bool sourceHasTable(const format::Database& db, std::string_view table) {
    format::Statement found =
        db.prepare("SELECT 1 FROM src.sqlite_master WHERE type = 'table' AND name = ?");
    found.bind(1, table);
    return found.step();
}

// Empty when every reference column of `db` names a row id its table can hold.
std::string referenceProblem(const format::Database& db) {
    for (const format::Table* table : format::kTables) {
        if (table->sinceVersion > 1 && !format::hasTable(db, table->name))
            continue;
        for (const format::Column& column : table->columns) {
            const format::Table* target = format::referencedTable(*table, column);
            if (!target)
                continue;
            const std::string name(column.name);
            if (oneInteger(db, "SELECT count(*) FROM " + std::string(table->name) + " WHERE " +
                                   name + " IS NOT NULL AND (" + name + " < 1 OR " + name +
                                   " > (SELECT coalesce(max(id), 0) FROM " +
                                   std::string(target->name) + "))") != 0)
                return "corrupt session: " + std::string(table->name) + "." + name +
                       " names a row that does not exist";
        }
    }
    return {};
}

// The earliest time any row of `db` holds (0 when it holds none).
int64_t earliestTime(const format::Database& db) {
    std::optional<int64_t> earliest;
    for (const format::Table* table : format::kTables) {
        if (table->sinceVersion > 1 && !format::hasTable(db, table->name))
            continue;
        for (const format::Column& column : table->columns) {
            if (!format::isInstantColumn(column))
                continue;
            format::Statement least = db.prepare("SELECT min(" + std::string(column.name) +
                                                 ") FROM " + std::string(table->name));
            if (least.step() && !least.isNull(0))
                earliest = std::min(earliest.value_or(least.integer(0)), least.integer(0));
        }
    }
    return earliest.value_or(0);
}

bool readInput(Input& input, std::string* error) {
    auto fail = [&](const std::string& problem) {
        *error = input.path + ": " + problem;
        return false;
    };
    if (std::string problem = model::checkSqliteFile(input.path); !problem.empty())
        return fail(problem);
    format::Database db;
    std::string problem;
    if (!format::openSession(db, input.path, &problem))
        return fail(problem);
    if (oneValue(db, "SELECT value FROM meta WHERE key = 'format_name'") != format::kFormatName)
        return fail("not a Stallscope session");
    const std::string version = oneValue(db, "SELECT value FROM meta WHERE key = 'format_version'");
    bool known = false;
    for (int v = 1; v <= format::kFormatVersion; ++v)
        known = known || version == std::to_string(v);
    if (!known)
        return fail("format version '" + version + "' is not one this Stallscope reads");
    if (version != "1" && !format::hasTable(db, format::tables::kProcessRanks.name))
        return fail("corrupt session: missing table 'process_ranks'");
    if (problem = referenceProblem(db); !problem.empty())
        return fail(problem);
    input.clock.host = oneValue(db, "SELECT host FROM processes ORDER BY id LIMIT 1");
    input.status = oneValue(db, "SELECT value FROM meta WHERE key = 'status'");
    input.incompleteReason = oneValue(db, "SELECT value FROM meta WHERE key = 'incomplete_reason'");
    std::string collectiveNames;
    format::Statement names = db.prepare("SELECT id, text FROM strings");
    while (names.step())
        if (model::isCollectiveKernelName(names.text(1)))
            collectiveNames += (collectiveNames.empty() ? "" : ", ") + names.text(0);
    if (!collectiveNames.empty()) {
        format::Statement ends = db.prepare("SELECT end_ns FROM kernels WHERE name_id IN (" +
                                            collectiveNames + ") ORDER BY start_ns, id");
        while (ends.step())
            input.clock.collectiveEndsNs.push_back(ends.integer(0));
    }
    input.clock.wallOffsetNs = model::realtimeMinusMonotonic(
        oneValue(db, "SELECT value FROM meta WHERE key = 'cupti_clock_vs_host'"));
    return true;
}

std::string selectExpression(const format::Table& table, const format::Column& column,
                             const std::map<std::string_view, int64_t>& offsets, int64_t shiftNs) {
    const std::string name(column.name);
    if (&column == &table.columns.front() && isRowIdTable(table))
        return name + " + " + std::to_string(offsets.at(table.name));
    if (column.name == "name_id")
        return "(SELECT merged FROM temp.string_map WHERE original = name_id)";
    if (const format::Table* target = format::referencedTable(table, column))
        return name + " + " + std::to_string(offsets.at(target->name));
    if (format::isTimeColumn(column) && shiftNs != 0)
        return name + " + " + std::to_string(shiftNs);
    return name;
}

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

bool mapStrings(format::Database& db, std::string* error) {
    return db.exec(
        "INSERT INTO main.strings (text) SELECT text FROM src.strings s WHERE NOT EXISTS "
        "(SELECT 1 FROM main.strings m WHERE m.text = s.text) GROUP BY text ORDER BY min(id);"
        "DELETE FROM temp.string_map;"
        "INSERT INTO temp.string_map (original, merged) SELECT s.id, m.id FROM "
        "src.strings s JOIN main.strings m ON m.text = s.text",
        error);
}

// The old RunMerger::merge: false with *error naming the file.
bool merge(const model::RunFiles& files, const std::string& source, const std::string& outPath,
           std::string* error) {
    std::vector<Input> inputs(files.sessions.size());
    std::vector<RankClock> clocks;
    for (size_t i = 0; i < inputs.size(); ++i) {
        inputs[i].path = files.sessions[i];
        inputs[i].name = fs::path(files.sessions[i]).filename().string();
        if (!readInput(inputs[i], error))
            return false;
        clocks.push_back(inputs[i].clock);
    }
    const model::HostAlignment alignment = model::alignHosts(clocks);
    int64_t lowest = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
        inputs[i].shiftNs = alignment.shiftNs[i];
        format::Database db;
        if (inputs[i].shiftNs < 0 && format::openSession(db, inputs[i].path, error))
            lowest = std::min(lowest, earliestTime(db) + inputs[i].shiftNs);
    }
    for (Input& input : inputs)
        input.shiftNs -= lowest;

    fs::remove(outPath);
    format::Database db;
    if (!db.openForAttach(outPath, error) ||
        !db.exec("PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF",
                 error) ||
        !db.exec(format::schemaSql(), error) ||
        !db.exec("CREATE INDEX merge_strings_by_text ON strings(text);"
                 "CREATE TEMP TABLE string_map (original INTEGER PRIMARY KEY, merged INTEGER)",
                 error))
        return false;
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
    if (!alignment.text.empty())
        setMeta(format::meta::kRunClockAlignment, alignment.text);
    for (const Input& input : inputs) {
        if (!db.attachReadOnly(input.path, kSource, error) || !db.exec("BEGIN", error))
            return false;
        std::map<std::string_view, int64_t> offsets;
        for (const format::Table* table : format::kTables)
            if (isRowIdTable(*table))
                offsets[table->name] = oneInteger(db, "SELECT coalesce(max(id), 0) FROM main." +
                                                          std::string(table->name));
        if (!mapStrings(db, error))
            return false;
        for (const format::Table* table : format::kTables) {
            if (table->name == format::tables::kMeta.name ||
                table->name == format::tables::kStrings.name ||
                (table->sinceVersion > 1 && !sourceHasTable(db, table->name)))
                continue;
            if (!db.exec(copySql(*table, offsets, input.shiftNs), error))
                return false;
        }
        if (&input == &inputs.front() &&
            !db.exec("INSERT OR IGNORE INTO main.meta (key, value) SELECT key, value FROM src.meta",
                     error))
            return false;
        if (!db.exec("COMMIT", error) || !db.detach(kSource, error))
            return false;
    }
    meta.reset();
    meta.bindAll(format::meta::kImportSource, source);
    meta.execute();
    if (!files.skipped.empty()) {
        std::string skipped =
            "skipped " + std::to_string(files.skipped.size()) + " file(s) of the run: ";
        for (size_t i = 0; i < files.skipped.size(); ++i)
            skipped += (i ? "; " : "") + files.skipped[i];
        meta.reset();
        meta.bindAll(format::meta::kImportWarnings, skipped);
        meta.execute();
    }
    meta = format::Statement();
    return db.exec("DROP INDEX merge_strings_by_text", error) &&
           db.exec(format::kIndexSql, error) && db.close();
}

} // namespace

model::LoadResult loadThroughMergedFile(const std::vector<std::string>& paths,
                                        const std::string& mergedPath) {
    model::LoadResult failed;
    const model::RunFiles files = model::findRunFiles(paths, &failed.error);
    if (files.sessions.empty())
        return failed;
    if (!merge(files, paths.front(), mergedPath, &failed.error))
        return failed;
    model::LoadResult loaded = model::SessionLoader::load(mergedPath);
    if (loaded.ok())
        return loaded;
    // A row the merged file refuses came from one input: name that input.
    for (const std::string& input : files.sessions)
        if (model::LoadResult alone = model::SessionLoader::load(input); !alone.ok())
            return alone;
    return loaded;
}

} // namespace stallscope::testing
