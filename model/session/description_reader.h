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

// Reads every row of `sql`, a select over `table` with the row id in column 0, handing each to
// onRow as a CheckedRow; throws LoadFailure when a value has the wrong type or reading fails.
template <typename OnRow>
void readTable(const format::Database& db, std::string_view table, const std::string& sql,
               OnRow onRow) {
    format::Statement rows = db.prepare(sql);
    while (rows.step()) {
        const CheckedRow row(rows, table);
        onRow(row);
        row.requireTypes();
    }
    if (rows.failed() || !rows.prepared())
        throw LoadFailure{"corrupt session: cannot read table '" + std::string(table) +
                          "': " + db.lastMessage()};
}

} // namespace stallscope::model::loading
