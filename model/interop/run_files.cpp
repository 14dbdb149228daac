#include "model/interop/run_files.h"

#include "format/checked_sql.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "model/session/session_file_check.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

namespace fs = std::filesystem;

namespace stallscope::model {

namespace {

std::string oneValue(const format::Database& db, const std::string& sql) {
    format::Statement statement = db.prepare(sql);
    return statement.step() ? statement.text(0) : std::string();
}

std::optional<int64_t> firstRank(const format::Database& db) {
    if (!format::hasTable(db, format::tables::kProcessRanks.name))
        return std::nullopt;
    format::Statement rank = db.prepare(
        format::CheckedSql(
            "SELECT {process_ranks.rank} FROM {process_ranks} ORDER BY {process_ranks.id} LIMIT 1")
            .text());
    if (!rank.step())
        return std::nullopt;
    return rank.integer(0);
}

} // namespace

bool looksLikeRun(const std::string& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return false;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".stallscope" && it->is_regular_file(ec))
            return true;
    return false;
}

RunFiles findRunFiles(const std::vector<std::string>& paths, std::string* error) {
    RunFiles files;
    std::vector<std::string> candidates;
    bool anyFolder = false; // a folder's sessions must be one launch's ranks (below)
    for (const std::string& path : paths) {
        std::error_code ec;
        if (!fs::is_directory(path, ec)) {
            candidates.push_back(path);
            continue;
        }
        anyFolder = true;
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
        std::string worldSize; // "" where not recorded
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
            const std::string identity =
                std::to_string(*rank) + "|" +
                oneValue(db, format::CheckedSql(
                                 "SELECT {processes.pid} FROM {processes} ORDER BY {processes.id}")
                                 .text()) +
                "|" +
                oneValue(db, format::CheckedSql(
                                 "SELECT {processes.host} FROM {processes} ORDER BY {processes.id}")
                                 .text());
            if (const auto first = ranks.find(identity); first != ranks.end()) {
                files.skipped.push_back(name + ": a second copy of rank " + std::to_string(*rank) +
                                        " (kept " + first->second + ")");
                continue;
            }
            ranks[identity] = name;
        }
        kept.push_back(
            {path, rank,
             oneValue(db, format::CheckedSql("SELECT {process_ranks.world_size} FROM "
                                             "{process_ranks} ORDER BY {process_ranks.id}")
                              .text())});
    }
    // A folder is one launch's ranks: recordings of separate runs are not merged into one
    // (issue 42: two unrelated recordings became one 46 s session without a word).
    if (anyFolder && kept.size() > 1) {
        for (const Candidate& candidate : kept) {
            const std::string name = fs::path(candidate.path).filename().string();
            std::string why;
            if (!candidate.rank)
                why = name + " records no rank";
            else if (candidate.worldSize != kept.front().worldSize)
                why = "their world sizes differ (" +
                      fs::path(kept.front().path).filename().string() + ": " +
                      kept.front().worldSize + ", " + name + ": " + candidate.worldSize + ")";
            if (!why.empty()) {
                *error = paths.front() + ": holds " + std::to_string(kept.size()) +
                         " sessions that are not the ranks of one launch (" + why +
                         "); open one of them by its name";
                return {};
            }
        }
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

} // namespace stallscope::model
