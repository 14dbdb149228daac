#include "model/interop/kineto_importer.h"

#include "format/sqlite_database.h"

#include "format/checked_sql.h"
#include "format/session_meta.h"
#include "format/session_writer.h"
#include "model/interop/import_cache.h"
#include "model/interop/kineto_begin_end.h"
#include "model/interop/kineto_input_stream.h"
#include "model/interop/kineto_trace_reader.h"
#include "model/interop/trace_folder.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>

namespace stallscope::model {

namespace fs = std::filesystem;

namespace {

// Bump when the conversion changes, so cached imports are redone.
// 2: stackless syncs named by their op chain; 3: the profiler's window, event records, B/E
// pairs, control characters, syncs outside any op named by their kind
constexpr int kConverterVersion = 3;

bool hasTraceSuffix(const std::string& name) {
    auto endsWith = [&](std::string_view suffix) {
        return name.size() >= suffix.size() &&
               name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return endsWith(".json") || endsWith(".json.gz");
}

void removeSessionFiles(const std::string& path) {
    std::error_code ec;
    fs::remove(path, ec);
    for (const char* suffix : format::kSqliteSideFileSuffixes)
        fs::remove(path + suffix, ec);
}

// Parses one trace file into the converter. Returns an empty string or the error (without the
// file name, which the caller adds).
std::string parseFile(const std::string& path, KinetoConverter& converter, bool* cancelled,
                      const std::function<bool(int64_t)>& poll, bool pipelined) {
    KinetoInputStream stream;
    std::string error;
    if (!stream.open(path, &error))
        return error;
    // The converter polls on the thread it runs on; the file offset is the reading thread's.
    converter.setPoll([&] { return poll(stream.fileOffset()); });
    KinetoBeginEndPairs pairs(converter);
    const KinetoReadOutcome read = readKinetoEvents(stream, pairs, pipelined);
    converter.stats().jsonBytes += static_cast<int64_t>(stream.Tell());
    converter.stats().fileBytes += stream.fileSize();
    converter.stats().controlCharacters += stream.controlCharacters();
    converter.stats().unpairedBeginEnd += pairs.unpaired();
    converter.setPoll({});
    const std::string where = stream.compressed() ? " of the decompressed JSON" : "";
    const std::string atByte = " at byte " + std::to_string(stream.Tell()) + where;
    if (!stream.readError().empty())
        return stream.readError() + " (after " + std::to_string(stream.Tell()) + " bytes of JSON)";
    switch (read.status) {
    case JsonReadStatus::Complete:
        break;
    case JsonReadStatus::Stopped:
        if (!read.refused.empty())
            return read.refused + atByte;
        *cancelled = true;
        return "import cancelled";
    case JsonReadStatus::TooLong:
        return jsonValueTooLongError() + atByte;
    case JsonReadStatus::TooDeep:
        return "JSON nested more than " + std::to_string(kMaxJsonReaderDepth) +
               " levels deep (the limit)" + atByte;
    case JsonReadStatus::Malformed: {
        const int64_t offset = stream.fileOffset();
        const std::string why = explainMalformedTrace(path, [&] { return poll(offset); });
        if (!why.empty())
            return why;
        if (!poll(offset)) {
            *cancelled = true;
            return "import cancelled";
        }
        return "malformed JSON" + atByte;
    }
    }
    if (!read.sawTraceEvents)
        return "not a PyTorch profiler (Kineto) trace: no \"traceEvents\" array";
    return {};
}

// The CUDA calls and GPU work of each file written before its profiler window was known: those
// wholly outside are dropped (counted in *dropped), those across its edges clipped.
// The statements that drop and clip one table's rows of process ?1 to the window [?2, ?3]: the
// table's id, start_ns and end_ns checked when compiled, `ofProcess` its rows of the process.
template <const format::Table& table>
std::pair<std::string, std::string> windowStatements(const format::CheckedSql& ofProcess) {
    constexpr format::ColumnOf<table> id("id"), start("start_ns"), end("end_ns");
    const std::string name(table.name), startName(start.name), endName(end.name);
    const std::string where = " WHERE " + ofProcess.text();
    return {"DELETE FROM " + name + where + " AND (" + endName + " < ?2 OR " + startName +
                " > ?3) RETURNING " + std::string(id.name),
            "UPDATE " + name + " SET " + startName + " = MAX(" + startName + ", ?2), " + endName +
                " = MIN(" + endName + ", ?3)" + where + " AND (" + startName + " < ?2 OR " +
                endName + " > ?3)"};
}

bool clipToWindows(format::Database& db, const KinetoConverter& converter, int64_t* dropped,
                   std::string* error) {
    constexpr format::CheckedSql kOnStreams =
        "{kernels.stream_id} IN (SELECT s.{streams.id} FROM {streams} s JOIN {devices} d ON "
        "s.{streams.device_id} = d.{devices.id} WHERE d.{devices.process_id} = ?1)";
    constexpr format::CheckedSql kOfThreads =
        "{api_calls.thread_id} IN (SELECT {threads.id} FROM {threads} WHERE "
        "{threads.process_id} = ?1)";
    namespace tables = format::tables;
    const std::pair<std::string, std::string> kRowsOfProcess[] = {
        windowStatements<tables::kApiCalls>(kOfThreads),
        windowStatements<tables::kKernels>(kOnStreams),
        windowStatements<tables::kMemcpys>(kOnStreams),
        windowStatements<tables::kMemsets>(kOnStreams),
    };
    for (const auto& [dropSql, clipSql] : kRowsOfProcess) {
        format::Statement drop = db.prepare(dropSql);
        format::Statement clip = db.prepare(clipSql);
        for (const KinetoFileWindow& window : converter.windowsToClip()) {
            drop.bindAll(window.processRow, window.startNs, window.endNs);
            while (drop.step())
                ++*dropped;
            drop.reset();
            clip.execute(window.processRow, window.startNs, window.endNs);
        }
        for (const format::Statement* statement : {&drop, &clip})
            if (statement->failed()) {
                *error = statement->error();
                return false;
            }
    }
    return true;
}

// What the writer cannot express, set on the finished file in one transaction: frames.is_user
// (the recorder sets it in its finalize step), each process's start (its earliest event, or its
// profiler window's start) and the clipping to the profiler windows.
bool finalizeImport(const std::string& path, const KinetoConverter& converter, std::string* error) {
    format::Database db;
    if (!db.open(path, format::Database::Mode::ReadWrite, error) || !db.exec("BEGIN", error))
        return false;
    int64_t dropped = converter.stats().windowDroppedRows;
    if (!clipToWindows(db, converter, &dropped, error))
        return false;
    format::Statement meta = db.prepare(
        format::CheckedSql("INSERT OR REPLACE INTO {meta} ({meta.key}, {meta.value}) VALUES (?, ?)")
            .text());
    meta.execute(std::string(format::meta::kImportWindowDroppedRows), std::to_string(dropped));
    format::Statement userFlag = db.prepare(
        format::CheckedSql("UPDATE {frames} SET {frames.is_user} = ? WHERE {frames.id} = ?")
            .text());
    for (const auto& [frame, isUser] : converter.frameUserFlags())
        if (!userFlag.execute(int64_t(isUser ? 1 : 0), frame))
            break;
    format::Statement processStart =
        db.prepare(format::CheckedSql(
                       "UPDATE {processes} SET {processes.start_ns} = ? WHERE {processes.id} = ?")
                       .text());
    for (const auto& [process, start] : converter.processStarts())
        if (!processStart.execute(start, process))
            break;
    for (const format::Statement* statement : {&meta, &userFlag, &processStart})
        if (statement->failed()) {
            *error = statement->error();
            return false;
        }
    return db.exec("COMMIT", error);
}

} // namespace

bool KinetoImporter::looksLikeTrace(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        std::string error;
        return !traceFiles(path, &error).empty();
    }
    return hasTraceSuffix(path);
}

std::vector<std::string> KinetoImporter::traceFiles(const std::string& path, std::string* error) {
    std::vector<std::string> files;
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
        if (!fs::exists(path, ec))
            *error = path + ": no such file";
        else
            files.push_back(path);
        return files;
    }
    for (const auto& entry : fs::directory_iterator(path, ec))
        if (entry.is_regular_file(ec) && hasTraceSuffix(entry.path().filename().string()))
            files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty())
        *error = path + ": folder holds no .json or .json.gz trace files";
    return files;
}

KinetoImportResult KinetoImporter::convert(const std::string& tracePath,
                                           const std::string& sessionPath,
                                           const KinetoImportOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    KinetoImportResult result;
    std::vector<std::string> files = traceFiles(tracePath, &result.error);
    if (files.empty())
        return result;
    std::string skippedFiles; // one line for meta import_warnings
    if (std::error_code ec; fs::is_directory(tracePath, ec)) {
        TraceFolderSelection selection = selectTraceFiles(files);
        for (const std::string& skipped : selection.skipped)
            skippedFiles += (skippedFiles.empty() ? "skipped " : "; ") + skipped;
        if (selection.traces.empty()) {
            result.error = tracePath + ": folder holds no profiler traces (" + skippedFiles + ")";
            return result;
        }
        files = std::move(selection.traces);
    }

    int64_t totalBytes = 0;
    for (const std::string& file : files) {
        std::error_code ec;
        totalBytes += static_cast<int64_t>(fs::file_size(file, ec));
    }
    format::OutputPolicy outputPolicy = options.output;
    outputPolicy.inputs.insert(outputPolicy.inputs.end(), files.begin(), files.end());
    format::OutputFile output;
    if (!output.create(sessionPath, outputPolicy, &result.error))
        return result;
    const std::string partial = output.temporaryPath(); // a copy: discard() clears it
    std::string error;
    // `partial` becomes the session only when complete (OutputFile::commit): a scratch file.
    auto writer =
        format::SessionWriter::create(partial, &error, format::SessionWriter::Durability::Scratch);
    if (!writer) {
        result.error = sessionPath + ": cannot write the session: " + error;
        return result;
    }
    writer->setMeta(format::meta::kCommand, "import " + tracePath);
    writer->setMeta(format::meta::kImportSource, tracePath);

    KinetoConverter converter(*writer);
    int64_t doneBytes = 0;
    bool failed = false;
    for (const std::string& file : files) {
        const std::string name = fs::path(file).filename().string();
        converter.beginFile(file, name);
        const int64_t bytesBefore = converter.stats().fileBytes;
        auto poll = [&](int64_t fileOffset) {
            // By bytes of the file on disk (compressed for .gz): known before parsing.
            if (options.progress && totalBytes > 0)
                options.progress(
                    std::min(1.0, static_cast<double>(doneBytes + fileOffset) / totalBytes));
            return !(options.cancel && options.cancel->load());
        };
        bool cancelled = false;
        std::string fileError = parseFile(file, converter, &cancelled, poll, options.pipelined);
        if (fileError.empty() && !converter.finishFile(&fileError) && fileError.empty())
            fileError = "conversion failed";
        if (fileError.empty() && !writer->ok())
            fileError = "cannot write the session: " + writer->lastError();
        if (!fileError.empty()) {
            result.cancelled = cancelled;
            result.error = (cancelled ? tracePath + ": " : file + ": ") + fileError;
            failed = true;
            break;
        }
        doneBytes += converter.stats().fileBytes - bytesBefore;
        if (options.progress && totalBytes > 0)
            options.progress(std::min(1.0, static_cast<double>(doneBytes) / totalBytes));
    }
    if (!failed && converter.stats().cudaEvents == 0 && !result.cancelled) {
        // An empty session with exit 0 would read as "nothing worth fixing".
        const KinetoImportStats& stats = converter.stats();
        std::string seen;
        for (const auto* counts : {&stats.ignoredCategories, &stats.unknownCategories})
            for (const auto& [name, count] : *counts)
                seen += (seen.empty() ? "" : ", ") + name + " " + std::to_string(count);
        result.error = tracePath + ": no GPU work and no CUDA calls among its " +
                       std::to_string(stats.events) + " events" +
                       (seen.empty() ? std::string() : " (categories: " + seen + ")") +
                       "; was it profiled with ProfilerActivity.CUDA?";
        failed = true;
    }
    if (!failed) {
        converter.writeMeta();
        std::string warnings = skippedFiles;
        if (const int64_t controls = converter.stats().controlCharacters; controls > 0)
            warnings += (warnings.empty() ? "" : "; ") + std::to_string(controls) +
                        " raw control characters (not tab or newline) read as spaces";
        if (const int64_t untimed = converter.stats().untimedEvents; untimed > 0)
            warnings += (warnings.empty() ? "" : "; ") + std::to_string(untimed) +
                        " complete (X) events without a numeric \"ts\" not read";
        if (const int64_t unpaired = converter.stats().unpairedBeginEnd; unpaired > 0)
            warnings += (warnings.empty() ? "" : "; ") + std::to_string(unpaired) +
                        " begin/end (B/E) events without their pair skipped";
        if (!warnings.empty())
            writer->setMeta(format::meta::kImportWarnings, warnings);
        writer->setMeta(format::meta::kImportConverterVersion, std::to_string(kConverterVersion));
        if (!writer->finish("complete")) {
            result.error = sessionPath + ": cannot write the session: " + writer->lastError();
            failed = true;
        }
    }
    writer.reset();
    if (!failed && !finalizeImport(partial, converter, &error)) {
        result.error = sessionPath + ": cannot write the session: " + error;
        failed = true;
    }
    if (!failed && !output.commit(&result.error))
        failed = true;
    if (failed) {
        removeSessionFiles(partial); // with SQLite's journal files
        result.stats = converter.stats();
        return result;
    }
    result.ok = true;
    result.stats = converter.stats();
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

std::string KinetoImporter::cachePathFor(const std::string& tracePath, std::string* why) {
    std::string ignored;
    const std::string dir = writableImportCacheDir(why ? why : &ignored);
    if (dir.empty())
        return {};
    std::error_code ec;
    std::string stem = fs::path(tracePath).filename().string();
    if (stem.empty())
        stem = fs::path(tracePath).parent_path().filename().string();
    // Which trace, which converter, and the content of every trace file it stands for.
    const std::string identity =
        fs::absolute(tracePath, ec).string() + "|v" + std::to_string(kConverterVersion);
    return cacheEntryPath(dir, stem, identity, traceFiles(tracePath, &ignored));
}

LoadResult KinetoImporter::load(const std::string& tracePath, const LoadOptions& options) {
    LoadResult failed;
    const std::string cached = cachePathFor(tracePath, &failed.error);
    if (cached.empty()) {
        failed.error = tracePath + ": " + failed.error;
        return failed;
    }
    if (failed.error = foreignFileProblem(cached); !failed.error.empty())
        return failed;
    std::error_code ec;
    if (fs::exists(cached, ec)) { // foreignFileProblem(): it is the cache's
        LoadResult reused = SessionLoader::load(cached, options);
        if (reused.ok())
            touchCachedSession(cached);
        if (reused.ok() || reused.cancelled)
            return reused;
        removeCacheEntry(cached); // stale or damaged: convert again
    }
    KinetoImportOptions importOptions;
    importOptions.cancel = options.cancel;
    if (options.progress)
        importOptions.progress = [&](double f) { options.progress(0.8 * f); };
    // Marked before it exists, so that the cache never holds an entry it would not remove.
    if (!markCacheEntry(cached)) {
        failed.error = cached + ": cannot write the import cache's mark beside it";
        return failed;
    }
    const KinetoImportResult imported = convert(tracePath, cached, importOptions);
    if (!imported.ok) {
        removeCacheEntry(cached);
        failed.cancelled = imported.cancelled;
        failed.error = imported.error;
        return failed;
    }
    trimImportCache(fs::path(cached).parent_path().string(), kImportCacheLimits, cached);
    LoadOptions loadOptions = options;
    if (options.progress)
        loadOptions.progress = [&](double f) { options.progress(0.8 + 0.2 * f); };
    return SessionLoader::load(cached, loadOptions);
}

void registerKinetoImporter(SessionOpener& opener) {
    opener.add(SessionImporter{"torch.profiler trace", &KinetoImporter::looksLikeTrace,
                               [](const std::string& path, const LoadOptions& options) {
                                   return KinetoImporter::load(path, options);
                               },
                               [](const std::string& path) {
                                   std::string ignored; // open() reports a missing file
                                   return KinetoImporter::traceFiles(path, &ignored);
                               }});
}

} // namespace stallscope::model
