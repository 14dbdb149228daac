#include "format/output_file.h"

#include "format/sqlite_database.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

namespace stallscope::format {

namespace {

std::string systemError(const std::string& path, int error) {
    return path + ": cannot write: " + std::strerror(error);
}

std::string folderOf(const std::string& path) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// The permissions a new file gets (0666 less the umask), read without changing the umask, which
// would race other threads creating files.
mode_t newFileMode() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Umask:", 0) == 0)
            return 0666 & ~static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
    return 0644;
}

// Renames without replacing what is there: atomically where the file system can, else by a hard
// link (which fails on an existing name just the same).
int renameNoReplace(const char* from, const char* to) {
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    if (link(from, to) != 0)
        return -1;
    unlink(from);
    return 0;
}

// The open temporaries, for a signal handler to remove: fixed slots of plain characters (a handler
// may not allocate or lock). A slot is claimed by compare-exchange and read only when `inUse`.
constexpr int kTemporarySlots = 64;
struct TemporarySlot {
    std::atomic<bool> claimed{false};
    std::atomic<bool> inUse{false};
    char path[4096 + 16] = {};
};
TemporarySlot g_temporaries[kTemporarySlots];

int registerTemporary(const std::string& path) {
    if (path.size() >= sizeof(TemporarySlot::path) - 16)
        return -1;
    for (int i = 0; i < kTemporarySlots; ++i) {
        bool expected = false;
        if (g_temporaries[i].claimed.compare_exchange_strong(expected, true)) {
            std::memcpy(g_temporaries[i].path, path.c_str(), path.size() + 1);
            g_temporaries[i].inUse.store(true);
            return i;
        }
    }
    return -1; // more than 64 outputs at once: a signal then leaves this one behind
}

void unregisterTemporary(int slot) {
    if (slot < 0)
        return;
    g_temporaries[slot].inUse.store(false);
    g_temporaries[slot].claimed.store(false);
}

// Async-signal-safe: unlink() and stack buffers only.
void removeWithSideFiles(const char* path) {
    unlink(path);
    char side[sizeof(TemporarySlot::path)];
    const size_t length = std::strlen(path);
    for (const char* suffix : kSqliteSideFileSuffixes) {
        const size_t suffixLength = std::strlen(suffix);
        if (length + suffixLength + 1 > sizeof side)
            continue;
        std::memcpy(side, path, length);
        std::memcpy(side + length, suffix, suffixLength + 1);
        unlink(side);
    }
}

void removeRegisteredTemporaries() {
    for (TemporarySlot& slot : g_temporaries)
        if (slot.inUse.load())
            removeWithSideFiles(slot.path);
}

constexpr int kCleanedSignals[] = {SIGINT, SIGTERM, SIGHUP};

void removeTemporariesAndDie(int signal) {
    removeRegisteredTemporaries();
    std::signal(signal, SIG_DFL);
    raise(signal);
}

// The temporary's name prefix for `target` (no folder): `.NAME.tmp-`.
std::string temporaryPrefix(const std::string& name) {
    return "." + name.substr(0, 200) + ".tmp-";
}

// Removes `.NAME.tmp-PID-XXXXXX` files of `folder` (and their SQLite side files) whose PID no
// longer runs and which belong to this user: what a killed writer of the same target left.
void removeStaleTemporaries(const std::string& folder, const std::string& name) {
    const std::string prefix = temporaryPrefix(name);
    DIR* dir = opendir(folder.c_str());
    if (!dir)
        return;
    std::vector<std::string> stale;
    while (const dirent* entry = readdir(dir)) {
        const std::string file = entry->d_name;
        if (file.compare(0, prefix.size(), prefix) != 0)
            continue;
        char* end = nullptr;
        const long pid = std::strtol(file.c_str() + prefix.size(), &end, 10);
        // Exactly PID-XXXXXX after the prefix: mkostemp's six characters, no side-file suffix.
        if (pid <= 0 || *end != '-' || std::strlen(end + 1) != 6)
            continue;
        struct stat info {};
        const std::string path = folder + "/" + file;
        if (lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != geteuid())
            continue;
        if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
            continue; // still running (or not ours to ask): maybe still writing
        stale.push_back(path);
    }
    closedir(dir);
    for (const std::string& path : stale)
        removeWithSideFiles(path.c_str());
}

// The input whose SQLite side file `path` would be, or empty: compared by name, since the side
// file need not exist yet (a writer creates it on its first change).
std::string inputOfSideFile(const std::string& path, const std::vector<std::string>& inputs) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string target = fs::weakly_canonical(path, ec).string();
    if (ec)
        return {};
    for (const std::string& input : inputs) {
        const std::string canonical = fs::weakly_canonical(input, ec).string();
        if (ec)
            continue;
        for (const char* suffix : kSqliteSideFileSuffixes)
            if (target == canonical + suffix)
                return input;
    }
    return {};
}

} // namespace

void removeTemporaryOutputsOnSignals() {
    static std::atomic<bool> installed{false};
    if (installed.exchange(true))
        return;
    for (const int signal : kCleanedSignals) {
        struct sigaction current {};
        if (sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL ||
            (current.sa_flags & SA_SIGINFO))
            continue;
        struct sigaction cleanup {};
        cleanup.sa_handler = removeTemporariesAndDie;
        sigemptyset(&cleanup.sa_mask);
        sigaction(signal, &cleanup, nullptr);
    }
    std::atexit(removeRegisteredTemporaries);
}

std::string checkOutputPath(const std::string& path, const OutputPolicy& policy) {
    if (path.empty())
        return "no output file given";
    if (const std::string input = inputOfSideFile(path, policy.inputs); !input.empty())
        return path + ": is a file SQLite keeps beside the input " + input +
               "; refusing to write it";
    struct stat target {};
    if (stat(path.c_str(), &target) != 0) {
        struct stat link {};
        if (errno == ENOENT && lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
            return path + ": is a symbolic link to a file that does not exist; refusing to write "
                          "through it";
        return errno == ENOENT ? std::string() : systemError(path, errno);
    }
    for (const std::string& input : policy.inputs) {
        struct stat source {};
        if (stat(input.c_str(), &source) == 0 && source.st_dev == target.st_dev &&
            source.st_ino == target.st_ino)
            return path + ": is the input " + input + "; refusing to overwrite it";
    }
    if (!S_ISREG(target.st_mode))
        return path + ": exists and is not a regular file";
    if (!policy.replaceExisting)
        return path + ": already exists" +
               (policy.replaceHint.empty() ? std::string() : "; " + policy.replaceHint);
    return {};
}

bool OutputFile::create(const std::string& path, const OutputPolicy& policy, std::string* error) {
    discard();
    if (std::string refused = checkOutputPath(path, policy); !refused.empty()) {
        *error = std::move(refused);
        return false;
    }
    m_path = path;
    m_policy = policy;
    const std::string folder = folderOf(path);
    // Hidden, and short enough for the file system's name limit whatever the target's length.
    const std::string name = path.substr(path.rfind('/') + 1); // npos + 1 == 0: no folder
    removeStaleTemporaries(folder, name);
    std::string pattern =
        folder + "/" + temporaryPrefix(name) + std::to_string(getpid()) + "-XXXXXX";
    m_descriptor = mkostemp(pattern.data(), O_CLOEXEC);
    if (m_descriptor < 0) {
        *error = systemError(path, errno);
        return false;
    }
    m_temporary = pattern;
    m_signalSlot = registerTemporary(m_temporary);
    struct stat existing {};
    const mode_t mode =
        stat(path.c_str(), &existing) == 0 ? existing.st_mode & 07777 : newFileMode();
    fchmod(m_descriptor, mode);
    return true;
}

bool OutputFile::commit(std::string* error) {
    int failure = 0;
    if (m_descriptor >= 0 && close(m_descriptor) != 0)
        failure = errno;
    m_descriptor = -1;
    // By name: a writer may have replaced the temporary file (SQLite recreates it).
    const int written = failure ? -1 : open(m_temporary.c_str(), O_RDONLY | O_CLOEXEC);
    if (!failure && (written < 0 || fsync(written) != 0))
        failure = errno;
    if (written >= 0)
        close(written);
    if (!failure &&
        (m_policy.replaceExisting ? rename(m_temporary.c_str(), m_path.c_str())
                                  : renameNoReplace(m_temporary.c_str(), m_path.c_str())) != 0)
        failure = errno;
    if (failure) {
        *error = failure == EEXIST ? checkOutputPath(m_path, m_policy) : std::string();
        if (error->empty()) // EEXIST from a file that appeared and went again: still a refusal
            *error = failure == EEXIST ? m_path + ": already exists" : systemError(m_path, failure);
        discard();
        return false;
    }
    m_temporary.clear();
    unregisterTemporary(std::exchange(m_signalSlot, -1));
    // The rename itself survives a crash once the folder is on disk too.
    if (const int folder = open(folderOf(m_path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        folder >= 0) {
        fsync(folder);
        close(folder);
    }
    return true;
}

void OutputFile::discard() {
    if (m_descriptor >= 0)
        close(m_descriptor);
    m_descriptor = -1;
    if (!m_temporary.empty())
        removeWithSideFiles(m_temporary.c_str());
    m_temporary.clear();
    unregisterTemporary(std::exchange(m_signalSlot, -1));
}

bool writeOutputFile(const std::string& path, std::string_view bytes, const OutputPolicy& policy,
                     std::string* error) {
    OutputFile file;
    if (!file.create(path, policy, error))
        return false;
    while (!bytes.empty()) {
        const ssize_t count = write(file.descriptor(), bytes.data(), bytes.size());
        if (count < 0 && errno == EINTR)
            continue;
        if (count <= 0) {
            *error = systemError(path, count < 0 ? errno : EIO);
            return false;
        }
        bytes.remove_prefix(static_cast<size_t>(count));
    }
    return file.commit(error);
}

} // namespace stallscope::format
