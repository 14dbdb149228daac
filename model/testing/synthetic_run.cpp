// The data-parallel job as a run folder (synthetic_session.h: writeSyntheticRun): the job is
// written as one session, then each process's rows are copied into its rank's own file.
#include "format/checked_sql.h"
#include "format/session_schema.h"
#include "format/sqlite_database.h"
#include "model/testing/synthetic_session.h"

#include <filesystem>

namespace stallscope::model {

namespace {

namespace tables = format::tables;

// The rows of `table` that belong to process `process` of the attached job `src`: its stacks
// and their frames (those its syncs and samples use), and otherwise by the first column that names
// a process, thread, device or stream; "" when the table is every file's (strings, sources,
// diagnostics).
std::string processFilter(const format::Table& table, int64_t process) {
    using format::CheckedSql;
    const std::string p = std::to_string(process);
    const std::string threads =
        CheckedSql("SELECT {threads.id} FROM src.{threads} WHERE {threads.process_id} = ").text() +
        p;
    const std::string stacks =
        CheckedSql("SELECT {syncs.stack_id} FROM src.{syncs} WHERE {syncs.thread_id} IN (").text() +
        threads +
        CheckedSql(") UNION SELECT {host_samples.stack_id} FROM src.{host_samples} WHERE "
                   "{host_samples.thread_id} IN (")
            .text() +
        threads + ")";
    const std::string frames = CheckedSql("SELECT {stack_frames.frame_id} FROM src.{stack_frames} "
                                          "WHERE {stack_frames.stack_id} IN (")
                                   .text() +
                               stacks + ")";
    if (table.name == tables::kProcesses.name)
        return CheckedSql("{processes.id} = ").text() + p;
    if (table.name == tables::kStacks.name)
        return CheckedSql("{stacks.id} IN (").text() + stacks + ")";
    if (table.name == tables::kStackFrames.name)
        return CheckedSql("{stack_frames.stack_id} IN (").text() + stacks + ")";
    if (table.name == tables::kFrames.name)
        return CheckedSql("{frames.id} IN (").text() + frames + ")";
    if (table.name == tables::kFrameInlines.name)
        return CheckedSql("{frame_inlines.frame_id} IN (").text() + frames + ")";
    for (const format::Column& column : table.columns) {
        const format::Table* target = format::referencedTable(table, column);
        const std::string name(column.name);
        if (target == &tables::kProcesses)
            return name + " = " + p;
        if (target == &tables::kThreads)
            return name + " IN (" + threads + ")";
        if (target == &tables::kDevices)
            return name +
                   CheckedSql(" IN (SELECT {devices.id} FROM src.{devices} WHERE "
                              "{devices.process_id} = ")
                       .text() +
                   p + ")";
        if (target == &tables::kStreams)
            return name +
                   CheckedSql(" IN (SELECT s.{streams.id} FROM src.{streams} s JOIN src.{devices} "
                              "d ON d.{devices.id} = s.{streams.device_id} WHERE "
                              "d.{devices.process_id} = ")
                       .text() +
                   p + ")";
    }
    return {};
}

bool writeRankFile(const std::string& job, const std::string& path, int64_t process,
                   std::string* error) {
    std::filesystem::remove(path);
    format::Database db;
    if (!db.openForAttach(path, error) || !db.exec(format::schemaSql(), error) ||
        !db.attachReadOnly(job, "src", error) || !db.exec("BEGIN", error))
        return false;
    for (const format::Table* table : format::kTables) {
        const std::string filter = processFilter(*table, process);
        if (!db.exec("INSERT INTO main." + std::string(table->name) + " SELECT * FROM src." +
                         std::string(table->name) + (filter.empty() ? "" : " WHERE " + filter),
                     error))
            return false;
    }
    return db.exec("COMMIT", error) && db.detach("src", error) &&
           db.exec(format::kIndexSql, error) && db.close();
}

} // namespace

bool writeSyntheticRun(const std::string& folder, const SyntheticOptions& options,
                       SyntheticStats* stats, std::string* error) {
    if (options.ranks < 1) {
        if (error)
            *error = folder + ": a synthetic run needs ranks";
        return false;
    }
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    const std::string job = folder + "/.job.stallscope.tmp";
    bool written = writeSyntheticSession(job, options, stats, error);
    // One process per rank, written in rank order: process row id = rank + 1.
    for (int rank = 0; written && rank < options.ranks; ++rank)
        written = writeRankFile(job, folder + "/rank" + std::to_string(rank) + ".stallscope",
                                rank + 1, error);
    std::filesystem::remove(job, ec);
    return written;
}

} // namespace stallscope::model
