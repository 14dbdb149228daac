// One clock for a run's files (issue 16): processes of one host share its CLOCK_MONOTONIC; a run
// spanning hosts is aligned on its collective (NCCL) kernels, which end together on every rank,
// and the estimated skew is recorded (process_ranks.clock_shift_ns, meta run_clock_alignment).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stallscope::model {

// Two hosts' clocks: the shift that puts another host's times on the reference host's clock,
// from collectives both ran (a collective ends at once on every rank: the median of the end-time
// differences). Which collective of one is which of the other: the k-th of each, unless
// `wallClockHintNs` (the shift the hosts' wall clocks suggest, NTP-accurate) is given, which picks
// the pairing whose shift lies closest to it — so recordings that began at different collectives
// still pair up.
struct ClockAlignment {
    int64_t shiftNs = 0;
    int64_t spreadNs = 0; // median absolute deviation of the differences: the estimate's error
    int64_t matched = 0;  // collectives matched; 0 means no estimate (shift 0)
};
ClockAlignment alignOnCollectives(const std::vector<int64_t>& referenceEndsNs,
                                  const std::vector<int64_t>& otherEndsNs,
                                  std::optional<int64_t> wallClockHintNs = std::nullopt);
// A session's CLOCK_REALTIME minus CLOCK_MONOTONIC, from meta cupti_clock_vs_host
// ("realtime=X monotonic=Y …": CUPTI's clock minus each), when it says.
std::optional<int64_t> realtimeMinusMonotonic(const std::string& cuptiClockVsHost);

// What one file of a run says about its clock.
struct RankClock {
    std::string host;                      // its first process's
    std::vector<int64_t> collectiveEndsNs; // its NCCL kernels' ends, in start order
    std::optional<int64_t> wallOffsetNs;   // CLOCK_REALTIME - CLOCK_MONOTONIC on its host
};
// Every file's shift onto the first file's host's clock (0 on that host), and the text for meta
// run_clock_alignment ("" when the run has one host). Shifts may be negative: the caller moves
// every file on when one would take a time below 0.
struct HostAlignment {
    std::vector<int64_t> shiftNs;
    std::string text;
};
HostAlignment alignHosts(const std::vector<RankClock>& files);

} // namespace stallscope::model
