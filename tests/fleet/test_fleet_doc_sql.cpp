// The SQL of docs/fleet.md (issue 43 item 4): the per-rank blocks are the queries the summary runs
// (model/fleet/fleet_sql.h), and the engine recipe — the fleet tables, each rank's inserts with the
// rank attached, the fleet queries — run in SQLite on a generated run gives the summary's numbers.
#include "model/fleet/fleet_sql.h"
#include "model/fleet/fleet_summary.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <sqlite3.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace stallscope;
using model::fleet::FleetSummary;

namespace {

// The ```sql blocks of the doc that follow a "<!-- sql: NAME -->" line, by name.
std::map<std::string, std::string> docSql() {
    std::ifstream in(STALLSCOPE_SOURCE_DIR "/docs/fleet.md");
    std::stringstream text;
    text << in.rdbuf();
    std::map<std::string, std::string> blocks;
    const std::regex block(R"(<!-- sql: (\w+) -->\n```sql\n([\s\S]*?)```)");
    const std::string doc = text.str();
    for (std::sregex_iterator it(doc.begin(), doc.end(), block), end; it != end; ++it)
        blocks[(*it)[1]] = (*it)[2];
    return blocks;
}

std::string oneSpaced(const std::string& sql) {
    std::string out;
    for (const char c : sql) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (!out.empty() && out.back() != ' ')
                out += ' ';
        } else {
            out += c;
        }
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == ';'))
        out.pop_back();
    return out;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// A connection with the fleet tables in an attached database "fleet", as in the doc's DuckDB
// recipe; rank files are attached read-only and immutable.
class FleetDb {
public:
    explicit FleetDb(const std::string& fleetFile) {
        sqlite3_open_v2(":memory:", &m_db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, nullptr);
        m_attached = exec("ATTACH '" + fleetFile + "' AS fleet");
    }
    bool attached() const { return m_attached; }
    ~FleetDb() { sqlite3_close(m_db); }
    bool exec(const std::string& sql) {
        char* message = nullptr;
        const bool ok = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK;
        if (!ok)
            m_error = message ? message : "?";
        sqlite3_free(message);
        return ok;
    }
    // Every row of `sql`, each value as an integer or, for text, its text.
    std::vector<std::vector<std::string>> rows(const std::string& sql) {
        std::vector<std::vector<std::string>> rows;
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
            m_error = sqlite3_errmsg(m_db);
            return rows;
        }
        while (sqlite3_step(statement) == SQLITE_ROW) {
            auto& row = rows.emplace_back();
            for (int c = 0; c < sqlite3_column_count(statement); ++c)
                row.push_back(
                    sqlite3_column_type(statement, c) == SQLITE_NULL
                        ? "NULL"
                        : reinterpret_cast<const char*>(sqlite3_column_text(statement, c)));
        }
        sqlite3_finalize(statement);
        return rows;
    }
    const std::string& error() const { return m_error; }

private:
    sqlite3* m_db = nullptr;
    bool m_attached = false;
    std::string m_error;
};

std::string number(int64_t value) {
    return std::to_string(value);
}

} // namespace

class TestFleetDocSql : public QObject {
    Q_OBJECT
    testing::ScratchDir m_dir;
    std::map<std::string, std::string> m_sql;

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_sql = docSql();
        for (const char* name :
             {"step_ranges", "gpu_operations", "blocking_syncs_by_stack", "fleet_tables",
              "rank_insert", "fleet_steps", "fleet_time", "fleet_stragglers", "fleet_sites"})
            QVERIFY2(m_sql.count(name), name);
    }

    void perRankBlocksAreTheCodesQueries() {
        QCOMPARE(oneSpaced(m_sql["step_ranges"]), oneSpaced(model::fleet::sql::stepRanges()));
        QCOMPARE(oneSpaced(m_sql["gpu_operations"]), oneSpaced(model::fleet::sql::gpuOperations()));
        QCOMPARE(oneSpaced(m_sql["blocking_syncs_by_stack"]),
                 oneSpaced(model::fleet::sql::blockingSyncsByStack()));
    }

    void engineRecipeGivesTheSummarysNumbers() {
        const std::string run = m_dir.file("run");
        model::SyntheticOptions options;
        options.ranks = 3;
        options.rankSteps = 25;
        options.kernelsPerStep = 6;
        options.stragglerRank = 1;
        options.stragglerDelayNs = 4'000'000;
        options.rankJitterNs = 300'000;
        std::string error;
        QVERIFY2(model::writeSyntheticRun(run, options, nullptr, &error), error.c_str());
        model::fleet::FleetOptions summaryOptions;
        summaryOptions.sitesPerRank = 1'000; // every site, as the SQL keeps them
        const model::fleet::FleetResult result = model::fleet::summarizeRun(run, summaryOptions);
        QVERIFY2(result.ok(), result.error.c_str());
        const FleetSummary& summary = *result.summary;

        FleetDb db(m_dir.file("fleet.db"));
        QVERIFY2(db.attached(), db.error().c_str());
        QVERIFY2(db.exec(m_sql["fleet_tables"]), db.error().c_str());
        for (int r = 0; r < options.ranks; ++r) {
            const std::string file = run + "/rank" + std::to_string(r) + ".stallscope";
            QVERIFY2(db.exec("ATTACH 'file:" + file + "?mode=ro&immutable=1' AS rank"),
                     db.error().c_str());
            QVERIFY2(db.exec(replaced(m_sql["rank_insert"], "{RANK}", std::to_string(r))),
                     db.error().c_str());
            QVERIFY2(db.exec("DETACH rank"), db.error().c_str());
        }

        const auto steps = db.rows(m_sql["fleet_steps"]);
        QCOMPARE(steps.size(), summary.ranks.size());
        for (size_t r = 0; r < steps.size(); ++r) {
            const model::fleet::RankSummary& rank = summary.ranks[r];
            QCOMPARE(steps[r], (std::vector<std::string>{number(rank.rank), "2", number(rank.steps),
                                                         number(rank.stepNs.median()),
                                                         number(rank.stepNs.p90())}));
        }
        const auto time = db.rows(m_sql["fleet_time"]);
        QCOMPARE(time.size(), summary.ranks.size());
        for (size_t r = 0; r < time.size(); ++r) {
            const model::fleet::RankSummary& rank = summary.ranks[r];
            QCOMPARE(time[r],
                     (std::vector<std::string>{number(rank.rank), number(rank.blockingSyncs),
                                               number(rank.blockedNs), number(rank.gpuBusyNs),
                                               number(rank.gpuSpanNs())}));
        }
        const auto stragglers = db.rows(m_sql["fleet_stragglers"]);
        QVERIFY2(!stragglers.empty(), db.error().c_str());
        QCOMPARE(stragglers.front()[0], number(summary.ranks[size_t(summary.mostOftenLast)].rank));
        QCOMPARE(stragglers.front()[0], std::string("1"));
        for (const auto& row : stragglers) {
            const model::fleet::RankSummary& rank = summary.ranks[std::stoul(row[0])];
            QCOMPARE(row, (std::vector<std::string>{number(rank.rank), number(rank.lastAt),
                                                    number(rank.latenessNs.median()),
                                                    number(summary.matchedCollectives),
                                                    number(summary.contendedCollectives)}));
        }
        const auto sites = db.rows(m_sql["fleet_sites"]);
        QCOMPARE(sites.size(), summary.sites.size());
        for (size_t i = 0; i < sites.size(); ++i) {
            const model::fleet::FleetSite& site = summary.sites[i];
            QCOMPARE(sites[i],
                     (std::vector<std::string>{site.file, number(site.line), number(site.blockedNs),
                                               number(site.syncs), number(site.ranks)}));
        }
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestFleetDocSql)
#include "test_fleet_doc_sql.moc"
