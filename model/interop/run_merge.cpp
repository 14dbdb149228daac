#include "model/interop/run_merge.h"

#include "format/checked_sql.h"
#include "format/session_schema.h"
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "model/session/session_file_check.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>

namespace fs = std::filesystem;

namespace stallscope::model {

namespace {

std::string oneValue(const format::Database& db, const std::string& sql) {
    format::Statement statement = db.prepare(sql);
    return statement.step() ? statement.text(0) : std::string();
}

std::optional<int64_t> firstRank(const format::Database& db) {
    if (!format::hasTable(db, format::tables::kProcessRanks.name))
        return std::nullopt;
    format::Statement rank = db.prepare(
        format::CheckedSql(
            "SELECT {process_ranks.rank} FROM {process_ranks} ORDER BY {process_ranks.id} LIMIT 1")
            .text());
    if (!rank.step())
        return std::nullopt;
    return rank.integer(0);
}

std::string hostShiftText(const std::string& host, const ClockAlignment& alignment) {
    char text[160];
    std::snprintf(text, sizeof text, "%s: %+.3f ms (±%.3f ms, %lld collectives)", host.c_str(),
                  alignment.shiftNs / 1e6, alignment.spreadNs / 1e6,
                  static_cast<long long>(alignment.matched));
    return text;
}

} // namespace

HostAlignment alignHosts(const std::vector<RankClock>& files) {
    HostAlignment result;
    if (files.empty())
        return result;
    const RankClock& reference = files.front();
    std::map<std::string, ClockAlignment> byHost;
    for (const RankClock& file : files) {
        if (file.host == reference.host || byHost.count(file.host))
            continue;
        std::optional<int64_t> hint;
        if (reference.wallOffsetNs && file.wallOffsetNs)
            hint = *file.wallOffsetNs - *reference.wallOffsetNs;
        const ClockAlignment alignment =
            alignOnCollectives(reference.collectiveEndsNs, file.collectiveEndsNs, hint);
        byHost[file.host] = alignment;
        result.text +=
            (result.text.empty() ? "" : "; ") +
            (alignment.matched ? hostShiftText(file.host, alignment)
                               : file.host + ": not aligned (no collective kernels in common)");
    }
    for (const RankClock& file : files)
        result.shiftNs.push_back(file.host == reference.host ? 0 : byHost[file.host].shiftNs);
    if (!result.text.empty())
        result.text = "clocks aligned to " + reference.host + " — " + result.text;
    return result;
}

ClockAlignment alignOnCollectives(const std::vector<int64_t>& referenceEndsNs,
                                  const std::vector<int64_t>& otherEndsNs,
                                  std::optional<int64_t> wallClockHintNs) {
    auto median = [](std::vector<int64_t>& values) {
        std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
        return values[values.size() / 2];
    };
    // Pairing j: the other's k-th collective is the reference's (k + j)-th.
    auto pairing = [&](int64_t j) {
        std::vector<int64_t> differences;
        for (int64_t k = std::max<int64_t>(0, -j);
             k < static_cast<int64_t>(otherEndsNs.size()) &&
             k + j < static_cast<int64_t>(referenceEndsNs.size());
             ++k)
            differences.push_back(referenceEndsNs[k + j] - otherEndsNs[k]);
        if (differences.empty())
            return ClockAlignment{};
        const int64_t shift = median(differences);
        for (int64_t& d : differences)
            d = d > shift ? d - shift : shift - d;
        return ClockAlignment{shift, median(differences), static_cast<int64_t>(differences.size())};
    };
    if (!wallClockHintNs)
        return pairing(0);
    constexpr int64_t kMaxPairingOffset = 64; // recordings that began this many collectives apart
    ClockAlignment best;
    int64_t bestDistance = 0;
    for (int64_t j = -kMaxPairingOffset; j <= kMaxPairingOffset; ++j) {
        const ClockAlignment candidate = pairing(j);
        if (candidate.matched == 0)
            continue;
        const int64_t distance = candidate.shiftNs > *wallClockHintNs
                                     ? candidate.shiftNs - *wallClockHintNs
                                     : *wallClockHintNs - candidate.shiftNs;
        if (best.matched == 0 || distance < bestDistance ||
            (distance == bestDistance && candidate.spreadNs < best.spreadNs)) {
            best = candidate;
            bestDistance = distance;
        }
    }
    return best;
}

std::optional<int64_t> realtimeMinusMonotonic(const std::string& cuptiClockVsHost) {
    auto value = [&](std::string_view key) -> std::optional<int64_t> {
        const size_t at = cuptiClockVsHost.find(std::string(key) + "=");
        if (at == std::string::npos || (at > 0 && cuptiClockVsHost[at - 1] != ' '))
            return std::nullopt;
        const char* begin = cuptiClockVsHost.c_str() + at + key.size() + 1;
        char* end = nullptr;
        errno = 0;
        const long long parsed = std::strtoll(begin, &end, 10);
        if (end == begin || errno != 0 || (*end != ' ' && *end != '\0'))
            return std::nullopt;
        return static_cast<int64_t>(parsed);
    };
    const auto cuptiMinusRealtime = value("realtime");
    const auto cuptiMinusMonotonic = value("monotonic");
    if (!cuptiMinusRealtime || !cuptiMinusMonotonic)
        return std::nullopt;
    // Both within ±2^62: the difference cannot overflow.
    if (std::llabs(*cuptiMinusRealtime) >= format::kTimeLimitNs ||
        std::llabs(*cuptiMinusMonotonic) >= format::kTimeLimitNs)
        return std::nullopt;
    return *cuptiMinusMonotonic - *cuptiMinusRealtime;
}

bool RunMerger::looksLikeRun(const std::string& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return false;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".stallscope" && it->is_regular_file(ec))
            return true;
    return false;
}

RunFiles RunMerger::runFiles(const std::vector<std::string>& paths, std::string* error) {
    RunFiles files;
    std::vector<std::string> candidates;
    bool anyFolder = false; // a folder's sessions must be one launch's ranks (below)
    for (const std::string& path : paths) {
        std::error_code ec;
        if (!fs::is_directory(path, ec)) {
            candidates.push_back(path);
            continue;
        }
        anyFolder = true;
        std::vector<std::string> inFolder;
        for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().extension() == ".stallscope" && it->is_regular_file(ec))
                inFolder.push_back(it->path().string());
        if (ec) {
            *error = path + ": cannot list the folder: " + ec.message();
            return {};
        }
        std::sort(inFolder.begin(), inFolder.end());
        candidates.insert(candidates.end(), inFolder.begin(), inFolder.end());
    }
    struct Candidate {
        std::string path;
        std::optional<int64_t> rank;
        std::string worldSize; // "" where not recorded
    };
    std::vector<Candidate> kept;
    std::map<std::string, std::string> ranks; // rank|pid|host -> the file kept
    for (const std::string& path : candidates) {
        const std::string name = fs::path(path).filename().string();
        if (name.find(".recording") != std::string::npos) {
            files.skipped.push_back(name + ": a partial recording (still running or cut short)");
            continue;
        }
        format::Database db;
        std::string problem;
        if (!checkSqliteFile(path).empty() || !format::openSession(db, path, &problem)) {
            files.skipped.push_back(name + ": not a Stallscope session");
            continue;
        }
        // A copy of a rank's file (same rank, process and host) is merged once; a rank's own
        // CUDA subprocess inherits its rank but is another process, and stays.
        const std::optional<int64_t> rank = firstRank(db);
        if (rank) {
            const std::string identity =
                std::to_string(*rank) + "|" +
                oneValue(db, format::CheckedSql(
                                 "SELECT {processes.pid} FROM {processes} ORDER BY {processes.id}")
                                 .text()) +
                "|" +
                oneValue(db, format::CheckedSql(
                                 "SELECT {processes.host} FROM {processes} ORDER BY {processes.id}")
                                 .text());
            if (const auto first = ranks.find(identity); first != ranks.end()) {
                files.skipped.push_back(name + ": a second copy of rank " + std::to_string(*rank) +
                                        " (kept " + first->second + ")");
                continue;
            }
            ranks[identity] = name;
        }
        kept.push_back(
            {path, rank,
             oneValue(db, format::CheckedSql("SELECT {process_ranks.world_size} FROM "
                                             "{process_ranks} ORDER BY {process_ranks.id}")
                              .text())});
    }
    // A folder is one launch's ranks: recordings of separate runs are not merged into one
    // (issue 42: two unrelated recordings became one 46 s session without a word).
    if (anyFolder && kept.size() > 1) {
        for (const Candidate& candidate : kept) {
            const std::string name = fs::path(candidate.path).filename().string();
            std::string why;
            if (!candidate.rank)
                why = name + " records no rank";
            else if (candidate.worldSize != kept.front().worldSize)
                why = "their world sizes differ (" +
                      fs::path(kept.front().path).filename().string() + ": " +
                      kept.front().worldSize + ", " + name + ": " + candidate.worldSize + ")";
            if (!why.empty()) {
                *error = paths.front() + ": holds " + std::to_string(kept.size()) +
                         " sessions that are not the ranks of one launch (" + why +
                         "); open one of them by its name";
                return {};
            }
        }
    }
    std::stable_sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) {
        return a.rank.value_or(std::numeric_limits<int64_t>::max()) <
               b.rank.value_or(std::numeric_limits<int64_t>::max());
    });
    for (Candidate& candidate : kept)
        files.sessions.push_back(std::move(candidate.path));
    if (files.sessions.empty())
        *error = (paths.empty() ? std::string("no file") : paths.front()) +
                 ": no Stallscope session to open" +
                 (files.skipped.empty() ? std::string()
                                        : " (skipped " + files.skipped.front() +
                                              (files.skipped.size() > 1 ? ", …" : "") + ")");
    return files;
}

} // namespace stallscope::model
