// SourceEmbedder: copies into `sources` the text of every file a user frame points at (the frame's
// own file and the files of its inline chain), so the source view works on a machine without the
// sources. Each file is size-capped and carries the SHA-256 of its full content, so a reader can
// tell whether a file on disk is the one that was recorded. System headers are skipped (see
// docs/symbolization.md). Files already embedded are left alone; the caller owns the transaction.
#pragma once

#include "symbolize/symbolize_options.h"

#include <string>
#include <vector>

namespace stallscope::format {
class Database;
}

namespace stallscope::symbolize {

class SourceEmbedder {
public:
    explicit SourceEmbedder(const SymbolizeOptions& options);

    // Returns false only for database errors (*error set).
    bool run(format::Database& db, SymbolizeStats* stats, std::vector<std::string>* warnings,
             std::string* error);

    struct FileText {
        std::string text;   // at most the cap, cut at a line break when truncated
        std::string sha256; // of the whole file
        int64_t sizeBytes = 0;
        bool truncated = false;
    };
    // Reads `path`; false with *why when it cannot be read or is not text.
    static bool readFile(const std::string& path, int64_t cap, FileText* out, std::string* why);
    static bool isSystemHeader(const std::string& path);

private:
    // Where to read `recordedPath` on this machine: as is, relative to sourceRoot, or remapped.
    std::string locate(const std::string& recordedPath) const;

    SymbolizeOptions m_options;
};

} // namespace stallscope::symbolize
