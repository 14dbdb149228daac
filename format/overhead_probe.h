// The recorder's in-run overhead probe (recorder/overhead_probe.h), as the session's meta keeps it
// (meta::kRecorderOverheadProbe): the API whose calls it counted and, for each stretch in which
// it switched its own collection off, when that stretch began and ended and when the first and
// last of the calls counted in it came. Nothing else of the program was recorded in such a
// stretch; the model compares its call rate with the recorded rate around it (what the recorder
// itself costs the program, measured in the program: docs/insights.md, "The recorder's own cost").
//
// Text: "api=NAME;off=START,END,CALLS,FIRST,LAST;off=…" (times on the session's clock, ns).
// parse() accepts only what a recorder writes: a name of letters, digits and '_', at most
// kMaxPhases stretches, each with START <= FIRST <= LAST <= END when it counted calls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::format {

struct OverheadProbeRecord {
    struct OffPhase {
        int64_t startNs = 0, endNs = 0; // collection off from startNs to endNs
        int64_t calls = 0;              // calls of `api` that entered in between
        int64_t firstCallNs = 0, lastCallNs = 0;
        bool operator==(const OffPhase&) const = default;
    };
    static constexpr size_t kMaxPhases = 8;
    static constexpr size_t kMaxApiName = 64;

    std::string api; // the CUDA API name the recorded api_calls rows carry
    std::vector<OffPhase> offPhases;

    std::string text() const;
    static std::optional<OverheadProbeRecord> parse(std::string_view text);
    bool operator==(const OverheadProbeRecord&) const = default;
};

} // namespace stallscope::format
