// Writing an output file safely: into a temporary file beside the target, made durable (fsync)
// and renamed over the target only once complete, so a failed write leaves nothing behind and
// nobody ever sees half a file. The target must not be one of the command's inputs (compared by
// device and inode: another spelling, a hard link or a symbolic link to an input is caught), and
// an existing target is replaced only when the policy says so. Every output of `stallscope` (Chrome
// export, PDF report, trace conversion) goes through OutputFile.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stallscope::format {

struct OutputPolicy {
    bool replaceExisting = false; // the command (--force) or the user (a save dialog) said so
    // Files the output must not be; a folder input stands for the files the caller lists here.
    std::vector<std::string> inputs;
    // Appended to the error about an existing target, e.g. "add --force to replace it".
    std::string replaceHint;
};

// Empty when `path` may be written under `policy`, else one line naming the path and the problem.
// An input's SQLite side files (-wal, -shm, -journal) count as the input, existing or not:
// replacing or creating one would change what the input holds.
std::string checkOutputPath(const std::string& path, const OutputPolicy& policy);

// Removes the temporary files of every OutputFile still open when SIGINT, SIGTERM or SIGHUP
// arrives (then dies of the signal as before), and at exit(). For programs, not libraries: only
// signals whose handler is the default one are taken.
void removeTemporaryOutputsOnSignals();

class OutputFile {
public:
    OutputFile() = default;
    ~OutputFile() { discard(); }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    // Checks `path` against `policy` and creates the temporary file in its folder, named
    // `.NAME.tmp-PID-XXXXXX`. Temporaries of the same target left by a process that no longer runs
    // (killed before it could remove them) are removed first, with their SQLite side files. False
    // with *error ("<path>: <problem>") when the output is refused or cannot be created.
    bool create(const std::string& path, const OutputPolicy& policy, std::string* error);
    // Where to write: open for writing on descriptor(), or by temporaryPath() for writers that
    // open files by name (SQLite). Both stay valid until commit() or discard().
    const std::string& temporaryPath() const { return m_temporary; }
    int descriptor() const { return m_descriptor; }

    // Flushes the temporary file to disk and renames it to the target. False with *error naming
    // the target and the system's reason; the temporary file is then removed.
    bool commit(std::string* error);
    // Removes the temporary file (what the destructor does unless commit() succeeded).
    void discard();

private:
    std::string m_path;
    std::string m_temporary;
    int m_descriptor = -1;
    int m_signalSlot = -1; // where removeTemporaryOutputsOnSignals() finds m_temporary
    OutputPolicy m_policy;
};

// `bytes` as the whole content of `path`, through an OutputFile.
bool writeOutputFile(const std::string& path, std::string_view bytes, const OutputPolicy& policy,
                     std::string* error);

} // namespace stallscope::format
