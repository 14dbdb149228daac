// `stallscope --summary [--json] RUN/` as a user runs it (issue 43 item 4): the text names the
// straggler, the JSON carries the same numbers, a bad rank file is one line naming it (exit 1),
// bad usage exits 2.
#include "model/testing/synthetic_session.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/stallscope_process.h"
#include "tests/support/test_suite.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <filesystem>
#include <fstream>

using namespace stallscope;

class TestFleetCommandLine : public QObject {
    Q_OBJECT
    testing::ScratchDir m_dir;
    QString m_run;

    testing::StallscopeRun run(const QStringList& arguments) {
        return testing::runStallscope(arguments, m_dir.filePath(QStringLiteral("cache")));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_run = m_dir.filePath(QStringLiteral("run"));
        model::SyntheticOptions options;
        options.ranks = 3;
        options.rankSteps = 20;
        options.kernelsPerStep = 6;
        options.stragglerRank = 2;
        options.stragglerDelayNs = 5'000'000;
        std::string error;
        QVERIFY2(model::writeSyntheticRun(m_run.toStdString(), options, nullptr, &error),
                 error.c_str());
    }

    void textNamesTheStraggler() {
        const testing::StallscopeRun result = run({QStringLiteral("--summary"), m_run});
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.err.isEmpty(), qPrintable(result.err));
        QVERIFY2(result.out.contains(QStringLiteral("Fleet summary of %1: 3 ranks").arg(m_run)),
                 qPrintable(result.out));
        QVERIFY2(result.out.contains(QStringLiteral("Straggler: rank 2")), qPrintable(result.out));
        QVERIFY2(result.out.contains(QStringLiteral("1  train.py:48")), qPrintable(result.out));
    }

    void jsonCarriesTheNumbers() {
        const testing::StallscopeRun result =
            run({QStringLiteral("--summary"), QStringLiteral("--json"), m_run});
        QCOMPARE(result.exitCode, 0);
        const QJsonObject root = QJsonDocument::fromJson(result.out.toUtf8()).object();
        QCOMPARE(root[QStringLiteral("format")].toString(),
                 QStringLiteral("stallscope-fleet-summary"));
        const QJsonArray ranks = root[QStringLiteral("ranks")].toArray();
        QCOMPARE(ranks.size(), 3);
        QCOMPARE(ranks[0][QStringLiteral("label")].toString(), QStringLiteral("rank 0"));
        QCOMPARE(ranks[2][QStringLiteral("steps")][QStringLiteral("count")].toInt(), 20);
        QCOMPARE(ranks[2][QStringLiteral("last_at")].toInt(), 20);
        const QJsonObject collectives = root[QStringLiteral("collectives")].toObject();
        QCOMPARE(collectives[QStringLiteral("matched")].toInt(), 20);
        QVERIFY(collectives[QStringLiteral("straggler")].toBool());
        QCOMPARE(collectives[QStringLiteral("most_often_last")].toString(),
                 QStringLiteral("rank 2"));
        QCOMPARE(root[QStringLiteral("sites")][0][QStringLiteral("line")].toInt(), 48);
    }

    void badRankFileIsOneLine() {
        const QString bad = m_dir.filePath(QStringLiteral("bad"));
        std::filesystem::copy(m_run.toStdString(), bad.toStdString(),
                              std::filesystem::copy_options::recursive);
        const std::string rank1 = bad.toStdString() + "/rank1.stallscope";
        std::filesystem::resize_file(rank1, 4096);
        const testing::StallscopeRun result = run({QStringLiteral("--summary"), bad});
        QCOMPARE(result.exitCode, 1);
        QVERIFY(result.out.isEmpty());
        QCOMPARE(result.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(result.err.startsWith(
                     QStringLiteral("stallscope: %1: ").arg(QString::fromStdString(rank1))),
                 qPrintable(result.err));
    }

    void usage() {
        const testing::StallscopeRun two = run({QStringLiteral("--summary"), m_run, m_run});
        QCOMPARE(two.exitCode, 2);
        QVERIFY2(two.err.contains(QStringLiteral("--summary takes one run folder")),
                 qPrintable(two.err));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestFleetCommandLine)
#include "test_fleet_command_line.moc"
