// Editing a session file behind the writer's back, to craft the bad input the loader must reject
// (header-only test support).
#pragma once

#include <QTest>

#include <sqlite3.h>

#include <string>

namespace stallscope::testing {

// Runs `sql` on `file`; a failure fails the calling test.
inline void execSql(const std::string& file, const char* sql) {
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(file.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
    QVERIFY2(rc == SQLITE_OK, message ? message : "");
    sqlite3_free(message);
    sqlite3_close(db);
}

} // namespace stallscope::testing
