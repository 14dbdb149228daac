// Where `stallscope-record -o PATH` leaves a run: PATH itself when one process used CUDA, else a
// run folder named like PATH without its extension ("/a/run.stallscope" -> "/a/run", "run" ->
// "./run"), one session per CUDA process. The recorder names the folder with this, and File ▸
// Record looks for it, so the two cannot disagree.
#pragma once

#include <string>

namespace stallscope::format {

// A session path's folder, name stem and extension: "/a/run.stallscope" -> "/a", "run",
// ".stallscope"; "run" -> ".", "run", ""; "/run" -> "/", "run", "".
struct SessionPathParts {
    std::string dir, stem, ext;
};

inline SessionPathParts splitSessionPath(const std::string& path) {
    const size_t slash = path.rfind('/');
    SessionPathParts parts;
    parts.dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
    const std::string file = slash == std::string::npos ? path : path.substr(slash + 1);
    const size_t dot = file.rfind('.');
    parts.stem = dot == std::string::npos || dot == 0 ? file : file.substr(0, dot);
    parts.ext = dot == std::string::npos || dot == 0 ? "" : file.substr(dot);
    return parts;
}

// `file` in `dir` ("/" and "a" -> "/a", not "//a").
inline std::string joinPath(const std::string& dir, const std::string& file) {
    return dir == "/" ? "/" + file : dir + "/" + file;
}

inline std::string runFolderOf(const std::string& sessionPath) {
    const SessionPathParts parts = splitSessionPath(sessionPath);
    return joinPath(parts.dir, parts.stem);
}

} // namespace stallscope::format
