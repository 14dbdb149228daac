#include "recorder/recording_output.h"

#include "format/checked_sql.h"
#include "format/run_folder.h"
#include "format/session_meta.h"
#include "format/sqlite_database.h"
#include "recorder/snapshot_names.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

namespace stallscope::recorder {

namespace {

constexpr const char* kPartialTag = ".recording";
constexpr const char* kSideFiles[] = {"-wal", "-shm", "-journal"};

bool exists(const std::string& path) {
    struct stat info;
    return lstat(path.c_str(), &info) == 0;
}

void removeWithSideFiles(const std::string& path) {
    unlink(path.c_str());
    for (const char* side : kSideFiles)
        unlink((path + side).c_str());
}

// Moves a finished session and whatever SQLite side file it still has to `to`.
bool moveSession(const std::string& from, const std::string& to, std::string* error) {
    if (rename(from.c_str(), to.c_str()) != 0) {
        *error = "cannot rename " + from + " to " + to + ": " + strerror(errno);
        return false;
    }
    for (const char* side : kSideFiles) {
        const std::string sideFrom = from + side;
        if (exists(sideFrom))
            rename(sideFrom.c_str(), (to + side).c_str());
        else
            unlink((to + side).c_str()); // a stale one would replay into the new file
    }
    return true;
}

bool isDirectory(const std::string& path) {
    struct stat info;
    return lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool endsWith(const std::string& text, const std::string& tail) {
    return text.size() >= tail.size() &&
           text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// The extension of sessions in a run folder: the output's, ".stallscope" when it has none.
std::string sessionExtension(const std::string& ext) {
    return ext.empty() ? std::string(".stallscope") : ext;
}

// A folder that holds nothing but sessions (and their SQLite side files): a run folder, the only
// kind --force-overwrite may replace. Anything else in it is the user's, never deleted.
bool isRunFolder(const std::string& path, const std::string& ext) {
    DIR* dir = opendir(path.c_str());
    if (!dir)
        return false;
    bool sessionsOnly = true;
    while (const dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name == "." || name == "..")
            continue;
        struct stat info;
        bool session = lstat(format::joinPath(path, name).c_str(), &info) == 0 &&
                       S_ISREG(info.st_mode) && endsWith(name, ext);
        for (const char* side : kSideFiles)
            session = session || (S_ISREG(info.st_mode) && endsWith(name, ext + side));
        sessionsOnly = sessionsOnly && session;
    }
    closedir(dir);
    return sessionsOnly;
}

// Removes a run folder (checked with isRunFolder first) or a session file.
void removeRecording(const std::string& path) {
    if (!isDirectory(path)) {
        removeWithSideFiles(path);
        return;
    }
    if (DIR* dir = opendir(path.c_str())) {
        while (const dirent* entry = readdir(dir)) {
            const std::string name = entry->d_name;
            if (name != "." && name != "..")
                unlink(format::joinPath(path, name).c_str());
        }
        closedir(dir);
    }
    rmdir(path.c_str());
}

// Puts `from` (a finished session or run folder) at `to`. An existing `to` (replacing was
// allowed) of the other kind, or a folder, cannot be renamed over: it goes aside first and is
// removed once `from` took its place, so a failed rename leaves it where it was.
bool replaceWith(const std::string& from, const std::string& to, const std::string& aside,
                 std::string* error) {
    if (!isDirectory(from) && !isDirectory(to))
        return moveSession(from, to, error); // rename(2) replaces a file in one step
    if (!exists(to)) {
        if (rename(from.c_str(), to.c_str()) == 0)
            return true;
        *error = "cannot rename " + from + " to " + to + ": " + strerror(errno);
        return false;
    }
    if (exists(aside)) {
        *error = "cannot replace " + to + ": " + aside + " is in the way";
        return false;
    }
    if (rename(to.c_str(), aside.c_str()) != 0) {
        *error = "cannot move " + to + " aside: " + strerror(errno);
        return false;
    }
    if (rename(from.c_str(), to.c_str()) != 0) {
        *error = "cannot rename " + from + " to " + to + ": " + strerror(errno);
        rename(aside.c_str(), to.c_str());
        return false;
    }
    removeRecording(aside);
    return true;
}

// Whether `table` has a row; true when it cannot be read (the session is kept, not judged).
bool hasRow(const format::Database& db, const char* table) {
    format::Statement statement =
        db.prepare(std::string("SELECT EXISTS(SELECT 1 FROM ") + table + ")");
    return !statement.step() || statement.integer(0) != 0;
}

} // namespace

std::optional<RecordingOutput> RecordingOutput::plan(const std::string& path, bool overwrite,
                                                     std::string* error) {
    const format::SessionPathParts parts = format::splitSessionPath(path);
    const std::string folder = format::runFolderOf(path);
    const std::string ext = sessionExtension(parts.ext);
    RecordingOutput output(path, format::joinPath(parts.dir, parts.stem + kPartialTag + parts.ext),
                           folder, overwrite);
    struct stat info;
    if (stat(parts.dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
        *error = "cannot write " + path + ": the folder " + parts.dir + " does not exist";
        return std::nullopt;
    }
    if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode) &&
        !(path == folder && isRunFolder(path, ext))) {
        *error = "cannot write " + path + ": it is a folder";
        return std::nullopt;
    }
    // Whether the run ends as one file or a folder is known only at its end: an earlier recording
    // under either name is kept unless replacing was asked for. A folder of the user's own under
    // the folder name does not stop a run (most runs are one file); publish() says so if it must.
    for (const std::string& name : {path, folder}) {
        const bool recording = name == path || (isDirectory(name) && isRunFolder(name, ext));
        if (exists(name) && recording && !overwrite) {
            *error = name + " exists: choose another name, or pass --force-overwrite to replace it "
                            "once the new recording is complete";
            return std::nullopt;
        }
    }
    const std::string partialFolder = folder + kPartialTag + ".d";
    for (const std::string& name : {output.m_partial, partialFolder}) {
        if (!exists(name))
            continue;
        if (!overwrite || (isDirectory(name) && !isRunFolder(name, ext))) {
            *error = "an unfinished recording from an earlier run is at " + name +
                     " (its recorder did not finish): open it or remove it, or pass "
                     "--force-overwrite";
            return std::nullopt;
        }
    }
    output.discard(); // --force-overwrite: an earlier partial recording goes
    removeRecording(partialFolder);
    // A real write, not a permission check: root passes access(2) on read-only file systems and
    // on /proc.
    const int probe = open(output.m_partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (probe < 0) {
        *error = "cannot write in " + parts.dir + ": " + strerror(errno);
        return std::nullopt;
    }
    close(probe);
    unlink(output.m_partial.c_str());
    struct statvfs space;
    if (statvfs(parts.dir.c_str(), &space) == 0) {
        const int64_t freeBytes = int64_t(space.f_bavail) * int64_t(space.f_frsize);
        if (freeBytes < kMinFreeBytes) {
            *error = "only " + std::to_string(freeBytes >> 20) + " MiB free in " + parts.dir +
                     ": a recording needs at least " + std::to_string(kMinFreeBytes >> 20) + " MiB";
            return std::nullopt;
        }
    }
    return output;
}

RecordingOutput::SessionFacts RecordingOutput::inspect(const std::string& session) {
    SessionFacts facts;
    facts.usedCuda = true; // until the file says otherwise: what cannot be read is kept
    format::Database db;
    std::string error;
    if (!db.open(session, format::Database::Mode::ReadOnly, &error))
        return facts;
    format::Statement process =
        db.prepare(format::CheckedSql("SELECT {processes.id}, {processes.pid} FROM {processes} "
                                      "ORDER BY {processes.id} LIMIT 1")
                       .text());
    if (!process.step())
        return facts;
    const int64_t processId = process.integer(0);
    facts.pid = process.integer(1);
    format::Statement rank = db.prepare(
        format::CheckedSql("SELECT {process_ranks.rank}, {process_ranks.launcher} FROM "
                           "{process_ranks} WHERE {process_ranks.process_id} = ? LIMIT 1")
            .text());
    rank.bind(1, processId);
    if (rank.step()) {
        facts.rank = rank.integer(0);
        facts.launcher = rank.text(1);
    }
    // A process that used CUDA made a call the recorder keeps, or the GPU did work for it; one
    // that only loaded the driver (cuInit, a device query) has none of these.
    facts.usedCuda = false;
    for (const char* table :
         {"api_calls", "streams", "kernels", "memcpys", "memsets", "syncs", "cuda_events"})
        facts.usedCuda = facts.usedCuda || hasRow(db, table);
    return facts;
}

std::vector<std::string> RecordingOutput::snapshots(const std::string& session) {
    std::vector<std::string> found;
    const std::string own = snapshotPrefix(session);
    format::Database db;
    std::string error;
    if (own.empty() || !db.open(session, format::Database::Mode::ReadOnly, &error))
        return found;
    format::Statement listed = db.prepare(
        format::CheckedSql("SELECT {meta.value} FROM {meta} WHERE {meta.key} = ?").text());
    listed.bind(1, format::meta::kRingSnapshots);
    if (!listed.step())
        return found;
    const std::string names = listed.text(0);
    for (size_t start = 0; start < names.size();) {
        const size_t end = std::min(names.find('\n', start), names.size());
        const std::string name = names.substr(start, end - start);
        if (name.rfind(own, 0) == 0 && name.find('/', own.size()) == std::string::npos &&
            access(name.c_str(), F_OK) == 0)
            found.push_back(name);
        start = end + 1;
    }
    return found;
}

std::string RecordingOutput::folderName(const SessionFacts& facts, const std::string& ext,
                                        bool rankFree) {
    return facts.rank && rankFree ? "rank" + std::to_string(*facts.rank) + ext
                                  : "pid" + std::to_string(facts.pid) + ext;
}

std::vector<std::string> RecordingOutput::partialChildren() const {
    const format::SessionPathParts parts = format::splitSessionPath(m_partial);
    const std::string prefix = parts.stem + ".";
    std::vector<std::string> children;
    if (DIR* dir = opendir(parts.dir.c_str())) {
        while (const dirent* entry = readdir(dir)) {
            const std::string name = entry->d_name;
            if (name.size() <= prefix.size() + parts.ext.size() || name.rfind(prefix, 0) != 0 ||
                name.compare(name.size() - parts.ext.size(), parts.ext.size(), parts.ext) != 0)
                continue;
            const std::string pid =
                name.substr(prefix.size(), name.size() - prefix.size() - parts.ext.size());
            if (std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; }))
                children.push_back(format::joinPath(parts.dir, name));
        }
        closedir(dir);
    }
    std::sort(children.begin(), children.end());
    return children;
}

bool RecordingOutput::publish(Published* published, std::string* error) const {
    *published = {};
    const std::vector<std::string> children = partialChildren();
    bool childUsedCuda = false;
    for (const std::string& child : children)
        childUsedCuda = childUsedCuda || inspect(child).usedCuda;
    if (childUsedCuda) {
        std::vector<std::string> sessions = children;
        sessions.insert(sessions.begin(), m_partial);
        return publishFolder(sessions, published, error);
    }
    // One process used CUDA, or none did: the root's session is the run, as it always was.
    for (const std::string& child : children)
        removeWithSideFiles(child);
    published->dropped = int(children.size());
    if (exists(m_path) && !m_overwrite) {
        *error = m_path + " appeared during the run; the recording stays at " + m_partial;
        return false;
    }
    if (isDirectory(m_path) &&
        !isRunFolder(m_path, sessionExtension(format::splitSessionPath(m_path).ext))) {
        *error = "cannot replace the folder " + m_path + ": the recording stays at " + m_partial;
        return false;
    }
    if (!replaceWith(m_partial, m_path, m_folder + ".replaced.d", error))
        return false;
    if (m_overwrite && m_folder != m_path && isDirectory(m_folder) &&
        isRunFolder(m_folder, sessionExtension(format::splitSessionPath(m_path).ext)))
        removeRecording(m_folder); // the earlier recording of this name was a run folder
    published->files.push_back(m_path);
    const SessionFacts facts = inspect(m_path);
    published->ranks = facts.rank ? 1 : 0;
    published->launcher = facts.launcher;
    return true;
}

bool RecordingOutput::publishFolder(const std::vector<std::string>& sessions, Published* published,
                                    std::string* error) const {
    const std::string ext = sessionExtension(format::splitSessionPath(m_path).ext);
    // Ranks named by the lowest pid that claims them: a rank's own CUDA subprocess inherits its
    // RANK and takes a pid name.
    std::map<int64_t, std::pair<std::string, SessionFacts>> kept; // by pid
    for (const std::string& session : sessions) {
        const SessionFacts facts = inspect(session);
        if (facts.usedCuda) {
            kept.emplace(facts.pid, std::make_pair(session, facts));
        } else {
            removeWithSideFiles(session);
            ++published->dropped;
        }
    }
    const std::string staging = m_folder + kPartialTag + ".d";
    if (mkdir(staging.c_str(), 0755) != 0) {
        *error = "cannot create " + staging + ": " + strerror(errno);
        return false;
    }
    std::vector<int64_t> namedRanks;
    std::vector<std::string> names;
    for (const auto& [pid, session] : kept) {
        const SessionFacts& facts = session.second;
        const bool rankFree = facts.rank && std::find(namedRanks.begin(), namedRanks.end(),
                                                      *facts.rank) == namedRanks.end();
        if (rankFree)
            namedRanks.push_back(*facts.rank);
        const std::string name = folderName(facts, ext, rankFree);
        if (!moveSession(session.first, format::joinPath(staging, name), error))
            return false;
        names.push_back(name);
        published->ranks += facts.rank ? 1 : 0;
        if (published->launcher.empty())
            published->launcher = facts.launcher;
    }
    if (exists(m_folder) &&
        (!m_overwrite || !isDirectory(m_folder) || !isRunFolder(m_folder, ext))) {
        *error = "cannot replace " + m_folder +
                 (m_overwrite ? " (not a run folder)" : " (no --force-overwrite)") +
                 ": the run's sessions are in " + staging;
        return false;
    }
    if (!replaceWith(staging, m_folder, m_folder + ".replaced.d", error))
        return false;
    if (m_overwrite && m_folder != m_path && exists(m_path))
        removeWithSideFiles(m_path); // the earlier recording of this name was one file
    std::sort(names.begin(), names.end());
    for (const std::string& name : names)
        published->files.push_back(format::joinPath(m_folder, name));
    published->folder = true;
    return true;
}

void RecordingOutput::discard() const {
    for (const std::string& child : partialChildren())
        removeWithSideFiles(child);
    removeWithSideFiles(m_partial);
}

} // namespace stallscope::recorder
