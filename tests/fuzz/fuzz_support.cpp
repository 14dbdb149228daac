#include "tests/fuzz/fuzz_support.h"

#include "model/analysis/insight_engine.h"
#include "model/analysis/insight_json.h"
#include "model/analysis/insight_text.h"
#include "model/fleet/fleet_summary.h"
#include "model/interop/chrome_trace_export.h"
#include "model/session/session_database.h"
#include "model/session/session_summary.h"
#include "tests/support/same_session.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stallscope::fuzz {

namespace {
std::string makeScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/stallscope-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
        std::perror("stallscope fuzz: mkdtemp");
        std::abort();
    }
    static const std::string removeAtExit = pattern;
    std::atexit([] {
        std::error_code ignored;
        std::filesystem::remove_all(removeAtExit, ignored);
    });
    return pattern;
}
} // namespace

const std::string& scratchDir() {
    static const std::string dir = makeScratchDir();
    return dir;
}

std::string scratchPath(std::string_view name) {
    return scratchDir() + "/" + std::string(name);
}

void writeFile(const std::string& path, const uint8_t* data, size_t size) {
    std::error_code ignored;
    // SQLite leaves journals beside a database; a stale one would replay into the next input.
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::filesystem::remove(path + suffix, ignored);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    require(static_cast<bool>(out), "cannot write the scratch file", path);
}

void writeFile(const std::string& path, std::string_view data) {
    writeFile(path, reinterpret_cast<const uint8_t*>(data.data()), data.size());
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void require(bool condition, const char* what, const std::string& detail) {
    if (condition)
        return;
    std::fprintf(stderr, "stallscope fuzz: %s%s%s\n", what, detail.empty() ? "" : ": ",
                 detail.c_str());
    std::abort();
}

model::LoadResult loadBothWays(const std::string& path) {
    model::LoadResult fromPages = model::SessionLoader::load(path);
    model::LoadOptions sqliteOnly;
    sqliteOnly.readPages = false;
    const model::LoadResult fromSqlite = model::SessionLoader::load(path, sqliteOnly);
    require(fromPages.ok() == fromSqlite.ok() && fromPages.error == fromSqlite.error,
            "the pages and SQLite load differently", fromPages.error + " | " + fromSqlite.error);
    require(!fromPages.ok() || testing::sameEvents(*fromPages.session, *fromSqlite.session),
            "the pages and SQLite give different events");
    return fromPages;
}

void exercise(const model::LoadResult& result, const std::string& path) {
    if (!result.ok()) {
        // "One clear error naming the file": never empty, never a bare SQLite code.
        require(!result.error.empty(), "a failed load gave no error", path);
        require(result.error.find(path) != std::string::npos ||
                    result.error.find(std::filesystem::path(path).filename().string()) !=
                        std::string::npos,
                "a load error does not name the file", result.error);
        return;
    }
    const model::Session& session = *result.session;
    (void)model::SessionSummary::of(session).toText();
    model::SessionDatabase database;
    std::string error;
    if (!database.open(session.path, &error))
        return;
    const model::InsightReport report = model::InsightEngine::analyze(session, database);
    (void)model::insightReportToText(report);
    (void)model::insightReportToJson(report);
    const std::string exported = scratchPath("export.json");
    format::OutputPolicy replace;
    replace.replaceExisting = true;
    replace.inputs = {session.path};
    if (!model::exportChromeTrace(session, database, exported, replace, &error))
        require(!error.empty(), "a failed Chrome export gave no error", session.path);
    // The fleet summary reads the file on its own, through its own SQL (stallscope --summary).
    const model::fleet::FleetResult fleet = model::fleet::summarizeRun(session.path);
    require(fleet.ok() || !fleet.error.empty(), "a failed fleet summary gave no error",
            session.path);
}

} // namespace stallscope::fuzz
