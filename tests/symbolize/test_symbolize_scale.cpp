// Scale figure for the finalize step: prints how long symbolizing many distinct PCs takes.
// A printed figure, never a timed assertion (DESIGN §6). For a real PyTorch process use
// make_pc_session.py + stallscope-symbolize (see docs/symbolization.md).
#include "format/session_writer.h"
#include "symbolize/finalize_symbols.h"
#include "tests/support/test_suite.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <dlfcn.h>
#include <link.h>
#include <sqlite3.h>

#include <set>

using namespace stallscope;
using namespace stallscope::symbolize;

class TestSymbolizeScale : public QObject {
    Q_OBJECT
private slots:
    void timesManyDistinctAddresses();

private:
    QTemporaryDir m_dir;
};

// Not a timed assertion: prints how long N distinct PCs take (default 10 000, or
// STALLSCOPE_SYMBOLIZE_BENCH_PCS), spread over this process's big libraries (libLLVM-14 stands in
// for libtorch_cpu when installed) in proportion to their code size.
void TestSymbolizeScale::timesManyDistinctAddresses() {
    for (const char* big : {"libLLVM-14.so.1", "libpython3.11.so.1.0", "libQt6Core.so.6"})
        dlopen(big, RTLD_NOW | RTLD_LOCAL); // absent ones are simply skipped
    struct Code {
        std::string path;
        int64_t bias = 0, start = 0, end = 0, size = 0;
    };
    std::vector<Code> code;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            auto* out = static_cast<std::vector<Code>*>(data);
            if (!info->dlpi_name || !*info->dlpi_name || info->dlpi_name[0] != '/')
                return 0;
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_memsz > 4096)
                    out->push_back({info->dlpi_name, int64_t(info->dlpi_addr),
                                    int64_t(info->dlpi_addr + ph.p_vaddr),
                                    int64_t(info->dlpi_addr + ph.p_vaddr + ph.p_memsz),
                                    int64_t(ph.p_memsz)});
            }
            return 0;
        },
        &code);
    QVERIFY(!code.empty());
    int64_t total = 0;
    for (const Code& c : code)
        total += c.size;
    const int pcs = qEnvironmentVariableIsSet("STALLSCOPE_SYMBOLIZE_BENCH_PCS")
                        ? qEnvironmentVariableIntValue("STALLSCOPE_SYMBOLIZE_BENCH_PCS")
                        : 10000;

    const std::string path = m_dir.filePath("bench.stallscope").toStdString();
    std::string error;
    auto writer = format::SessionWriter::create(path, &error);
    QVERIFY2(writer, error.c_str());
    const int64_t process = writer->addProcess({1, "bench", "bench", 0, 1, 0});
    QRandomGenerator random(42);
    std::set<int64_t> seen;
    for (const Code& c : code) {
        const int64_t module = writer->addModule({process, c.path, c.bias, c.start, c.end, "", 0});
        const int64_t share = std::max<int64_t>(1, pcs * c.size / total);
        for (int64_t i = 0; i < share; ++i) {
            const int64_t pc = c.start + 1 + int64_t(random.bounded(quint64(c.size - 1)));
            if (!seen.insert(pc).second)
                continue;
            format::FrameRow row;
            row.address = pc;
            row.moduleId = module;
            writer->addFrame(row);
        }
    }
    QVERIFY(writer->finish(format::kStatusComplete));
    SymbolizeStats stats;
    SymbolizeOptions options;
    options.embedSources = false;
    QVERIFY2(finalizeSymbols(path, options, &error, &stats), error.c_str());
    qInfo("symbolized %lld distinct PCs in %zu code segments: %.3f s in LLVM, %.3f s total "
          "(%lld resolved, %lld with lines)",
          (long long)stats.distinctAddresses, code.size(), stats.resolveSeconds, stats.totalSeconds,
          (long long)stats.resolvedFrames, (long long)stats.framesWithLines);
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* query = nullptr;
    sqlite3_prepare_v2(db,
                       "SELECT m.path, count(*), sum(f.symbolized) FROM frames f JOIN modules m "
                       "ON m.id = f.module_id GROUP BY m.path ORDER BY count(*) DESC LIMIT 8",
                       -1, &query, nullptr);
    while (sqlite3_step(query) == SQLITE_ROW)
        qInfo("  %6lld PCs, %6lld resolved: %s", sqlite3_column_int64(query, 1),
              sqlite3_column_int64(query, 2),
              reinterpret_cast<const char*>(sqlite3_column_text(query, 0)));
    sqlite3_finalize(query);
    sqlite3_close(db);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSymbolizeScale)
#include "test_symbolize_scale.moc"
