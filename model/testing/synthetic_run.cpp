// The data-parallel job as a run folder (synthetic_session.h: writeSyntheticRun): the job is
// written as one session, then each process's rows are copied into its rank's own file.
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
    const std::string p = std::to_string(process);
    const std::string threads = "SELECT id FROM src.threads WHERE process_id = " + p;
    const std::string stacks =
        "SELECT stack_id FROM src.syncs WHERE thread_id IN (" + threads +
        ") UNION SELECT stack_id FROM src.host_samples WHERE thread_id IN (" + threads + ")";
    const std::string frames =
        "SELECT frame_id FROM src.stack_frames WHERE stack_id IN (" + stacks + ")";
    if (table.name == tables::kProcesses.name)
        return "id = " + p;
    if (table.name == tables::kStacks.name)
        return "id IN (" + stacks + ")";
    if (table.name == tables::kStackFrames.name)
        return "stack_id IN (" + stacks + ")";
    if (table.name == tables::kFrames.name)
        return "id IN (" + frames + ")";
    if (table.name == tables::kFrameInlines.name)
        return "frame_id IN (" + frames + ")";
    for (const format::Column& column : table.columns) {
        const format::Table* target = format::referencedTable(table, column);
        const std::string name(column.name);
        if (target == &tables::kProcesses)
            return name + " = " + p;
        if (target == &tables::kThreads)
            return name + " IN (" + threads + ")";
        if (target == &tables::kDevices)
            return name + " IN (SELECT id FROM src.devices WHERE process_id = " + p + ")";
        if (target == &tables::kStreams)
            return name +
                   " IN (SELECT s.id FROM src.streams s JOIN src.devices d ON "
                   "d.id = s.device_id WHERE d.process_id = " +
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
