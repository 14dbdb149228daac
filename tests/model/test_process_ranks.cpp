// Format v2's process_ranks (issue 16): a rank written is read back with every field, labels name
// ranks (and hosts when a run spans several), and a session without ranks keeps its old labels.
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "model/session/session_loader.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;

namespace {

struct ProcessSpec {
    int64_t pid;
    std::string host;
    std::optional<format::ProcessRankRow> rank; // processId filled in by the writer
};

// One thread and one stream per process; returns the loaded session, null when it cannot be written
// or loaded (which fails the test).
std::unique_ptr<model::Session> writeAndLoad(const std::string& path,
                                             const std::vector<ProcessSpec>& specs) {
    std::string error;
    auto writer = format::SessionWriter::create(path, &error);
    if (!writer) {
        STALLSCOPE_FAIL("cannot create %s: %s", path.c_str(), error.c_str());
        return nullptr;
    }
    for (const ProcessSpec& spec : specs) {
        const int64_t process =
            writer->addProcess({spec.pid, spec.host, "python train.py", 1000, 2000, 0});
        if (spec.rank) {
            format::ProcessRankRow rank = *spec.rank;
            rank.processId = process;
            writer->addProcessRank(rank);
        }
        writer->addThread({process, spec.pid, "python"});
        const int64_t device = writer->addDevice({process, 0, "GPU", "", 9, 0, 132, 0});
        writer->addStream({device, 1, 7, 0, 0});
    }
    if (!writer->finish(format::kStatusComplete)) {
        STALLSCOPE_FAIL("cannot finish %s: %s", path.c_str(), writer->lastError().c_str());
        return nullptr;
    }
    auto loaded = model::SessionLoader::load(path);
    if (!loaded.ok()) {
        STALLSCOPE_FAIL("cannot load %s: %s", path.c_str(), loaded.error.c_str());
        return nullptr;
    }
    return std::move(loaded.session);
}

format::ProcessRankRow rankRow(int64_t rank, int64_t worldSize) {
    return {0, rank, rank, worldSize, "torchrun", 0};
}

} // namespace

class TestProcessRanks : public QObject {
    Q_OBJECT
private slots:
    void everyFieldReadsBack();
    void ranksOnOneHostAreLabelledByRank();
    void severalHostsAddTheHost();
    void withoutRanksLabelsKeepPids();
    void oneProcessWithoutRankHasNoPrefix();

private:
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

void TestProcessRanks::everyFieldReadsBack() {
    const auto s =
        writeAndLoad(path("fields.stallscope"),
                     {{41, "node-a", format::ProcessRankRow{0, 5, 1, 8, "mpirun", -42}}});
    QVERIFY(s);
    QCOMPARE(s->formatVersion, format::kFormatVersion);
    QVERIFY(s->processes[0].rank.has_value());
    const format::ProcessRankRow& rank = *s->processes[0].rank;
    QCOMPARE(rank.processId, s->processes[0].rowId);
    QCOMPARE(rank.rank, int64_t(5));
    QCOMPARE(rank.localRank, std::optional<int64_t>(1));
    QCOMPARE(rank.worldSize, std::optional<int64_t>(8));
    QCOMPARE(rank.launcher, std::string("mpirun"));
    QCOMPARE(rank.clockShiftNs, int64_t(-42));
}

void TestProcessRanks::ranksOnOneHostAreLabelledByRank() {
    // Written rank 1 first: the labels follow the rank, not the row order.
    const auto s = writeAndLoad(path("one-host.stallscope"),
                                {{765, "node-a", rankRow(1, 2)}, {764, "node-a", rankRow(0, 2)}});
    QVERIFY(s);
    QCOMPARE(s->threadLabel(s->threads[0]), std::string("rank 1 · python (765)"));
    QCOMPARE(s->threadLabel(s->threads[1]), std::string("rank 0 · python (764)"));
    QCOMPARE(s->streamLabel(s->streams[0]), std::string("rank 1 · GPU 0 · stream 7"));
}

void TestProcessRanks::severalHostsAddTheHost() {
    const auto s = writeAndLoad(path("two-hosts.stallscope"),
                                {{10, "node-a", rankRow(0, 2)}, {11, "node-b", rankRow(1, 2)}});
    QVERIFY(s);
    QCOMPARE(s->processLabel(1), std::string("rank 1 · node-b"));
    QCOMPARE(s->streamLabel(s->streams[1]), std::string("rank 1 · node-b · GPU 0 · stream 7"));
}

void TestProcessRanks::withoutRanksLabelsKeepPids() {
    const auto s = writeAndLoad(path("pids.stallscope"), {{10, "node-a", {}}, {11, "node-a", {}}});
    QVERIFY(s);
    QVERIFY(!s->processes[0].rank);
    QCOMPARE(s->threadLabel(s->threads[1]), std::string("pid 11 · python (11)"));
    QCOMPARE(s->streamLabel(s->streams[0]), std::string("pid 10 · GPU 0 · stream 7"));
}

void TestProcessRanks::oneProcessWithoutRankHasNoPrefix() {
    const auto plain = writeAndLoad(path("plain.stallscope"), {{10, "node-a", {}}});
    QVERIFY(plain);
    QCOMPARE(plain->streamLabel(plain->streams[0]), std::string("GPU 0 · stream 7"));
    // A single rank of a bigger job still says which rank it is.
    const auto single = writeAndLoad(path("single.stallscope"), {{10, "node-a", rankRow(3, 4)}});
    QVERIFY(single);
    QCOMPARE(single->streamLabel(single->streams[0]), std::string("rank 3 · GPU 0 · stream 7"));
}

STALLSCOPE_TEST_GUILESS_MAIN(TestProcessRanks)
#include "test_process_ranks.moc"
