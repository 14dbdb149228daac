#include "model/interop/run_clock.h"

#include "format/session_schema.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

namespace stallscope::model {

namespace {

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

} // namespace stallscope::model
