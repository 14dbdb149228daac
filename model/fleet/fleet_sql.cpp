#include "model/fleet/fleet_sql.h"

#include "format/checked_sql.h"
#include "format/session_enums.h"

namespace stallscope::model::fleet::sql {

namespace {

// The queries say "kind <> 4" for "host-blocking" (what model::isHostBlocking says in C++): the
// one kind that does not block the host.
static_assert(static_cast<int>(format::SyncKind::StreamWaitEvent) == 4);

std::string idList(const std::vector<int64_t>& ids) {
    std::string list;
    for (const int64_t id : ids)
        list += (list.empty() ? "" : ", ") + std::to_string(id);
    return list;
}

} // namespace

std::string rankIdentity(bool withRanks) {
    constexpr format::CheckedSql kWithRanks = R"SQL(SELECT p.{processes.pid}, p.{processes.host},
  r.{process_ranks.rank}, r.{process_ranks.world_size}
FROM {processes} p LEFT JOIN {process_ranks} r ON r.{process_ranks.process_id} = p.{processes.id}
ORDER BY p.{processes.id} LIMIT 1)SQL";
    constexpr format::CheckedSql kWithout =
        R"SQL(SELECT {processes.pid}, {processes.host}, NULL, NULL FROM {processes}
ORDER BY {processes.id} LIMIT 1)SQL";
    return (withRanks ? kWithRanks : kWithout).text();
}

std::string stepRanges() {
    constexpr format::CheckedSql kSql = R"SQL(WITH step_ranges AS (
  SELECT r.{ranges.thread_id} AS thread_id, r.{ranges.depth} AS depth,
    r.{ranges.start_ns} AS start_ns, r.{ranges.end_ns} AS end_ns,
    CASE WHEN substr(s.{strings.text}, 1, 13) = 'ProfilerStep#' THEN 1 ELSE 2 END AS source
  FROM {ranges} r JOIN {strings} s ON s.{strings.id} = r.{ranges.name_id}
  WHERE substr(s.{strings.text}, 1, 13) = 'ProfilerStep#'
    OR lower(substr(s.{strings.text}, 1, 4)) = 'step'),
step_source AS (SELECT MIN(source) AS source FROM step_ranges),
outermost AS (
  SELECT thread_id, MIN(depth) AS depth FROM step_ranges
  WHERE source = (SELECT source FROM step_source) GROUP BY thread_id),
step_lane AS (
  SELECT o.thread_id, o.depth FROM outermost o JOIN step_ranges r
    ON r.thread_id = o.thread_id AND r.depth = o.depth
    AND r.source = (SELECT source FROM step_source)
  GROUP BY o.thread_id, o.depth ORDER BY COUNT(*) DESC, o.thread_id LIMIT 1)
SELECT r.source, r.start_ns, r.end_ns
FROM step_ranges r JOIN step_lane l ON r.thread_id = l.thread_id AND r.depth = l.depth
WHERE r.source = (SELECT source FROM step_source)
ORDER BY r.start_ns)SQL";
    return kSql.text();
}

std::string gpuOperations() {
    constexpr format::CheckedSql kSql = R"SQL(WITH gpu_ops AS (
  SELECT t.{streams.device_id} AS device_id, o.{kernels.start_ns} AS start_ns,
    o.{kernels.end_ns} AS end_ns
  FROM {kernels} o JOIN {streams} t ON t.{streams.id} = o.{kernels.stream_id}
  UNION ALL
  SELECT t.{streams.device_id}, o.{memcpys.start_ns}, o.{memcpys.end_ns}
  FROM {memcpys} o JOIN {streams} t ON t.{streams.id} = o.{memcpys.stream_id}
  UNION ALL
  SELECT t.{streams.device_id}, o.{memsets.start_ns}, o.{memsets.end_ns}
  FROM {memsets} o JOIN {streams} t ON t.{streams.id} = o.{memsets.stream_id})
SELECT device_id, start_ns, end_ns FROM gpu_ops WHERE end_ns >= start_ns
ORDER BY device_id, start_ns, end_ns)SQL";
    return kSql.text();
}

std::string blockingSyncsByStack() {
    constexpr format::CheckedSql kSql = R"SQL(WITH by_stack AS (
  SELECT {syncs.stack_id} AS stack_id, COUNT(*) AS syncs,
    SUM({syncs.end_ns} - {syncs.start_ns}) AS blocked_ns
  FROM {syncs} WHERE {syncs.kind} <> 4 GROUP BY {syncs.stack_id})
SELECT b.stack_id, b.syncs, b.blocked_ns, sf.{stack_frames.position}, f.{frames.kind},
  COALESCE(i.{frame_inlines.file}, f.{frames.file}), COALESCE(i.{frame_inlines.line}, f.{frames.line}),
  f.{frames.is_user}
FROM by_stack b
LEFT JOIN {stack_frames} sf ON sf.{stack_frames.stack_id} = b.stack_id
LEFT JOIN {frames} f ON f.{frames.id} = sf.{stack_frames.frame_id}
LEFT JOIN {frame_inlines} i ON i.{frame_inlines.frame_id} = f.{frames.id}
ORDER BY b.stack_id, sf.{stack_frames.position}, i.{frame_inlines.depth})SQL";
    return kSql.text();
}

std::string blockingSyncStarts(const std::vector<int64_t>& stackIds, bool withoutStack) {
    constexpr format::CheckedSql kSelect =
        "SELECT {syncs.start_ns} FROM {syncs} WHERE {syncs.kind} <> 4 AND ";
    constexpr format::CheckedSql kWithout = "{syncs.stack_id} IS NULL";
    constexpr format::CheckedSql kIn = "{syncs.stack_id} IN (";
    constexpr format::CheckedSql kOrder = " ORDER BY {syncs.start_ns}";
    std::string where = withoutStack ? kWithout.text() : std::string();
    if (!stackIds.empty())
        where += (where.empty() ? "" : " OR ") + kIn.text() + idList(stackIds) + ")";
    if (where.empty())
        where = "0";
    return kSelect.text() + "(" + where + ")" + kOrder.text();
}

std::string strings() {
    constexpr format::CheckedSql kSql = "SELECT {strings.id}, {strings.text} FROM {strings}";
    return kSql.text();
}

std::string collectiveArrivals(const std::vector<int64_t>& nameIds) {
    constexpr format::CheckedSql kSelect =
        "SELECT {kernels.name_id}, {kernels.start_ns} FROM {kernels} WHERE {kernels.name_id} IN (";
    constexpr format::CheckedSql kOrder = ") ORDER BY {kernels.name_id}, {kernels.start_ns}";
    return kSelect.text() + idList(nameIds) + kOrder.text();
}

} // namespace stallscope::model::fleet::sql
