// The loader's first step: the descriptive tables (processes, threads, devices, streams, strings,
// stacks, dropped) read into the Session with every value and reference checked, and the indexes
// that the event readers resolve row ids with. Internal to the loader.
#pragma once

#include "format/sqlite_database.h"
#include "model/session/load_checks.h"
#include "model/session/session.h"

namespace stallscope::model::loading {

struct DescriptionIndexes {
    RowIndex threads; // threads.id -> Session::threads
    RowIndex streams; // streams.id -> Session::streams
    IdSet stacks;     // stacks.id
};

// Fills session's processes, threads, devices, streams, strings, droppedRecords and empty lanes;
// throws LoadFailure on the first bad row.
DescriptionIndexes readDescriptions(const format::Database& db, Session& session);

// Capture control: captureControlled from the meta and captureIntervals from format v5's
// capture_intervals (required from v5 on), each row checked. Read after the events, so that an
// interval without an end (still capturing at the last commit) ends at the session's end.
void readCaptureIntervals(const format::Database& db, Session& session);
// The recorder's overhead probe from the meta (Session::overheadProbe); a value no recorder
// writes fails the load.
void readOverheadProbe(Session& session);

} // namespace stallscope::model::loading
