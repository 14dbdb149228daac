// LaunchEnvironment (recorder/launch_environment.h): the rank, local rank, world size and launcher
// a process reads from its launcher's variables — each variable on both sides (valid, garbage,
// out of range), the precedence between launchers' names — and the output-name patterns
// (%p, %r, %h, %%) of STALLSCOPE_OUTPUT and stallscope-record -o.
#include "recorder/launch_environment.h"
#include "recorder/recorder_config.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <initializer_list>
#include <string>
#include <vector>

using stallscope::recorder::expandOutputPattern;
using stallscope::recorder::LaunchEnvironment;
using stallscope::recorder::RecorderConfig;

namespace {

LaunchEnvironment parse(std::initializer_list<const char*> entries) {
    std::vector<const char*> environ(entries);
    environ.push_back(nullptr);
    return LaunchEnvironment::parse(environ.data());
}

// "rank/local/world/launcher" with "-" for an unknown value, to compare in one go.
QString facts(const LaunchEnvironment& launch) {
    const auto number = [](const std::optional<int64_t>& value) {
        return value ? QString::number(*value) : QStringLiteral("-");
    };
    return number(launch.rank) + '/' + number(launch.localRank) + '/' + number(launch.worldSize) +
           '/' + QString::fromStdString(launch.launcher);
}

} // namespace

class TestLaunchEnvironment : public QObject {
    Q_OBJECT
private slots:
    void launchers_data() {
        QTest::addColumn<QStringList>("environment");
        QTest::addColumn<QString>("expected");
        QTest::newRow("torchrun") << QStringList{"RANK=1", "LOCAL_RANK=1", "WORLD_SIZE=2",
                                                 "TORCHELASTIC_RUN_ID=abc", "PATH=/bin"}
                                  << "1/1/2/torchrun";
        QTest::newRow("torchrun, any TORCHELASTIC_ variable")
            << QStringList{"RANK=0", "WORLD_SIZE=2", "TORCHELASTIC_RESTART_COUNT=0"}
            << "0/-/2/torchrun";
        QTest::newRow("deepspeed") << QStringList{"RANK=3",       "LOCAL_RANK=1", "WORLD_SIZE=4",
                                                  "CROSS_RANK=1", "CROSS_SIZE=2", "LOCAL_SIZE=2"}
                                   << "3/1/4/deepspeed";
        QTest::newRow("Open MPI") << QStringList{"OMPI_COMM_WORLD_RANK=5",
                                                 "OMPI_COMM_WORLD_LOCAL_RANK=1",
                                                 "OMPI_COMM_WORLD_SIZE=8"}
                                  << "5/1/8/mpirun";
        QTest::newRow("MPICH (PMI)")
            << QStringList{"PMI_RANK=2", "MPI_LOCALRANKID=0", "PMI_SIZE=4"} << "2/0/4/mpirun";
        QTest::newRow("PMIx") << QStringList{"PMIX_RANK=1"} << "1/-/-/mpirun";
        QTest::newRow("srun") << QStringList{"SLURM_PROCID=6", "SLURM_LOCALID=2", "SLURM_NTASKS=8"}
                              << "6/2/8/srun";
        QTest::newRow("plain RANK, no launcher")
            << QStringList{"RANK=0", "WORLD_SIZE=1"} << "0/-/1/";
        QTest::newRow("no rank: nothing else is read")
            << QStringList{"LOCAL_RANK=1", "WORLD_SIZE=2", "TORCHELASTIC_RUN_ID=x"} << "-/-/-/";
        // torchrun inside an sbatch allocation: torch's own variables and launcher win.
        QTest::newRow("RANK before SLURM_PROCID")
            << QStringList{"SLURM_PROCID=0", "SLURM_NTASKS=1", "RANK=3", "WORLD_SIZE=4",
                           "TORCHELASTIC_RUN_ID=x"}
            << "3/-/4/torchrun";
        QTest::newRow("mpirun inside an allocation")
            << QStringList{"SLURM_PROCID=0", "OMPI_COMM_WORLD_RANK=7", "OMPI_COMM_WORLD_SIZE=8"}
            << "7/-/8/mpirun";
        QTest::newRow("largest rank the loader takes")
            << QStringList{"RANK=16777215", "WORLD_SIZE=16777216"} << "16777215/-/16777216/";
        QTest::newRow("leading zeros are decimal")
            << QStringList{"RANK=007", "WORLD_SIZE=010"} << "7/-/10/";
        QTest::newRow("a prefix of a name is not the name")
            << QStringList{"RANKING=1", "XRANK=2", "RANK_=3"} << "-/-/-/";
    }
    void launchers() {
        QFETCH(QStringList, environment);
        QFETCH(QString, expected);
        std::vector<std::string> texts;
        for (const QString& entry : environment)
            texts.push_back(entry.toStdString());
        std::vector<const char*> entries;
        for (const std::string& text : texts)
            entries.push_back(text.c_str());
        entries.push_back(nullptr);
        const LaunchEnvironment launch = LaunchEnvironment::parse(entries.data());
        QCOMPARE(facts(launch), expected);
        QVERIFY2(launch.diagnostics.empty(),
                 launch.diagnostics.empty() ? "" : launch.diagnostics.front().c_str());
    }

    // Garbage is never a rank: it is skipped (the next variable may give one) and said.
    void garbageIsIgnoredAndSaid_data() {
        QTest::addColumn<QString>("rank");
        QTest::newRow("letters") << "abc";
        QTest::newRow("trailing text") << "1x";
        QTest::newRow("sign") << "-1";
        QTest::newRow("plus") << "+1";
        QTest::newRow("space") << " 1";
        QTest::newRow("fraction") << "1.0";
        QTest::newRow("hex") << "0x1";
        QTest::newRow("beyond the loader's bound") << "16777216";
        QTest::newRow("overflow") << "99999999999999999999";
    }
    void garbageIsIgnoredAndSaid() {
        QFETCH(QString, rank);
        const std::string entry = "RANK=" + rank.toStdString();
        LaunchEnvironment launch = parse({entry.c_str(), "WORLD_SIZE=4"});
        QVERIFY(!launch.rank);
        QCOMPARE(launch.diagnostics.size(), size_t(1));
        QVERIFY2(launch.diagnostics.at(0).find("RANK=") == 0, launch.diagnostics.at(0).c_str());
        // The next name in line still counts.
        launch = parse({entry.c_str(), "OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=4"});
        QCOMPARE(facts(launch), QStringLiteral("2/-/4/mpirun"));
        QCOMPARE(launch.diagnostics.size(), size_t(1));
    }

    void otherFactsOnBothSides() {
        LaunchEnvironment launch = parse({"RANK=1", "LOCAL_RANK=x", "WORLD_SIZE=2"});
        QCOMPARE(facts(launch), QStringLiteral("1/-/2/"));
        QCOMPARE(launch.diagnostics.size(), size_t(1));
        launch = parse({"RANK=1", "LOCAL_RANK=1", "WORLD_SIZE=two"});
        QCOMPARE(facts(launch), QStringLiteral("1/1/-/"));
        QCOMPARE(launch.diagnostics.size(), size_t(1));
        launch = parse({"RANK=0", "WORLD_SIZE=0"});
        QCOMPARE(facts(launch), QStringLiteral("0/-/-/"));
        QCOMPARE(launch.diagnostics.size(), size_t(1));
        launch = parse({"RANK=0", "WORLD_SIZE=16777217"}); // past the loader's 2^24
        QCOMPARE(facts(launch), QStringLiteral("0/-/-/"));
        // Empty values are unset.
        launch = parse({"RANK=", "SLURM_PROCID=4", "SLURM_NTASKS=5"});
        QCOMPARE(facts(launch), QStringLiteral("4/-/5/srun"));
        QVERIFY(launch.diagnostics.empty());
    }

    // A rank outside its world size: one of the two is wrong, so neither is kept (the loader
    // would refuse the row).
    void rankNotBelowWorldSizeIsIgnored() {
        for (const char* rank : {"RANK=2", "RANK=3"}) {
            const LaunchEnvironment launch = parse({rank, "LOCAL_RANK=0", "WORLD_SIZE=2"});
            QCOMPARE(facts(launch), QStringLiteral("-/-/-/"));
            QCOMPARE(launch.diagnostics.size(), size_t(1));
        }
        QCOMPARE(facts(parse({"RANK=1", "WORLD_SIZE=2"})), QStringLiteral("1/-/2/"));
    }

    void patterns_data() {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<int>("rank"); // -1: none
        QTest::addColumn<QString>("expected");
        QTest::addColumn<bool>("unique");
        QTest::newRow("%p") << "run-%p.stallscope" << 3 << "run-4242.stallscope" << true;
        QTest::newRow("%r") << "run-%r.stallscope" << 3 << "run-3.stallscope" << false;
        QTest::newRow("%r without a rank: the pid")
            << "run-%r.stallscope" << -1 << "run-4242.stallscope" << false;
        QTest::newRow("%h") << "/out/%h/run.stallscope" << -1 << "/out/node7/run.stallscope"
                            << false;
        QTest::newRow("%%") << "100%%-%%p.stallscope" << -1 << "100%-%p.stallscope" << false;
        QTest::newRow("all") << "%h-%r-%p%%" << 0 << "node7-0-4242%" << true;
        QTest::newRow("others stay") << "a%x%" << -1 << "a%x%" << false;
    }
    void patterns() {
        QFETCH(QString, pattern);
        QFETCH(int, rank);
        QFETCH(QString, expected);
        QFETCH(bool, unique);
        bool hadUnique = !unique;
        const std::string path = expandOutputPattern(
            pattern.toStdString(),
            {4242, rank < 0 ? std::nullopt : std::optional<int64_t>(rank), "node7"}, &hadUnique);
        QCOMPARE(QString::fromStdString(path), expected);
        QCOMPARE(hadUnique, unique);
        // An expanded name passed on (STALLSCOPE_OUTPUT) comes back unchanged.
        QCOMPARE(expandOutputPattern(stallscope::recorder::escapeOutputPattern(path), {1, 2, "h"}),
                 path);
    }

    // The recorder's name for a process: its rank for %r; children of a stallscope-record run
    // without %p still get ".<pid>" (two processes may share a rank: a rank's own subprocess).
    void recorderOutputPath() {
        RecorderConfig config;
        config.outputPattern = "/tmp/run-%r.stallscope";
        QCOMPARE(config.outputPathFor(42, 1), std::string("/tmp/run-1.stallscope"));
        QCOMPARE(config.outputPathFor(42), std::string("/tmp/run-42.stallscope"));
        config.rootPid = 10;
        QCOMPARE(config.outputPathFor(10, 0), std::string("/tmp/run-0.stallscope"));
        QCOMPARE(config.outputPathFor(11, 1), std::string("/tmp/run-1.11.stallscope"));
        config.outputPattern = "/tmp/run-%p.stallscope";
        QCOMPARE(config.outputPathFor(11, 1), std::string("/tmp/run-11.stallscope"));
        config.outputPattern = "/tmp/%%p.stallscope";
        QCOMPARE(config.outputPathFor(10), std::string("/tmp/%p.stallscope"));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestLaunchEnvironment)
#include "test_launch_environment.moc"
