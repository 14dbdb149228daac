// SessionComparison: two runs of the same program — before and after a change — compared per
// sync site, per kernel name and in total, on the same footing: every number is per step when
// both runs have steps in their analysis windows (ProfilerStep#N, NVTX "step…"), else per second
// of kernel time (the kernels a fix leaves alone; a copy made pinned changes only the copy).
// Sites are matched by what survives an edit that moves lines: the file, the function and the
// text of the line (read from the session's embedded source; the line number only where no
// source is embedded), plus the library frame for syncs made inside a library. Each site gets a
// status — fixed, new, better, worse, same — from its blocked host time per unit, or, where that
// stays within its noise margin, from its calls per unit (CompareOptions). For fixed sites the
// before run's simulated saving (the what-if engine's prediction) stands next to what the after
// run achieved. docs/compare.md.
#pragma once

#include "model/analysis/insight.h"
#include "model/session/session.h"
#include "model/session/session_database.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::model {

enum class SiteStatus : uint8_t { Same, Better, Worse, Fixed, New };
std::string_view siteStatusName(SiteStatus status); // "same", "better", ...

struct CompareOptions {
    // A site is "same" while its blocked time per unit moves by at most this share of the
    // larger side, or by at most noiseFloorNs per unit (tiny sites jitter by more than 10 %).
    double noiseShare = 0.10;
    int64_t noiseFloorNs = 10'000;
    // Within that margin, calls per unit that moved by more than noiseShare and noiseCalls still
    // make a site worse or better: a copy made five times as often is a change however cheap.
    double noiseCalls = 0.05;
};

// One run's side of the comparison.
struct CompareInput {
    const Session* session = nullptr;
    const SessionDatabase* database = nullptr; // may be closed: sites then match by line number
    const InsightReport* report = nullptr;
};

// One site's numbers in one run, per unit (see SessionComparison::unit).
struct SiteNumbers {
    bool present = false;
    double calls = 0;
    double blockedNs = 0;
    double bubbleNs = 0;
    double savingsNs = -1;            // the simulated saving; -1 when not simulated
    std::optional<Severity> severity; // of the site's finding; none when it is no finding
};

// A site's status from its numbers in both runs: fixed, new, or worse / better when its blocked
// time per unit moved past the noise margin (worse only if its replayed saving grew past it too,
// where both runs simulated it: a wait moved onto it by a fix elsewhere is no regression), or its
// calls per unit did; else the same.
SiteStatus siteStatus(const SiteNumbers& before, const SiteNumbers& after,
                      const CompareOptions& options = {});

struct SiteComparison {
    std::string key; // file | function | line text [| library file | function | line text]
    SourceSite site; // as the after run names it (the before run's for fixed sites)
    SiteStatus status = SiteStatus::Same;
    SiteNumbers before, after;
    // The severity the gate reads: the after run's for new, worse, better and same sites, the
    // before run's for fixed ones; none when neither run made it a finding.
    std::optional<Severity> severity() const;
};

struct KernelComparison {
    std::string name;
    double beforeCount = 0, afterCount = 0; // per unit
    double beforeNs = 0, afterNs = 0;       // per unit
};

struct RunTotals {
    double units = 0;     // steps, or seconds of kernel time
    int64_t windowNs = 0; // the analysis window
    double stepNs = 0;    // window per unit: the step time when the unit is a step
    double gpuBusyNs = 0; // per unit
    double hostBlockedNs = 0;
    double hostSyncs = 0;
    std::string path;        // the session (or trace) file
    std::string windowLabel; // AnalysisWindow::label
};

struct SessionComparison {
    std::string unit; // "step" or "s of kernel time"
    RunTotals before, after;
    std::vector<SiteComparison> sites;     // fixed and new first, then by blocked time moved
    std::vector<KernelComparison> kernels; // largest change in time first
    // Fixed sites: the sum of their predicted savings per unit (before run), and the time per
    // unit the after run actually saved (before.stepNs - after.stepNs): the tool grading itself.
    double predictedSavingNs = 0;
    double achievedSavingNs = 0;
    int fixedSites = 0;
};

SessionComparison compareSessions(const CompareInput& before, const CompareInput& after,
                                  const CompareOptions& options = {});

// The key a site is matched by across runs (see above). Exposed for tests.
std::string siteKey(const SourceSite& site, const SessionDatabase* database);

} // namespace stallscope::model
