#include "model/analysis/insight.h"

#include "format/enum_names.h"
#include "format/module_class.h"
#include "model/session/session_summary.h"

#include <algorithm>
#include <cstdio>

namespace stallscope::model {

std::string_view severityName(Severity severity) {
    static constexpr auto kNames = std::to_array<std::string_view>({"LOW", "MEDIUM", "HIGH"});
    return format::nameOf(kNames, severity, "LOW");
}

std::string_view ruleId(InsightRule rule) {
    static constexpr auto kIds = std::to_array<std::string_view>(
        {"sync-attribution", "in-loop-sync", "pageable-copy", "device-sync", "default-stream",
         "gpu-bubble", "launch-bound", "straggler", "host-gap"});
    static_assert(kIds.size() == kInsightRuleCount);
    return format::nameOf(kIds, rule, "unknown");
}

std::string_view languageName(SourceLanguage language) {
    static constexpr auto kNames = std::to_array<std::string_view>({"unknown", "python", "native"});
    return format::nameOf(kNames, language, "unknown");
}

std::string formatShare(double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%", share * 100.0);
    return text;
}

std::string siteShareText(const SyncSiteStats& site) {
    return site.windowBlockedNs > 0 || site.blockedNs == 0 ? formatShare(site.share) : "–";
}

std::string SourceSite::label() const {
    if (hasLocation()) {
        const size_t slash = file.find_last_of('/');
        std::string text = slash == std::string::npos ? file : file.substr(slash + 1);
        if (lineIsDefinition) {
            text += " · " + function + "()";
        } else {
            text += ':' + std::to_string(line);
            if (!function.empty())
                text += " in " + function;
        }
        if (!library.empty()) {
            text += " → " + std::string(format::libraryFileLabel(library.file));
            text += lineIsDefinition ? " · " + library.function + "()"
                                     : ':' + std::to_string(library.line);
        }
        return text;
    }
    if (file == "<unknown>")
        return "<unknown> (" + function + ")";
    return function;
}

std::string rankNumbersText(const std::vector<RankNumbers>& ranks) {
    if (ranks.empty())
        return {};
    const bool sameCalls = std::all_of(ranks.begin(), ranks.end(), [&](const RankNumbers& r) {
        return r.calls == ranks.front().calls;
    });
    std::string text = sameCalls ? "×" + formatCount(ranks.front().calls) + " on " : "on ";
    for (size_t r = 0; r < ranks.size(); ++r) {
        text += (r == 0 ? "" : ", ") + ranks[r].label + ": ";
        if (!sameCalls)
            text += "×" + formatCount(ranks[r].calls) + " ";
        text += formatDuration(ranks[r].blockedNs);
    }
    return text;
}

std::string lineRewriteText(const LineRewrite& rewrite) {
    std::string text =
        rewrite.line.empty() ? "Delete your line" : "Your line, rewritten: `" + rewrite.line + "`";
    if (!rewrite.note.empty())
        text += " (" + rewrite.note + ")";
    return text + ".";
}

std::string fixText(const Insight& insight) {
    if (!insight.lineRewrite)
        return insight.recommendation;
    return lineRewriteText(*insight.lineRewrite) + " " + insight.recommendation;
}

format::SyncKind SyncSiteStats::dominantKind() const {
    const auto most = std::max_element(countByKind.begin() + 1, countByKind.end());
    return static_cast<format::SyncKind>(most - countByKind.begin());
}

} // namespace stallscope::model
