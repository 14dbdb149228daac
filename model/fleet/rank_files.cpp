#include "model/fleet/rank_files.h"

#include "format/checked_sql.h"
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/terminal_text.h"
#include "model/fleet/fleet_sql.h"
#include "model/interop/side_file_snapshot.h"
#include "model/session/session_file_check.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <map>

namespace fs = std::filesystem;

namespace stallscope::model::fleet {

namespace {

std::string metaValue(const format::Database& db, std::string_view key) {
    constexpr format::CheckedSql kSql = "SELECT {meta.value} FROM {meta} WHERE {meta.key} = ?";
    format::Statement statement = db.prepare(kSql.text());
    statement.bind(1, key);
    return statement.step() ? format::clippedText(statement.textView(0), 64) : std::string();
}

// Empty when the file says it is a session of a format version this build reads.
std::string formatProblem(const format::Database& db) {
    if (metaValue(db, format::meta::kFormatName) != format::kFormatName)
        return "not a Stallscope session (meta format_name is not " +
               std::string(format::kFormatName) + ")";
    const std::string text = metaValue(db, format::meta::kFormatVersion);
    int version = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
    if (ec != std::errc() || end != text.data() + text.size() || version < 1)
        return "corrupt session: format_version '" + text + "' is not a version number";
    if (version > format::kFormatVersion)
        return "written by a newer Stallscope (format version " + text + "; this one reads up to " +
               std::to_string(format::kFormatVersion) + ")";
    return {};
}

// The file's rank facts; false with *error when the file cannot be read.
bool readIdentity(const std::string& readPath, RankFile& file, std::string* error) {
    format::Database db;
    if (!openRankFile(db, readPath, error))
        return false;
    format::Statement row =
        db.prepare(sql::rankIdentity(format::hasTable(db, format::tables::kProcessRanks.name)));
    if (row.step()) {
        file.pid = row.integer(0);
        file.host = format::clippedText(row.textView(1), 256);
        if (row.type(2) == format::Statement::ValueType::Integer)
            file.rank = row.integer(2);
        if (row.type(3) == format::Statement::ValueType::Integer)
            file.worldSize = std::to_string(row.integer(3));
    }
    if (row.failed()) {
        *error = row.error();
        return false;
    }
    return true;
}

// The *.stallscope files of a folder, by name; false with *error when it cannot be listed.
bool folderSessions(const std::string& folder, std::vector<std::string>* paths,
                    std::string* error) {
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".stallscope" && it->is_regular_file(ec))
            paths->push_back(it->path().string());
    if (ec) {
        *error = folder + ": cannot list the folder: " + ec.message();
        return false;
    }
    std::sort(paths->begin(), paths->end());
    return true;
}

} // namespace

std::string RankFile::label() const {
    return rank ? "rank " + std::to_string(*rank) : fs::path(path).filename().string();
}

bool openRankFile(format::Database& db, const std::string& readPath, std::string* error) {
    if (std::string problem = checkSqliteFile(readPath); !problem.empty()) {
        *error = problem;
        return false;
    }
    if (!format::openSession(db, readPath, error))
        return false;
    if (std::string problem = formatProblem(db); !problem.empty()) {
        *error = problem;
        return false;
    }
    // Sorts and GROUP BYs larger than the page cache go to SQLite's own temporary files (unlinked,
    // in the temporary folder, never beside the input), so memory stays at the cache's 2 MB.
    return db.exec("PRAGMA temp_store = FILE; PRAGMA cache_size = -2000;", error);
}

RankFileList listRankFiles(const std::string& path) {
    RankFileList list;
    std::error_code ec;
    const bool folder = fs::is_directory(path, ec);
    std::vector<std::string> paths;
    if (!folder)
        paths.push_back(path);
    else if (!folderSessions(path, &paths, &list.error))
        return list;
    std::map<std::string, std::string> kept; // rank|pid|host -> the file kept
    for (const std::string& file : paths) {
        const std::string name = fs::path(file).filename().string();
        if (folder && name.find(".recording") != std::string::npos) {
            list.notes.push_back(name + ": skipped, a partial recording (still running or cut "
                                        "short)");
            continue;
        }
        RankFile rank;
        rank.path = rank.readPath = file;
        if (hasPendingSideFiles(file)) {
            const SideFileCopy copy = madeWholeCopy(file);
            if (!copy.error.empty()) {
                list.error = copy.error;
                list.files.clear();
                return list;
            }
            rank.readPath = copy.path;
            list.notes.push_back(name + ": read from a copy in the import cache (" + copy.path +
                                 "): " + copy.why);
        }
        std::string problem;
        if (!readIdentity(rank.readPath, rank, &problem)) {
            list.error = file + ": " + problem;
            list.files.clear();
            return list;
        }
        if (rank.rank) { // a copy of a rank's file is read once, as the loader does
            const std::string identity =
                std::to_string(*rank.rank) + "|" + std::to_string(rank.pid) + "|" + rank.host;
            if (const auto first = kept.find(identity); first != kept.end()) {
                list.notes.push_back(name + ": skipped, a second copy of rank " +
                                     std::to_string(*rank.rank) + " (kept " + first->second + ")");
                continue;
            }
            kept[identity] = name;
        }
        list.files.push_back(std::move(rank));
    }
    if (list.files.empty()) {
        list.error = path + ": no Stallscope session to summarize";
        return list;
    }
    // A folder is one launch's ranks (issue 42): as findRunFiles decides.
    if (folder && list.files.size() > 1)
        for (const RankFile& file : list.files) {
            std::string why;
            if (!file.rank)
                why = fs::path(file.path).filename().string() + " records no rank";
            else if (file.worldSize != list.files.front().worldSize)
                why = "their world sizes differ (" +
                      fs::path(list.files.front().path).filename().string() + ": " +
                      list.files.front().worldSize + ", " +
                      fs::path(file.path).filename().string() + ": " + file.worldSize + ")";
            if (!why.empty()) {
                list.error = path + ": holds " + std::to_string(list.files.size()) +
                             " sessions that are not the ranks of one launch (" + why + ")";
                list.files.clear();
                return list;
            }
        }
    std::stable_sort(list.files.begin(), list.files.end(),
                     [](const RankFile& a, const RankFile& b) {
                         return a.rank.value_or(std::numeric_limits<int64_t>::max()) <
                                b.rank.value_or(std::numeric_limits<int64_t>::max());
                     });
    return list;
}

} // namespace stallscope::model::fleet
