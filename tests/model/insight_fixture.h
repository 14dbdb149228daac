// Hand-written sessions for the insight tests: a builder over the real SessionWriter with helpers
// for launches, syncs and copies, so each test states its timeline in round numbers and the
// expected counts and nanoseconds follow by hand. Header-only test support.
//
// A fixture that cannot be written or loaded fails the running test (not the whole suite) and is
// not ok() from then on; the test checks `QVERIFY(f.ok())` (or the LoadedFixture's ok()) after
// load() and before it uses the session or the report.
#pragma once

#include "format/session_writer.h"
#include "model/analysis/insight_engine.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "tests/support/hand_written_session.h"
#include "tests/support/test_failure.h"

#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

namespace stallscope::testing {

// Every simulated site a finding, whatever it saves (simulation.minSavingShare at 0): for tests of
// other rules and thresholds on sessions too small for their fixes to save much.
inline model::AnalysisOptions everySimulatedSiteAFinding() {
    model::AnalysisOptions options;
    options.thresholds.simulation.minSavingShare = 0;
    return options;
}

struct LoadedFixture {
    std::shared_ptr<model::Session> session;
    std::unique_ptr<model::SessionDatabase> database;
    // False when the fixture could not be written or loaded: no session, no database.
    bool ok() const { return session && database; }
    // An empty report when not ok(), so `f.load().analyze()` is safe before the test checks.
    model::InsightReport analyze(const model::AnalysisOptions& options = {}) const {
        if (!ok())
            return {};
        return model::InsightEngine::analyze(*session, *database, options);
    }
};

class InsightFixture {
public:
    // One process living [0, wallNs], one thread, one GPU with one non-default stream.
    explicit InsightFixture(std::string path, int64_t wallNs = 1'000'000)
        : m_path(std::move(path)) {
        std::string error;
        m_writer = format::SessionWriter::create(m_path, &error);
        if (!m_writer) {
            STALLSCOPE_FAIL("cannot create %s: %s", m_path.c_str(), error.c_str());
            m_failed = true;
            // The calls that build the session go to one in memory, so none of them needs a check
            // of its own: load() gives nothing and the test stops at its check of ok().
            m_writer = format::SessionWriter::create(":memory:", &error);
            if (!m_writer) // not even memory: no writer to hand the builder calls to
                qFatal("cannot create %s, nor a session in memory: %s", m_path.c_str(),
                       error.c_str());
        }
        m_rows.emplace(*m_writer);
        process = m_rows->process(4242, "box", "python train.py", 0, wallNs);
        thread = m_rows->thread(4242, "python");
        device = m_rows->h100("NVIDIA H100", "GPU-1");
        stream = addStream(7);
        m_module = m_writer->addModule({process, "/usr/lib/libcuda.so.1", 0x7f0000000000,
                                        0x7f0000000000, 0x7f0000100000, "", 0});
        m_launchName = m_writer->internString("cudaLaunchKernel");
        m_syncName = m_writer->internString("cudaStreamSynchronize");
        m_kernelName = m_writer->internString("gemm");
    }

    format::SessionWriter& writer() { return *m_writer; }
    // False once the file could not be created, finished or loaded (which failed the test).
    bool ok() const { return !m_failed; }
    // The name of the kernels written from now on (default "gemm").
    void setKernelName(const std::string& name) { m_kernelName = m_writer->internString(name); }
    // The launch grid of the kernels written next, in blocks (default: more than the device's
    // 132 SMs, a kernel that fills it).
    void setKernelBlocks(int32_t blocks) { m_kernelBlocks = blocks; }

    int64_t addStream(int64_t streamId, bool isDefault = false) {
        return m_writer->addStream({device, 1, streamId, isDefault, 0});
    }
    int64_t addThread(int64_t tid) { return m_rows->thread(tid, "worker"); }

    // Innermost first: a libcuda frame without source, then the given frame.
    int64_t pythonStack(const std::string& file, int64_t line, const std::string& function) {
        return stackOf({driverFrame(), m_rows->pythonFrame(file, line, function)});
    }
    int64_t nativeStack(const std::string& file, int64_t line, const std::string& function) {
        return stackOf({driverFrame(), nativeFrame(file, line, function)});
    }
    int64_t nativeFrame(const std::string& file, int64_t line, const std::string& function) {
        format::FrameRow native;
        native.address = 0x401000 + ++m_frames;
        native.file = file;
        native.line = line;
        native.function = function;
        return m_writer->addFrame(native);
    }
    int64_t driverFrame(int64_t offset = 0x1234) {
        format::FrameRow frame;
        frame.address = 0x7f0000000000 + offset;
        frame.moduleId = m_module;
        return m_writer->addFrame(frame);
    }
    int64_t stackOf(std::initializer_list<int64_t> frames) {
        const std::vector<int64_t> ids(frames);
        return m_writer->addStack(++m_stacks, ids);
    }

    // A light recording (stallscope-record --mode light): launch() and sync() write no API call.
    void setLightRecording(bool light) { m_light = light; }

    // cudaLaunchKernel [apiStart, apiStart+500] on `onThread` and its kernel [start, end].
    int64_t launch(int64_t apiStart, int64_t start, int64_t end,
                   std::optional<int64_t> onStream = {}, std::optional<int64_t> onThread = {}) {
        const int64_t correlation = m_rows->nextCorrelation();
        if (!m_light)
            m_writer->addApiCall({onThread.value_or(thread), format::ApiDomain::Runtime, 211,
                                  m_launchName, apiStart, apiStart + 500, correlation, 0});
        kernel(start, end, correlation, onStream);
        return correlation;
    }
    // A kernel without a host launch record (GPU-only fixtures).
    void kernel(int64_t start, int64_t end, int64_t correlation = 0,
                std::optional<int64_t> onStream = {}) {
        if (correlation == 0)
            correlation = m_rows->nextCorrelation();
        format::KernelRow row{onStream.value_or(stream), m_kernelName, start, end, correlation,
                              {m_kernelBlocks, 1, 1},    {128, 1, 1},  32,    0,   0};
        m_writer->addKernel(row);
    }
    // A host-blocking sync with its API call; returns its correlation id.
    int64_t sync(format::SyncKind kind, int64_t start, int64_t end, std::optional<int64_t> stackId,
                 std::optional<int64_t> onStream = {}, std::optional<int64_t> onThread = {},
                 int64_t correlation = 0) {
        if (correlation == 0)
            correlation = m_rows->nextCorrelation();
        if (!m_light)
            m_writer->addApiCall({onThread.value_or(thread), format::ApiDomain::Runtime, 131,
                                  m_syncName, start, end, correlation, 0});
        format::SyncRow row;
        row.threadId = onThread.value_or(thread);
        row.kind = kind;
        row.startNs = start;
        row.endNs = end;
        row.correlationId = correlation;
        row.streamId = onStream;
        row.stackId = stackId;
        m_writer->addSync(row);
        return correlation;
    }
    int64_t memcpy(int64_t start, int64_t end, format::CopyKind kind, format::MemoryKind src,
                   format::MemoryKind dst, int64_t bytes, bool isAsync,
                   std::optional<int64_t> onStream = {}) {
        const int64_t correlation = m_rows->nextCorrelation();
        m_writer->addMemcpy(
            {onStream.value_or(stream), start, end, correlation, kind, src, dst, bytes, isAsync});
        return correlation;
    }

    // `iterations` loop steps 100 µs apart from t = 10 µs: `launches` 10 µs kernels back to back
    // (launched 1 µs apart from the step start, running from +2 µs), then a stream sync
    // [+4 µs, end of the last kernel + 500 ns] from `stack`.
    void writeLoop(int64_t stack, int iterations, int launches, bool syncEachStep = true) {
        for (int i = 0; i < iterations; ++i) {
            const int64_t t0 = 100'000 * i + 10'000;
            for (int k = 0; k < launches; ++k)
                launch(t0 + 1'000 * k, t0 + 2'000 + 10'000 * k, t0 + 12'000 + 10'000 * k);
            if (syncEachStep)
                sync(format::SyncKind::Stream, t0 + 4'000, t0 + 2'000 + 10'000 * launches + 500,
                     stack, stream);
        }
    }

    // The chain the symbolizer writes when `frame` lies in functions inlined into others
    // (frame_inlines): depth 0 is the frame's own row, then its callers, outermost last.
    struct InlineLevel {
        std::string function, file;
        int64_t line = 0;
    };
    void setInlineChain(int64_t frame, const std::vector<InlineLevel>& chain) {
        for (size_t depth = 0; depth < chain.size(); ++depth)
            m_afterFinish.push_back(
                "INSERT INTO frame_inlines(frame_id, depth, function, file, line) VALUES (" +
                std::to_string(frame) + ", " + std::to_string(depth) + ", '" +
                chain[depth].function + "', '" + chain[depth].file + "', " +
                std::to_string(chain[depth].line) + ")");
    }

    // Finishes the file; `userFrames` get frames.is_user = 1 afterwards (the symbolizer's job),
    // as do the inline chains. Not ok() when any step fails (which fails the test).
    [[nodiscard]] LoadedFixture load(std::initializer_list<int64_t> userFrames = {}) {
        if (m_failed)
            return {};
        m_failed = true; // until the last step succeeded
        if (!m_writer->finish("complete")) {
            STALLSCOPE_FAIL("cannot finish %s: %s", m_path.c_str(), m_writer->lastError().c_str());
            return {};
        }
        for (int64_t frame : userFrames)
            m_afterFinish.push_back("UPDATE frames SET is_user = 1 WHERE id = " +
                                    std::to_string(frame));
        if (!m_afterFinish.empty()) {
            sqlite3* db = nullptr;
            sqlite3_open(m_path.c_str(), &db);
            for (const std::string& sql : m_afterFinish)
                if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
                    STALLSCOPE_FAIL("%s: %s: %s", m_path.c_str(), sql.c_str(), sqlite3_errmsg(db));
                    sqlite3_close(db);
                    return {};
                }
            sqlite3_close(db);
        }
        LoadedFixture loaded;
        auto result = model::SessionLoader::load(m_path);
        if (!result.ok()) {
            STALLSCOPE_FAIL("cannot load %s: %s", m_path.c_str(), result.error.c_str());
            return {};
        }
        loaded.session = std::move(result.session);
        loaded.database = std::make_unique<model::SessionDatabase>();
        std::string error;
        if (!loaded.database->open(m_path, &error)) {
            STALLSCOPE_FAIL("cannot open %s: %s", m_path.c_str(), error.c_str());
            return {};
        }
        m_failed = false;
        return loaded;
    }

    int64_t process = 0, thread = 0, device = 0, stream = 0;

private:
    std::string m_path;
    std::unique_ptr<format::SessionWriter> m_writer;
    int64_t m_module = 0, m_launchName = 0, m_syncName = 0, m_kernelName = 0;
    std::optional<HandWrittenSession> m_rows; // the rows every hand-written session shares
    int64_t m_frames = 0;
    std::vector<std::string> m_afterFinish; // SQL run on the finished file
    bool m_light = false;
    bool m_failed = false; // the file could not be created, finished or loaded
    int32_t m_kernelBlocks = 1024;
    uint64_t m_stacks = 0;
};

// The findings that carry one rule's evidence (as main rule or not), in report order.
inline std::vector<const model::Insight*> insightsOf(const model::InsightReport& report,
                                                     model::InsightRule rule) {
    std::vector<const model::Insight*> found;
    for (const model::Insight& insight : report.insights)
        if (insight.rule == rule ||
            std::find(insight.rules.begin(), insight.rules.end(), rule) != insight.rules.end())
            found.push_back(&insight);
    return found;
}

// The first finding whose site is line `line` (of any file), or null.
inline const model::Insight* insightAt(const model::InsightReport& report, int64_t line) {
    for (const model::Insight& insight : report.insights)
        if (insight.site.line == line)
            return &insight;
    return nullptr;
}

} // namespace stallscope::testing
