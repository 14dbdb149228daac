#include "recorder/recording_output.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace stallscope::recorder {

namespace {

constexpr const char* kPartialTag = ".recording";
constexpr const char* kSideFiles[] = {"-wal", "-shm", "-journal"};

struct PathParts {
    std::string dir, stem, ext; // "/a/run.stallscope" -> "/a", "run", ".stallscope"
};

PathParts split(const std::string& path) {
    const size_t slash = path.rfind('/');
    PathParts parts;
    parts.dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
    const std::string file = slash == std::string::npos ? path : path.substr(slash + 1);
    const size_t dot = file.rfind('.');
    parts.stem = dot == std::string::npos || dot == 0 ? file : file.substr(0, dot);
    parts.ext = dot == std::string::npos || dot == 0 ? "" : file.substr(dot);
    return parts;
}

std::string join(const std::string& dir, const std::string& file) {
    return dir == "/" ? "/" + file : dir + "/" + file;
}

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

} // namespace

std::optional<RecordingOutput> RecordingOutput::plan(const std::string& path, bool overwrite,
                                                     std::string* error) {
    const PathParts parts = split(path);
    RecordingOutput output(path, join(parts.dir, parts.stem + kPartialTag + parts.ext));
    struct stat info;
    if (stat(parts.dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
        *error = "cannot write " + path + ": the folder " + parts.dir + " does not exist";
        return std::nullopt;
    }
    if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
        *error = "cannot write " + path + ": it is a folder";
        return std::nullopt;
    }
    if (!overwrite && exists(path)) {
        *error = path +
                 " exists: choose another name, or pass --force-overwrite to replace it once the "
                 "new recording is complete";
        return std::nullopt;
    }
    if (!overwrite && exists(output.m_partial)) {
        *error = "an unfinished recording from an earlier run is at " + output.m_partial +
                 " (its recorder did not finish): open it or remove it, or pass "
                 "--force-overwrite";
        return std::nullopt;
    }
    output.discard(); // --force-overwrite: an earlier partial recording goes
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

std::vector<std::string> RecordingOutput::partialChildren() const {
    const PathParts parts = split(m_partial);
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
                children.push_back(join(parts.dir, name));
        }
        closedir(dir);
    }
    std::sort(children.begin(), children.end());
    return children;
}

std::string RecordingOutput::finalChildPath(const std::string& partialChild) const {
    const PathParts partial = split(m_partial), final = split(m_path);
    const std::string prefix = join(partial.dir, partial.stem + ".");
    const std::string pid = partialChild.substr(prefix.size(), partialChild.size() - prefix.size() -
                                                                   partial.ext.size());
    return join(final.dir, final.stem + "." + pid + final.ext);
}

bool RecordingOutput::publish(std::vector<std::string>* children, std::string* error) const {
    children->clear();
    for (const std::string& child : partialChildren()) {
        const std::string final = finalChildPath(child);
        if (!moveSession(child, final, error))
            return false;
        children->push_back(final);
    }
    return moveSession(m_partial, m_path, error);
}

void RecordingOutput::discard() const {
    for (const std::string& child : partialChildren())
        removeWithSideFiles(child);
    removeWithSideFiles(m_partial);
}

} // namespace stallscope::recorder
