// A multi-process run as one session (issue 16): the sessions of a run folder (one per rank, as
// `stallscope-record -- torchrun …` writes them) or several session files given together are
// opened as one session — processes in rank order, every row id moved past the previous file's,
// one string id per text, each file's times put on one clock. Processes of one host share its
// CLOCK_MONOTONIC; a run spanning hosts is aligned on its collective (NCCL) kernels, which end
// together on every rank, and the estimated skew is recorded (process_ranks.clock_shift_ns,
// meta run_clock_alignment).
//
// Each file is loaded and checked by SessionLoader on its own thread (a few at once), and the
// loaded sessions are merged in memory; nothing is written. The session's parts (Session::parts)
// name the files and how their rows were moved, so that SessionDatabase reads a rank's stacks and
// sources from that rank's own file.
#pragma once

#include "model/interop/run_clock.h"
#include "model/interop/run_files.h"
#include "model/session/session_loader.h"
#include "model/session/session_opener.h"

#include <string>
#include <vector>

namespace stallscope::model {

class RunMerger {
public:
    // Opens `paths` (a run folder, or several session files: findRunFiles) as one session whose
    // path and meta `import_source` are paths.front(). A file the loader refuses fails the whole
    // run with its error (which names it); progress and cancel as SessionLoader::load.
    static LoadResult load(const std::vector<std::string>& paths, const LoadOptions& options = {});
};

// Lets `opener` open run folders (folders of session files) through RunMerger::load().
void registerRunImporter(SessionOpener& opener);

} // namespace stallscope::model
