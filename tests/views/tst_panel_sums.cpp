// The numbers the panels add up: the source gutter's "blocked ×count" per line (several sites on
// one line sum), and the per-name kernel and API-call statistics (rows sum to the session's
// totals, decreasing total time, first and last rows) over the small session.
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "tests/support/small_session.h"
#include "tests/support/test_suite.h"
#include "tests/views/insight_session.h"
#include "views/panels/name_statistics.h"
#include "views/panels/source_editor.h"
#include "views/panels/source_view.h"

#include <QTemporaryDir>
#include <QTest>

#include <numeric>

using namespace stallscope;
using namespace stallscope::views;
namespace fixture = insight_session;

namespace {

model::SyncSiteStats site(const char* file, int line, const char* function, int64_t count,
                          int64_t blockedNs) {
    model::SyncSiteStats stats;
    stats.site = {file, line, function, model::SourceLanguage::Python};
    stats.count = count;
    stats.calls = count;
    stats.blockedNs = blockedNs;
    return stats;
}

int64_t totalNs(const std::vector<NameStats>& rows) {
    return std::accumulate(rows.begin(), rows.end(), int64_t(0),
                           [](int64_t sum, const NameStats& row) { return sum + row.totalNs; });
}
int64_t totalCount(const std::vector<NameStats>& rows) {
    return std::accumulate(rows.begin(), rows.end(), int64_t(0),
                           [](int64_t sum, const NameStats& row) { return sum + row.count; });
}

} // namespace

class PanelSumsTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_database = fixture::writeAndOpen(m_dir);
        QVERIFY(m_database);
        const std::string small = m_dir.filePath(QStringLiteral("small.stallscope")).toStdString();
        QVERIFY(testing::writeSmallSession(small));
        auto loaded = model::SessionLoader::load(small);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        m_small = std::move(loaded.session);
    }

    void gutterSumsSitesOfOneLine() {
        SourceView view;
        view.resolver().setDatabase(m_database);
        view.setSites({site(fixture::kTrainPath, fixture::kTrainLine, "train_step", 300, 2'000'000),
                       site(fixture::kTrainPath, fixture::kTrainLine, "train_step_2", 7, 230'000),
                       site(fixture::kTrainPath, fixture::kTrainLine - 1, "helper", 2, 5'000),
                       site(fixture::kModelPath, fixture::kTrainLine, "forward", 4, 80'000)});
        QVERIFY(view.showLocation(QString::fromLatin1(fixture::kTrainPath), fixture::kTrainLine));
        const auto& marks = view.editor()->lineMarks();
        QCOMPARE(marks.size(), size_t(2)); // model.py's site is in another file
        QCOMPARE(marks.at(fixture::kTrainLine).calls, int64_t(307));
        QCOMPARE(marks.at(fixture::kTrainLine).blockedNs, int64_t(2'230'000));
        QCOMPARE(marks.at(fixture::kTrainLine - 1).calls, int64_t(2));
        QCOMPARE(marks.at(fixture::kTrainLine - 1).blockedNs, int64_t(5'000));
    }

    // A site joined with its next statement (one fix: SyncSites::joinStatementsOfOneFix) marks
    // each line with its own part, and either line opens the site; the marks add up to the site.
    // The site's 300 syncs are 150 calls (a `.cpu()` is a copy and its wait): each line shows its
    // calls, as the card and the sites table count.
    void gutterSplitsJoinedLines() {
        SourceView view;
        view.resolver().setDatabase(m_database);
        model::SyncSiteStats joined =
            site(fixture::kTrainPath, fixture::kTrainLine, "train_step", 300, 2'000'000);
        joined.calls = 150;
        joined.joinedLines = {{fixture::kTrainLine + 1, 120, 500'000}};
        view.setSites({joined});
        QVERIFY(view.showLocation(QString::fromLatin1(fixture::kTrainPath), fixture::kTrainLine));
        const auto& marks = view.editor()->lineMarks();
        QCOMPARE(marks.size(), size_t(2));
        QCOMPARE(marks.at(fixture::kTrainLine).calls, int64_t(90));
        QCOMPARE(marks.at(fixture::kTrainLine).blockedNs, int64_t(1'500'000));
        QCOMPARE(marks.at(fixture::kTrainLine + 1).calls, int64_t(60));
        QCOMPARE(marks.at(fixture::kTrainLine + 1).blockedNs, int64_t(500'000));
        int64_t opened = 0; // (a direct connection: the slot runs inside the emit)
        connect(&view, &SourceView::siteActivated,
                [&opened](const model::SyncSiteStats& activated) { opened = activated.site.line; });
        emit view.editor()->lineMarkClicked(fixture::kTrainLine + 1);
        QCOMPARE(opened, int64_t(fixture::kTrainLine));
    }

    // Kernels: gemm [3, 8] µs; relu [8, 12] and [12, 18] µs.
    void kernelRowsSumToTheSession() {
        const auto rows = kernelStatsByName(*m_small);
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(totalCount(rows), m_small->counts.kernels);
        QCOMPARE(totalNs(rows), int64_t(15'000));
        QCOMPARE(m_small->string(rows.front().nameId), std::string("relu_kernel"));
        QCOMPARE(rows.front().count, int64_t(2));
        QCOMPARE(rows.front().totalNs, int64_t(10'000));
        QCOMPARE(rows.front().maxNs, int64_t(6'000));
        QCOMPARE(rows.front().averageNs(), int64_t(5'000));
        QCOMPARE(rows.front().firstIndex, uint32_t(1)); // the earlier relu, after gemm
        QCOMPARE(m_small->string(rows.back().nameId), std::string("sm90_gemm_bf16"));
        QCOMPARE(rows.back().count, int64_t(1));
        QCOMPARE(rows.back().totalNs, int64_t(5'000));
        QCOMPARE(rows.back().firstIndex, uint32_t(0));
    }

    // API calls: three 500 ns launches and one 15 µs stream synchronize.
    void apiCallRowsSumToTheSession() {
        const auto rows = apiCallStatsByName(*m_small);
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(totalCount(rows), m_small->counts.apiCalls);
        QCOMPARE(totalNs(rows), int64_t(3 * 500 + 15'000));
        QCOMPARE(m_small->string(rows.front().nameId), std::string("cudaStreamSynchronize"));
        QCOMPARE(rows.front().totalNs, int64_t(15'000));
        QCOMPARE(m_small->string(rows.back().nameId), std::string("cudaLaunchKernel"));
        QCOMPARE(rows.back().count, int64_t(3));
        QCOMPARE(rows.back().totalNs, int64_t(1'500));
        QCOMPARE(rows.back().maxNs, int64_t(500));
    }

private:
    QTemporaryDir m_dir;
    std::shared_ptr<model::SessionDatabase> m_database;
    std::unique_ptr<model::Session> m_small;
};

STALLSCOPE_TEST_MAIN(PanelSumsTest)
#include "tst_panel_sums.moc"
