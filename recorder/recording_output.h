// RecordingOutput: where stallscope-record writes a session. The output is checked before the
// target starts (its folder exists and is writable, the file system has room, an existing file is
// only replaced when the user said so), the run writes under a temporary name beside it, and the
// session takes its real name only once finalized. A run that fails, or a program that cannot
// start, leaves an earlier recording of the same name untouched.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stallscope::recorder {

class RecordingOutput {
public:
    // Free space the output's file system must have before a run starts: a launch-bound loop
    // writes a few MB per second of recording.
    static constexpr int64_t kMinFreeBytes = 64ll << 20;

    // `path` absolute. Null (and *error, naming the path) when it cannot be written, or when it
    // or a partial recording of it exists and `overwrite` is false.
    static std::optional<RecordingOutput> plan(const std::string& path, bool overwrite,
                                               std::string* error);

    const std::string& path() const { return m_path; }
    // Written during the run: "<stem>.recording<ext>" beside path(); child processes write
    // "<stem>.recording.<pid><ext>" (RecorderConfig::outputPathFor).
    const std::string& partialPath() const { return m_partial; }

    // Child sessions written under the partial name, in name order.
    std::vector<std::string> partialChildren() const;
    // The final name of a partial child: "<stem>.<pid><ext>".
    std::string finalChildPath(const std::string& partialChild) const;

    // Renames the partial session and its children to their final names; returns the final
    // children. False (and *error) when a rename fails.
    bool publish(std::vector<std::string>* children, std::string* error) const;
    // Removes the partial session, its children and their SQLite side files.
    void discard() const;

private:
    RecordingOutput(std::string path, std::string partial)
        : m_path(std::move(path)), m_partial(std::move(partial)) {}
    std::string m_path, m_partial;
};

} // namespace stallscope::recorder
