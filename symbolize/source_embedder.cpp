#include "symbolize/source_embedder.h"

#include "format/checked_sql.h"
#include "format/sqlite_database.h"
#include "symbolize/regular_file.h"
#include "symbolize/sha256.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>

namespace stallscope::symbolize {

namespace {

struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
};

// Where the toolchain and the CUDA toolkit keep their headers: not the user's code, and embedding
// every <vector> a user frame inlined would bloat each session by megabytes.
constexpr const char* kSystemPrefixes[] = {"/usr/include/",    "/usr/lib/gcc/",    "/usr/lib/llvm-",
                                           "/usr/local/cuda/", "/usr/local/cuda-", "/opt/nvidia/"};

} // namespace

SourceEmbedder::SourceEmbedder(const SymbolizeOptions& options) : m_options(options) {}

bool SourceEmbedder::isSystemHeader(const std::string& path) {
    for (const char* prefix : kSystemPrefixes)
        if (path.rfind(prefix, 0) == 0)
            return true;
    return false;
}

std::string SourceEmbedder::locate(const std::string& recordedPath) const {
    std::vector<std::string> candidates;
    if (!recordedPath.empty() && recordedPath.front() != '/' && !m_options.sourceRoot.empty())
        candidates.push_back(m_options.sourceRoot + "/" + recordedPath);
    candidates.push_back(recordedPath);
    if (std::string remapped = remapPath(recordedPath, m_options.pathRemaps);
        remapped != recordedPath)
        candidates.push_back(std::move(remapped));
    for (const std::string& candidate : candidates)
        if (isRegularFile(candidate))
            return candidate;
    return {};
}

bool SourceEmbedder::readFile(const std::string& path, int64_t cap, FileText* out,
                              std::string* why) {
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        *why = std::strerror(errno);
        return false;
    }
    out->text.clear();
    out->sizeBytes = 0;
    out->truncated = false;
    Sha256 hash;
    char buffer[64 * 1024];
    size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
        hash.update(buffer, got);
        out->sizeBytes += static_cast<int64_t>(got);
        const int64_t room = cap - static_cast<int64_t>(out->text.size());
        if (room > 0)
            out->text.append(buffer, std::min<size_t>(got, static_cast<size_t>(room)));
    }
    if (std::ferror(file.get())) {
        *why = "read error";
        return false;
    }
    out->sha256 = hash.finishHex();
    if (std::memchr(out->text.data(), '\0', out->text.size())) {
        *why = "not a text file";
        return false;
    }
    if (out->sizeBytes > static_cast<int64_t>(out->text.size())) {
        out->truncated = true;
        // Cut at a line break: a half line (or half a UTF-8 sequence) helps nobody.
        const size_t lastBreak = out->text.rfind('\n');
        if (lastBreak != std::string::npos)
            out->text.resize(lastBreak + 1);
    }
    return true;
}

bool SourceEmbedder::run(format::Database& db, SymbolizeStats* stats,
                         std::vector<std::string>* warnings, std::string* error) {
    format::Statement query =
        db.prepare(format::CheckedSql(
                       "SELECT {frames.file} FROM {frames} WHERE {frames.is_user} = 1 AND "
                       "{frames.file} IS NOT NULL AND {frames.file} != '' UNION SELECT "
                       "i.{frame_inlines.file} FROM {frame_inlines} i JOIN {frames} f ON "
                       "f.{frames.id} = i.{frame_inlines.frame_id} WHERE f.{frames.is_user} = 1 "
                       "AND i.{frame_inlines.file} != '' EXCEPT SELECT {sources.path} FROM "
                       "{sources}")
                       .text());
    std::set<std::string> paths;
    while (query.step())
        paths.insert(query.text(0));
    if (!query.error().empty()) {
        *error = "reading source paths: " + query.error();
        return false;
    }
    format::Statement insert =
        db.prepare(format::CheckedSql("INSERT OR REPLACE INTO {sources}({sources.path}, "
                                      "{sources.sha256}, {sources.size_bytes}, "
                                      "{sources.truncated}, {sources.text}) VALUES (?, ?, ?, ?, ?)")
                       .text());
    if (!insert.prepared()) {
        *error = insert.error();
        return false;
    }
    std::vector<std::string> missing;
    for (const std::string& recorded : paths) {
        if (isSystemHeader(recorded) || recorded.front() == '<')
            continue;
        const std::string onDisk = locate(recorded);
        FileText file;
        std::string why = "not found";
        if (onDisk.empty() || !readFile(onDisk, m_options.sourceSizeCap, &file, &why)) {
            missing.push_back(recorded + " (" + why + ")");
            continue;
        }
        // Stored under the recorded path: that is what frames.file says and what readers look up.
        if (!insert.execute(recorded, file.sha256, file.sizeBytes, int64_t(file.truncated ? 1 : 0),
                            file.text)) {
            *error = insert.error();
            return false;
        }
        ++stats->sourcesEmbedded;
    }
    stats->sourcesMissing = static_cast<int64_t>(missing.size());
    // A bounded message: a session recorded elsewhere can miss hundreds of files.
    if (!missing.empty()) {
        std::string message =
            "sources: " + std::to_string(missing.size()) + " user source file(s) not embedded: ";
        for (size_t i = 0; i < missing.size() && i < 10; ++i)
            message += (i ? ", " : "") + missing[i];
        if (missing.size() > 10)
            message += ", ...";
        warnings->push_back(message);
    }
    return true;
}

} // namespace stallscope::symbolize
