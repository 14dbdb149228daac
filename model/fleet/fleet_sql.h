// The SQL the fleet summary runs on each rank's file, written through format::CheckedSql (every
// table and column name checked against session_tables.h when the program is compiled) in the
// subset of SQL that SQLite and DuckDB share, so that docs/fleet.md can show it as it runs and
// tests/fleet/test_fleet_doc_sql.cpp checks the two agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::model::fleet::sql {

// The rank of the file's first process: pid, host, rank, world_size (rank and world_size NULL
// without a process_ranks row). `withRanks`: the file has process_ranks (format v2 on).
std::string rankIdentity(bool withRanks);

// The steps, as analysis_window.cpp's findSteps finds them: ranges named ProfilerStep#N, else
// ranges whose name starts with "step" (any case); of the thread with the most, at their
// outermost depth. Rows: source (1 profiler, 2 NVTX), start_ns, end_ns, in start order.
std::string stepRanges();

// The GPU operations (kernels, memcpys, memsets) of each device, in start order: rows device_id,
// start_ns, end_ns. Their union (busy time) is taken as they stream: a sort in SQLite, one pass in
// C++ (an aggregate with a window function over the same rows, docs/fleet.md's engine form, takes
// SQLite three times as long).
std::string gpuOperations();

// Host-blocking syncs per stack with the stack's frames, innermost first. Rows: stack_id (NULL:
// syncs without a stack), syncs, blocked_ns, position, kind, file, line, is_user (frame columns
// NULL for a stack without frames).
std::string blockingSyncsByStack();

// The starts of the host-blocking syncs of these stacks (stackIds empty: of the syncs without a
// stack), in order.
std::string blockingSyncStarts(const std::vector<int64_t>& stackIds, bool withoutStack);

// Every string: id, text. The collective kernel names among them are told in C++
// (isCollectiveKernelName), as the loaded session's are.
std::string strings();

// The kernels of these names: name_id, start_ns, in (name, start) order: each name's arrivals.
std::string collectiveArrivals(const std::vector<int64_t>& nameIds);

} // namespace stallscope::model::fleet::sql
