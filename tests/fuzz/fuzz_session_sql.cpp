// Fuzz target: SQL run against a small valid session before it is loaded — the structural edits a
// crafted file can make (ids pointing nowhere, NULLs, text in number columns, extreme times,
// cycles in stack frames, schema changes through writable_schema). The input is SQL text; the
// edit runs with bounded work (no ATTACH, no extensions, a step budget), then the edited file goes
// through the loader and every command. Seeds: corpus/fuzz_session_sql; words:
// dicts/session_sql.dict.
#include "tests/fuzz/fuzz_support.h"

#include "model/testing/synthetic_session.h"

#include <sqlite3.h>

using namespace stallscope;

namespace {

// The session every input starts from, written once per process.
const std::string& baseSession() {
    static const std::string bytes = [] {
        const std::string path = fuzz::scratchPath("base.stallscope");
        model::SyntheticOptions options;
        options.seed = 7;
        options.targetEvents = 400;
        options.kernelsPerStep = 4;
        options.deviceSyncEvery = 3;
        options.pageableEvery = 2;
        std::string error;
        fuzz::require(model::writeSyntheticSession(path, options, nullptr, &error),
                      "cannot write the base session", error);
        return fuzz::readFile(path);
    }();
    return bytes;
}

int denyOtherFiles(void*, int action, const char*, const char*, const char*, const char*) {
    // The edit may change anything inside the file, nothing outside it.
    return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

int stopLongEdits(void* steps) {
    return ++*static_cast<int*>(steps) > 2000; // x 1000 VM instructions
}

void applyEdit(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
        sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 16);
        sqlite3_set_authorizer(db, denyOtherFiles, nullptr);
        int steps = 0;
        sqlite3_progress_handler(db, 1000, stopLongEdits, &steps);
        sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr); // a failing edit is fine
    }
    sqlite3_close(db);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = fuzz::scratchPath("edited.stallscope");
    fuzz::writeFile(path, baseSession());
    applyEdit(path, std::string(reinterpret_cast<const char*>(data), size));
    fuzz::exercise(fuzz::loadBothWays(path), path);
    return 0;
}
