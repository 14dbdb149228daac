// The fleet summary (`stallscope --summary RUN/`, issue 43 item 4, docs/fleet.md): per rank its
// steps, host-blocked sync time and GPU busy time, which rank arrived last at the collectives, and
// the sync sites that blocked the most over all ranks — for runs too large to load. Each rank's
// file is streamed: SQL aggregates and ordered scans (model/fleet/fleet_sql.h) whose sorts SQLite
// spills to its temporary files, never a model::Session. What stays in memory is bounded per rank
// (FleetOptions) and does not grow with a file's events; the collectives' arrival times go to an
// unlinked temporary file and are matched across ranks in lock-step (collective_arrivals.h).
#pragma once

#include "model/fleet/fleet_types.h"

#include <string>

namespace stallscope::model::fleet {

// `path`: a run folder (its *.stallscope files, one per rank, as RunMerger lists them) or one
// session file. Files are opened read-only and immutable; one with a pending write-ahead log or
// hot journal is read from its made-whole copy in the import cache (side_file_snapshot.h). A file
// that is no readable session fails the summary with its name and the problem.
FleetResult summarizeRun(const std::string& path, const FleetOptions& options = {});

} // namespace stallscope::model::fleet
