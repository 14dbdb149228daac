// KinetoImporter: opens PyTorch profiler (Kineto) Chrome traces — `.json`, `.json.gz`, or a
// folder of them (one file per rank) — by converting them into a session file with the normal
// SessionWriter, then loading that with SessionLoader. Streaming throughout: memory follows the
// per-thread Python call buffers, not the trace size. Each file's JSON is read on a thread of its
// own while the calling thread converts (kineto_trace_reader.h).
//
// What the CLI calls:
//   stallscope --convert trace.json.gz -o out.stallscope  ->  KinetoImporter::convert(in, out)
//   stallscope trace.json.gz / --insights / --report      ->
//   SessionOpener with registerKinetoImporter() -> KinetoImporter::load(path)
#pragma once

#include "format/output_file.h"
#include "model/interop/kineto_converter.h"
#include "model/interop/kineto_trace_reader.h"
#include "model/session/session_loader.h"
#include "model/session/session_opener.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace stallscope::model {

struct KinetoImportOptions {
    std::function<void(double)> progress;      // fraction of the input read, in [0, 1]
    const std::atomic<bool>* cancel = nullptr; // set to stop; the result is then cancelled
    // May the session replace an existing file, which inputs it must not be (the trace files
    // are added by convert() itself).
    format::OutputPolicy output;
    // Read the JSON on a thread of its own while the calling thread converts (the same session
    // either way; kineto_trace_reader.h).
    bool pipelined = kinetoReadPipelinedByDefault();
};

struct KinetoImportResult {
    bool ok = false;
    bool cancelled = false;
    std::string error; // one line naming the file and the problem
    KinetoImportStats stats;
    double seconds = 0;
};

class KinetoImporter {
public:
    // True for `*.json`, `*.json.gz` files and for folders that hold such files.
    static bool looksLikeTrace(const std::string& path);
    // The trace files a path stands for (itself, or a folder's `*.json[.gz]` sorted by name).
    static std::vector<std::string> traceFiles(const std::string& path, std::string* error);

    // Converts the trace (file or folder) into a complete session file at `sessionPath`
    // (written beside it under a temporary name, renamed when done; nothing left on failure).
    // A `sessionPath` that is one of the trace files is refused.
    static KinetoImportResult convert(const std::string& tracePath, const std::string& sessionPath,
                                      const KinetoImportOptions& options = {});

    // Converts into the import cache (reused while the trace is unchanged) and loads the result.
    // The session's `path` is the cached session file (SessionDatabase opens it for stacks);
    // meta `import_source` names the trace.
    static LoadResult load(const std::string& tracePath, const LoadOptions& options = {});

    // Where load() keeps the converted session, in writableImportCacheDir() (import_cache.h,
    // which also bounds the cache's size and keys it on the trace files' content); empty, with
    // *why, when no folder can be written.
    static std::string cachePathFor(const std::string& tracePath, std::string* why = nullptr);
};

// Lets `opener` open torch.profiler traces (files and per-rank folders) through load().
void registerKinetoImporter(SessionOpener& opener);

} // namespace stallscope::model
