#include "format/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

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

} // namespace

std::string checkOutputPath(const std::string& path, const OutputPolicy& policy) {
    if (path.empty())
        return "no output file given";
    struct stat target {};
    if (stat(path.c_str(), &target) != 0)
        return errno == ENOENT ? std::string() : systemError(path, errno);
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
    std::string pattern = folder + "/." + name.substr(0, 200) + ".tmp-XXXXXX";
    m_descriptor = mkostemp(pattern.data(), O_CLOEXEC);
    if (m_descriptor < 0) {
        *error = systemError(path, errno);
        return false;
    }
    m_temporary = pattern;
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
        *error =
            failure == EEXIST ? checkOutputPath(m_path, m_policy) : systemError(m_path, failure);
        discard();
        return false;
    }
    m_temporary.clear();
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
        unlink(m_temporary.c_str());
    m_temporary.clear();
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
