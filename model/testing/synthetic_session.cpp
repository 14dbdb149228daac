#include "model/testing/synthetic_session.h"

#include "format/session_meta.h"
#include "format/session_writer.h"
#include "model/testing/synthetic_generator.h"
#include "model/testing/synthetic_ranks.h"

#include <chrono>
#include <cstdio>
#include <memory>

namespace stallscope::model {

using namespace stallscope::format;

const SyntheticSyncSite* SyntheticStats::site(const std::string& file, int line) const {
    for (const SyntheticSyncSite& s : sites)
        if (s.file == file && s.line == line)
            return &s;
    return nullptr;
}

std::string SyntheticStats::toText() const {
    static constexpr const char* kindNames[] = {"?",
                                                "stream",
                                                "device",
                                                "event",
                                                "stream-wait-event",
                                                "pageable-copy",
                                                "blocking-copy",
                                                "blocking-memset",
                                                "blocking-alloc"};
    std::string text;
    char line[512];
    auto add = [&](const char* label, int64_t value) {
        std::snprintf(line, sizeof line, "%-18s %lld\n", label, static_cast<long long>(value));
        text += line;
    };
    add("processes", rowsIn(format::tables::kProcesses));
    add("threads", rowsIn(format::tables::kThreads));
    add("devices", rowsIn(format::tables::kDevices));
    add("streams", rowsIn(format::tables::kStreams));
    add("steps/process", stepsPerProcess);
    add("api_calls", events.apiCalls);
    add("kernels", events.kernels);
    add("memcpys", events.memcpys);
    add("memsets", events.memsets);
    add("syncs", events.syncs);
    add("cuda_events", cudaEvents);
    add("ranges", events.ranges);
    add("events (total)", totalEvents());
    add("stacks", rowsIn(format::tables::kStacks));
    add("frames", rowsIn(format::tables::kFrames));
    add("strings", rowsIn(format::tables::kStrings));
    add("commits", commits);
    std::snprintf(
        line, sizeof line, "%-18s %.3f s\n%-18s %.3f s (%.0f events/s), finish %.3f s\n",
        "session span", static_cast<double>(endNs - startNs) / 1e9, "write time", writeSeconds,
        writeSeconds > 0 ? static_cast<double>(totalEvents()) / writeSeconds : 0.0, finishSeconds);
    text += line;
    text += "sync sites (file:line  kind  count  blocked  median launches between  in-loop):\n";
    for (const SyntheticSyncSite& s : sites) {
        std::snprintf(line, sizeof line, "  %s:%d  %s  %lld  %.3f ms  %lld  %s   %s\n",
                      s.file.c_str(), s.line, kindNames[static_cast<int>(s.kind)],
                      static_cast<long long>(s.count), static_cast<double>(s.blockedNs) / 1e6,
                      static_cast<long long>(s.medianLaunchesBetween), s.inLoop ? "yes" : "no",
                      s.code.c_str());
        text += line;
    }
    add("in-loop sync sites", inLoopSyncSites);
    return text;
}

bool writeSyntheticSession(const std::string& path, const SyntheticOptions& options,
                           SyntheticStats* stats, std::string* error) {
    auto fail = [&](const std::string& message) {
        if (error)
            *error = message;
        return false;
    };
    if (options.processes < 1 || options.threadsPerProcess < 1 || options.devicesPerProcess < 1 ||
        options.streamsPerDevice < 1 || options.targetEvents < 0 || options.commitEvery < 1)
        return fail(path + ": synthetic session: processes, threads, devices, streams and "
                           "commit interval must be at least 1, events at least 0");
    if (options.ranks < 0 || options.rankSteps < 0 || options.stragglerRank >= options.ranks ||
        options.stragglerDelayNs < 0 || options.rankJitterNs < 0 || options.collectiveNs < 1)
        return fail(path + ": synthetic session: ranks, steps, delays and jitter must not be "
                           "negative, the straggler must be one of the ranks");
    const auto started = std::chrono::steady_clock::now();
    std::unique_ptr<SessionWriter> writer = SessionWriter::create(path, error);
    if (!writer)
        return false;
    writer->setMeta(format::meta::kCommand, options.command);
    writer->setMeta(format::meta::kHost, options.host);
    writer->setMeta(format::meta::kGenerator, "stallscope synthetic session");
    writer->setMeta(format::meta::kGeneratorSeed, std::to_string(options.seed));
    writer->setMeta(format::meta::kSampleHz, std::to_string(options.sampleHz));

    SyntheticStats local;
    SyntheticStats& out = stats ? *stats : local;
    out = SyntheticStats{};
    // The program: a data-parallel job with ranks, else a training loop per process.
    const bool written = options.ranks > 0
                             ? synthetic::DataParallelGenerator(*writer, options, out).run()
                             : synthetic::TrainingLoopGenerator(*writer, options, out).run();
    if (!written)
        return fail(writer->lastError());
    for (size_t table = 0; table < format::kTables.size(); ++table)
        out.rows[table] = writer->rowsWritten(*format::kTables[table]);
    namespace tables = format::tables;
    out.events = {out.rowsIn(tables::kApiCalls), out.rowsIn(tables::kSyncs),
                  out.rowsIn(tables::kKernels),  out.rowsIn(tables::kMemcpys),
                  out.rowsIn(tables::kMemsets),  out.rowsIn(tables::kRanges)};
    out.cudaEvents = out.rowsIn(tables::kCudaEvents);
    writer->setMeta(format::meta::kStartNs, std::to_string(out.startNs));
    writer->setMeta(format::meta::kEndNs, std::to_string(out.endNs));
    const auto finishing = std::chrono::steady_clock::now();
    if (!writer->finish(kStatusComplete))
        return fail(writer->lastError());
    const auto finished = std::chrono::steady_clock::now();
    out.writeSeconds = std::chrono::duration<double>(finished - started).count();
    out.finishSeconds = std::chrono::duration<double>(finished - finishing).count();
    return true;
}

} // namespace stallscope::model
