// RecordingOutput: where stallscope-record writes a run. The output is checked before the target
// starts (its folder exists and is writable, the file system has room, an existing recording is
// only replaced when the user said so), the run writes under temporary names beside it, and the
// sessions take their real names only once finalized. A run that fails, or a program that cannot
// start, leaves an earlier recording of the same name untouched.
//
// One CUDA process gives one file, `run.stallscope`; when child processes used CUDA too (torchrun,
// mpirun, multiprocessing) the run becomes a folder `run/` (the path without its extension) with
// one session per CUDA process, `rank<R>.stallscope` or `pid<P>.stallscope`. Sessions of processes
// that never used CUDA (the launcher, a tokenizer worker) are dropped.
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

    // What a finished session of the run says about its process.
    struct SessionFacts {
        int64_t pid = 0;
        bool usedCuda = false; // a CUDA call, stream or GPU work recorded (unreadable: true, kept)
        std::optional<int64_t> rank;
        std::string launcher;
    };
    // What publish() wrote.
    struct Published {
        std::vector<std::string> files; // final paths, in name order
        bool folder = false;
        int ranks = 0;        // sessions with a rank
        std::string launcher; // of the first session that names one
        int dropped = 0;      // sessions of processes that never used CUDA
    };

    // `path` absolute. Null (and *error, naming the path) when it cannot be written, or when it,
    // its folder form or a partial recording of either exists and `overwrite` is false.
    static std::optional<RecordingOutput> plan(const std::string& path, bool overwrite,
                                               std::string* error);
    // Reads a session's facts (the first process, its rank row, whether it used CUDA).
    static SessionFacts inspect(const std::string& session);
    // The flight recorder's snapshots that a partial session lists (meta ring_snapshots, written
    // by its recorder during the run): only files beside it named as its own snapshots
    // ("<stem>.snapshot-<n>…", snapshot_names.h) that exist.
    static std::vector<std::string> snapshots(const std::string& session);
    // A session's name in a run folder: "rank<R><ext>", "pid<P><ext>" when the rank is unknown.
    static std::string folderName(const SessionFacts& facts, const std::string& ext, bool rankFree);

    const std::string& path() const { return m_path; }
    // The folder form of path(): path() without its extension.
    const std::string& folderPath() const { return m_folder; }
    // Written during the run: "<stem>.recording<ext>" beside path(); child processes write
    // "<stem>.recording.<pid><ext>" (RecorderConfig::outputPathFor).
    const std::string& partialPath() const { return m_partial; }

    // Child sessions written under the partial name, in name order.
    std::vector<std::string> partialChildren() const;

    // Gives the sessions their final names (one file, or the run folder), dropping those of
    // processes that never used CUDA. False (and *error) when a rename fails.
    bool publish(Published* published, std::string* error) const;
    // Removes the partial session, its children and their SQLite side files.
    void discard() const;

private:
    RecordingOutput(std::string path, std::string partial, std::string folder, bool overwrite)
        : m_path(std::move(path)), m_partial(std::move(partial)), m_folder(std::move(folder)),
          m_overwrite(overwrite) {}
    bool publishFolder(const std::vector<std::string>& sessions, Published* published,
                       std::string* error) const;
    std::string m_path, m_partial, m_folder;
    bool m_overwrite = false;
};

} // namespace stallscope::recorder
