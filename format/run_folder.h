// Where `stallscope-record -o PATH` leaves a run: PATH itself when one process used CUDA, else a
// run folder named like PATH without its extension ("/a/run.stallscope" -> "/a/run", "run" ->
// "./run"), one session per CUDA process. The recorder names the folder with this, and File ▸
// Record looks for it, so the two cannot disagree.
#pragma once

#include <string>

namespace stallscope::format {

inline std::string runFolderOf(const std::string& sessionPath) {
    const size_t slash = sessionPath.rfind('/');
    const std::string dir = slash == std::string::npos ? "."
                            : slash == 0               ? "/"
                                                       : sessionPath.substr(0, slash);
    const std::string file =
        slash == std::string::npos ? sessionPath : sessionPath.substr(slash + 1);
    const size_t dot = file.rfind('.');
    const std::string stem = dot == std::string::npos || dot == 0 ? file : file.substr(0, dot);
    return dir == "/" ? "/" + stem : dir + "/" + stem;
}

} // namespace stallscope::format
