#include "format/overhead_probe.h"

#include <algorithm>
#include <charconv>

namespace stallscope::format {

namespace {

bool isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// "A,B,C,D,E" into five non-negative counts.
bool parseFive(std::string_view text, int64_t (&out)[5]) {
    const char* p = text.data();
    const char* end = text.data() + text.size();
    for (int i = 0; i < 5; ++i) {
        const auto [next, error] = std::from_chars(p, end, out[i]);
        if (error != std::errc() || out[i] < 0)
            return false;
        p = next;
        if (i < 4) {
            if (p == end || *p != ',')
                return false;
            ++p;
        }
    }
    return p == end;
}

} // namespace

std::string OverheadProbeRecord::text() const {
    std::string out = "api=" + api;
    for (const OffPhase& phase : offPhases)
        out += ";off=" + std::to_string(phase.startNs) + "," + std::to_string(phase.endNs) + "," +
               std::to_string(phase.calls) + "," + std::to_string(phase.firstCallNs) + "," +
               std::to_string(phase.lastCallNs);
    return out;
}

std::optional<OverheadProbeRecord> OverheadProbeRecord::parse(std::string_view text) {
    OverheadProbeRecord probe;
    for (size_t index = 0;; ++index) {
        const size_t cut = text.find(';');
        const std::string_view part = text.substr(0, cut);
        if (index == 0) {
            const std::string_view name = part.substr(std::min<size_t>(4, part.size()));
            if (!part.starts_with("api=") || name.empty() || name.size() > kMaxApiName ||
                !std::all_of(name.begin(), name.end(), isNameChar))
                return std::nullopt;
            probe.api = std::string(name);
        } else {
            int64_t v[5];
            if (!part.starts_with("off=") || probe.offPhases.size() == kMaxPhases ||
                !parseFive(part.substr(4), v))
                return std::nullopt;
            const OffPhase phase{v[0], v[1], v[2], v[3], v[4]};
            const bool callsInside = phase.startNs <= phase.firstCallNs &&
                                     phase.firstCallNs <= phase.lastCallNs &&
                                     phase.lastCallNs <= phase.endNs;
            if (phase.endNs < phase.startNs || (phase.calls > 0 && !callsInside))
                return std::nullopt;
            probe.offPhases.push_back(phase);
        }
        if (cut == std::string_view::npos)
            return probe;
        text = text.substr(cut + 1);
    }
}

} // namespace stallscope::format
