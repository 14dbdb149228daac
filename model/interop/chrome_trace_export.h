// ChromeTraceExporter: writes a loaded session as Chrome trace JSON (`.json`, or gzip-compressed
// when the name ends in `.gz`) that Perfetto and chrome://tracing open, in Kineto's shape so
// Stallscope's own importer reads it back:
//   host threads  -> pid = process pid, tid = thread id: cuda_runtime / cuda_driver API calls,
//                    user_annotation ranges, and syncs in their own category "sync" (args: kind,
//                    correlation, stream, event, stack = frames innermost first, see
//                    kineto_names.h)
//   GPU streams   -> pid = device index, tid = stream id: kernel, gpu_memcpy, gpu_memset;
//                    kernel names demangled as the GUI shows them, the recorded (mangled)
//                    symbol in args.mangled when it differs
//   launch links  -> ac2g flow arrows (ph s/f) from the API call to the GPU work it launched
//   sync waits    -> sync_wait flow arrows from each sync to the GPU work it waited for
//                    (model/session/waited_work.h, the timeline's "waited for" arrow)
//   metadata      -> process_name, process_labels, thread_name, and process_sort_index /
//                    thread_sort_index in the timeline's lane order (per process: its threads,
//                    then its GPUs and their streams).
// Times are microseconds with three decimals: exact nanoseconds.
#pragma once

#include "format/output_file.h"

#include <cstdint>
#include <string>

namespace stallscope::model {

class Session;
class SessionDatabase;

struct ChromeExportStats {
    int64_t events = 0;
    int64_t bytes = 0;
};

class ChromeTraceExporter {
public:
    // Returns false with *error (one line naming the file) when `policy` refuses the path or the
    // file cannot be written; nothing is left at `outPath` then (format/output_file.h).
    static bool write(const Session& session, const SessionDatabase& database,
                      const std::string& outPath, const format::OutputPolicy& policy,
                      std::string* error, ChromeExportStats* stats = nullptr);
};

// The call the CLI (`--export-chrome out.json FILE`) and the File menu use.
inline bool exportChromeTrace(const Session& session, const SessionDatabase& database,
                              const std::string& outPath, const format::OutputPolicy& policy,
                              std::string* error) {
    return ChromeTraceExporter::write(session, database, outPath, policy, error);
}

} // namespace stallscope::model
