// Whether a path names a regular file (not a folder, a device or a FIFO, which the symbolizer
// must never open: reading one could block or never end).
#pragma once

#include <string>

#include <sys/stat.h>

namespace stallscope::symbolize {

inline bool isRegularFile(const std::string& path) {
    struct stat info;
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

} // namespace stallscope::symbolize
