#include "model/interop/trace_folder.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <system_error>

namespace stallscope::model {

namespace {

// The first `limit` bytes of the file's JSON (decompressed when it is gzip): gzread reads plain
// files as they are.
std::string head(const std::string& path, size_t limit) {
    std::string text;
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file)
        return text;
    text.resize(limit);
    const int read = gzread(file, text.data(), static_cast<unsigned>(limit));
    gzclose(file);
    text.resize(read > 0 ? static_cast<size_t>(read) : 0);
    return text;
}

// Identical files have the same size and the same first and last MiB: enough to tell a copied
// rank file from another rank's, without reading hundreds of MB.
std::string contentKey(const std::string& path) {
    constexpr std::streamoff kEdge = 1 << 20;
    std::error_code ec;
    const auto size = static_cast<std::streamoff>(std::filesystem::file_size(path, ec));
    if (ec)
        return {};
    std::ifstream in(path, std::ios::binary);
    std::string edges(static_cast<size_t>(std::min(size, kEdge)), '\0');
    in.read(edges.data(), static_cast<std::streamsize>(edges.size()));
    if (size > kEdge) {
        std::string tail(static_cast<size_t>(std::min(size - kEdge, kEdge)), '\0');
        in.seekg(size - static_cast<std::streamoff>(tail.size()));
        in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
        edges += tail;
    }
    return std::to_string(size) + ":" + std::to_string(std::hash<std::string>{}(edges));
}

std::string nameOf(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

} // namespace

TraceFolderSelection selectTraceFiles(const std::vector<std::string>& files) {
    TraceFolderSelection selection;
    std::map<std::string, std::string> seen; // content key -> the file kept
    for (const std::string& file : files) {
        if (head(file, kTraceKeyWindowBytes).find("\"traceEvents\"") == std::string::npos) {
            selection.skipped.push_back(nameOf(file) +
                                        ": not a profiler trace (no traceEvents near its start)");
            continue;
        }
        const std::string key = contentKey(file);
        if (const auto kept = seen.find(key); !key.empty() && kept != seen.end()) {
            selection.skipped.push_back(nameOf(file) + ": the same content as " + kept->second);
            continue;
        }
        seen.emplace(key, nameOf(file));
        selection.traces.push_back(file);
    }
    return selection;
}

} // namespace stallscope::model
