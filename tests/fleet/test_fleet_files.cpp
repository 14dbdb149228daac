// The fleet summary's inputs (issue 43 item 4): where steps come from (profiler steps, NVTX steps,
// the sync period), bad files named in one error, a pending WAL read from a copy with nothing
// written beside the input, one session file on its own; and its bounded quantiles.
#include "format/checked_sql.h"
#include "format/session_writer.h"
#include "format/sqlite_database.h"
#include "model/fleet/bounded_quantiles.h"
#include "model/fleet/fleet_summary.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/killed_writer.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/sqlite_edit.h"
#include "tests/support/test_suite.h"

#include <QDir>
#include <QTest>

#include <filesystem>
#include <fstream>

using namespace stallscope;
using model::fleet::BoundedQuantiles;
using model::fleet::FleetResult;
using model::fleet::StepSource;

namespace fs = std::filesystem;

namespace {

constexpr int64_t kFileSteps = 30;

QStringList filesIn(const QString& dir) {
    return QDir(dir).entryList(QDir::Files | QDir::Hidden, QDir::Name);
}

} // namespace

class TestFleetFiles : public QObject {
    Q_OBJECT
    testing::ScratchDir m_dir;
    testing::ScratchDir m_cache;
    std::string m_run;

    // A copy of the run in a folder of its own.
    std::string copyOfRun(const char* name) {
        const std::string copy = m_dir.file(name);
        fs::copy(m_run, copy, fs::copy_options::recursive);
        return copy;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid() && m_cache.isValid());
        qputenv("STALLSCOPE_IMPORT_CACHE", m_cache.path().toUtf8());
        m_run = m_dir.file("run");
        model::SyntheticOptions options;
        options.ranks = 3;
        options.rankSteps = kFileSteps;
        options.kernelsPerStep = 6;
        std::string error;
        QVERIFY2(model::writeSyntheticRun(m_run, options, nullptr, &error), error.c_str());
    }

    // ProfilerStep#N ranges win over NVTX "step N" ones; without ranges, the syncs of the most
    // frequent site (loss.item() at train.py:48, once a step) bound the steps: one fewer.
    void stepSources() {
        const std::string file = m_run + "/rank1.stallscope";
        FleetResult nvtx = model::fleet::summarizeRun(file);
        QVERIFY2(nvtx.ok(), nvtx.error.c_str());
        QCOMPARE(nvtx.summary->ranks.size(), size_t(1));
        QCOMPARE(nvtx.summary->ranks[0].stepSource, StepSource::NvtxSteps);
        QCOMPARE(nvtx.summary->ranks[0].steps, kFileSteps);

        const std::string profiler = m_dir.file("profiler.stallscope");
        fs::copy_file(file, profiler);
        testing::execSql(profiler, "UPDATE strings SET text = 'ProfilerStep#' || substr(text, 6) "
                                   "WHERE text LIKE 'step %'");
        FleetResult steps = model::fleet::summarizeRun(profiler);
        QVERIFY2(steps.ok(), steps.error.c_str());
        QCOMPARE(steps.summary->ranks[0].stepSource, StepSource::ProfilerSteps);
        QCOMPARE(steps.summary->ranks[0].steps, kFileSteps);
        QCOMPARE(steps.summary->ranks[0].stepNs.median(), nvtx.summary->ranks[0].stepNs.median());

        const std::string bare = m_dir.file("bare.stallscope");
        fs::copy_file(file, bare);
        testing::execSql(bare, "DELETE FROM ranges");
        FleetResult syncs = model::fleet::summarizeRun(bare);
        QVERIFY2(syncs.ok(), syncs.error.c_str());
        QCOMPARE(syncs.summary->ranks[0].stepSource, StepSource::SyncPeriod);
        QCOMPARE(syncs.summary->ranks[0].stepSite, std::string("train.py:48"));
        QCOMPARE(syncs.summary->ranks[0].steps, kFileSteps - 1);
        // A step between two loss.item() calls lasts about as long as a step range.
        const double ratio = double(syncs.summary->ranks[0].stepNs.median()) /
                             double(nvtx.summary->ranks[0].stepNs.median());
        QVERIFY2(ratio > 0.9 && ratio < 1.1, std::to_string(ratio).c_str());
    }

    // A bad file in the folder fails the summary with one error naming it and what is wrong.
    void badRankFileIsNamed_data() {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("problem");
        QTest::newRow("truncated") << "truncate"
                                   << "truncated";
        QTest::newRow("not SQLite") << "garbage"
                                    << "not an SQLite database";
        QTest::newRow("foreign schema") << "trigger"
                                        << "foreign schema";
        QTest::newRow("empty") << "empty"
                               << "empty file";
    }
    void badRankFileIsNamed() {
        QFETCH(QString, damage);
        QFETCH(QString, problem);
        const std::string run = copyOfRun(("bad-" + damage.toStdString()).c_str());
        const std::string bad = run + "/rank2.stallscope";
        if (damage == "truncate") {
            fs::resize_file(bad, fs::file_size(bad) / 2 + 100);
        } else if (damage == "garbage") {
            std::ofstream(bad, std::ios::trunc) << "this is no database";
        } else if (damage == "trigger") {
            testing::execSql(bad, "CREATE TRIGGER t AFTER INSERT ON meta BEGIN SELECT 1; END");
        } else {
            std::ofstream(bad, std::ios::trunc).flush();
        }
        const FleetResult result = model::fleet::summarizeRun(run);
        QVERIFY(!result.ok());
        QVERIFY2(result.error.starts_with(bad + ": "), result.error.c_str());
        QVERIFY2(result.error.find(problem.toStdString()) != std::string::npos,
                 result.error.c_str());
        QVERIFY2(result.error.find('\n') == std::string::npos, result.error.c_str());
    }

    // A folder's sessions are one launch's ranks; a partial recording is skipped with a note.
    void folderRules() {
        const std::string run = copyOfRun("mixed");
        fs::copy_file(m_run + "/rank0.stallscope", run + "/rank9.recording.stallscope");
        FleetResult result = model::fleet::summarizeRun(run);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.summary->ranks.size(), size_t(3));
        QCOMPARE(result.summary->ranks.back().label, std::string("rank 2"));
        QCOMPARE(result.summary->notes.size(), size_t(1));
        QVERIFY(result.summary->notes[0].find("partial recording") != std::string::npos);

        testing::execSql(run + "/rank1.stallscope", "UPDATE process_ranks SET world_size = 8");
        result = model::fleet::summarizeRun(run);
        QVERIFY(!result.ok());
        QVERIFY2(result.error.find("not the ranks of one launch") != std::string::npos,
                 result.error.c_str());

        const FleetResult missing = model::fleet::summarizeRun(m_dir.file("nothing-here"));
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error.find("no such file") != std::string::npos, missing.error.c_str());
    }

    // A killed writer's WAL: read from the made-whole copy in the import cache, nothing written
    // beside the input.
    void pendingWalIsReadFromACopy() {
        const std::string folder = m_dir.file("killed");
        fs::create_directories(folder);
        const std::string file = folder + "/killed.stallscope";
        QVERIFY(testing::writeKilledSession(file));
        QVERIFY(format::sqliteSideFiles(file).walBytes > 0);
        const QStringList before = filesIn(QString::fromStdString(folder));
        const FleetResult result = model::fleet::summarizeRun(file);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(filesIn(QString::fromStdString(folder)), before);
        QCOMPARE(result.summary->ranks.size(), size_t(1));
        QVERIFY(QString::fromStdString(result.summary->ranks[0].file).startsWith(m_cache.path()));
        QVERIFY(result.summary->notes.at(0).find("write-ahead log") != std::string::npos);
    }

    // GPU busy by hand: two streams of one device, operations that overlap in part, in whole and
    // not at all, written out of time order; a second device counted on its own.
    void gpuBusyIsTheUnionPerDevice() {
        const std::string file = m_dir.file("busy.stallscope");
        std::string error;
        auto writer = format::SessionWriter::create(file, &error);
        QVERIFY2(writer, error.c_str());
        const int64_t process = writer->addProcess({1, "h", "cmd", 0, {}, {}});
        format::DeviceRow gpu0, gpu1;
        gpu0.processId = gpu1.processId = process;
        gpu0.name = gpu1.name = "GPU";
        gpu1.deviceIndex = 1;
        const int64_t device0 = writer->addDevice(gpu0), device1 = writer->addDevice(gpu1);
        const int64_t a = writer->addStream({device0, 1, 7, true, 0});
        const int64_t b = writer->addStream({device0, 1, 13, false, 0});
        const int64_t c = writer->addStream({device1, 2, 7, true, 0});
        const int64_t name = writer->internString("gemm");
        auto kernel = [&](int64_t stream, int64_t start, int64_t end) {
            format::KernelRow row;
            row.streamId = stream;
            row.nameId = name;
            row.startNs = start;
            row.endNs = end;
            writer->addKernel(row);
        };
        // Device 0's union: [1'000, 1'020) and [1'030, 1'060), 50 ns; device 1's 100 ns.
        kernel(a, 1'030, 1'040); // inside the one below
        kernel(b, 1'005, 1'020); // overlaps the one below by 5
        kernel(a, 1'000, 1'010);
        kernel(b, 1'030, 1'050);
        kernel(c, 2'000, 2'100);
        format::MemcpyRow copy;
        copy.streamId = a;
        copy.startNs = 1'045;
        copy.endNs = 1'060; // past the kernel it overlaps
        writer->addMemcpy(copy);
        QVERIFY(writer->finish(format::kStatusComplete));
        const FleetResult result = model::fleet::summarizeRun(file);
        QVERIFY2(result.ok(), result.error.c_str());
        const auto& rank = result.summary->ranks.at(0);
        QCOMPARE(rank.devices, int64_t(2));
        QCOMPARE(rank.gpuBusyNs, int64_t(20 + 30 + 100));
        QCOMPARE(rank.gpuStartNs, int64_t(1'000));
        QCOMPARE(rank.gpuEndNs, int64_t(2'100));
        QCOMPARE(rank.collectives, int64_t(0));
        QCOMPARE(rank.steps, int64_t(0));
        QCOMPARE(result.summary->collectiveRanks, int64_t(0));
    }

    void quantilesExactThenBucketed() {
        BoundedQuantiles values(10);
        for (int64_t v = 10; v >= 1; --v)
            values.add(v * 1000);
        QVERIFY(values.exact());
        QCOMPARE(values.median(), int64_t(6000)); // index 5 of 1000..10000
        QCOMPARE(values.p90(), int64_t(9000));    // ceil(9) = 9th value
        values.add(11'000);
        QVERIFY(!values.exact());
        QCOMPARE(values.count(), int64_t(11));
        const int64_t median = values.median(); // index 5: 6000, within 1/64
        QVERIFY2(std::abs(median - 6000) * 64 <= 6000, std::to_string(median).c_str());
        QVERIFY(values.bytes() <= BoundedQuantiles::kBucketCount * sizeof(uint32_t) + 64);
        for (int i = 0; i < 100'000; ++i)
            values.add(123'456'789);
        QVERIFY(values.bytes() <= BoundedQuantiles::kBucketCount * sizeof(uint32_t) + 64);
        QVERIFY(std::abs(values.p90() - 123'456'789) * 64 <= 123'456'789);
        BoundedQuantiles empty;
        QCOMPARE(empty.median(), int64_t(0));
        values.add(-5); // a crafted file's negative duration counts as 0
        QCOMPARE(values.count(), int64_t(100'012));
    }

    void checkedSqlNamesTheDescriptorsColumns() {
        constexpr format::CheckedSql sql =
            "SELECT k.{kernels.start_ns}, {kernels.end_ns} FROM {kernels} k";
        QCOMPARE(sql.text(), std::string("SELECT k.start_ns, end_ns FROM kernels k"));
        static_assert(format::checked_sql::namesAreKnown("{syncs.stack_id}"));
        static_assert(!format::checked_sql::namesAreKnown("{syncs.no_such_column}"));
        static_assert(!format::checked_sql::namesAreKnown("{no_such_table}"));
        static_assert(!format::checked_sql::namesAreKnown("{kernels.start_ns"));
        static_assert(!format::checked_sql::namesAreKnown("kernels}"));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestFleetFiles)
#include "test_fleet_files.moc"
