#include "model/analysis/insight.h"

#include <algorithm>
#include <cstdio>

namespace stallscope::model {

std::string_view severityName(Severity severity) {
    switch (severity) {
    case Severity::High:
        return "HIGH";
    case Severity::Medium:
        return "MEDIUM";
    case Severity::Low:
        break;
    }
    return "LOW";
}

std::string_view ruleId(InsightRule rule) {
    switch (rule) {
    case InsightRule::SyncAttribution:
        return "sync-attribution";
    case InsightRule::InLoopSync:
        return "in-loop-sync";
    case InsightRule::PageableCopy:
        return "pageable-copy";
    case InsightRule::DeviceSync:
        return "device-sync";
    case InsightRule::DefaultStream:
        return "default-stream";
    case InsightRule::GpuBubble:
        return "gpu-bubble";
    case InsightRule::LaunchBound:
        return "launch-bound";
    }
    return "unknown";
}

std::string_view languageName(SourceLanguage language) {
    switch (language) {
    case SourceLanguage::Python:
        return "python";
    case SourceLanguage::Native:
        return "native";
    case SourceLanguage::Unknown:
        break;
    }
    return "unknown";
}

std::string formatShare(double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%", share * 100.0);
    return text;
}

std::string SourceSite::label() const {
    if (hasLocation()) {
        const size_t slash = file.find_last_of('/');
        std::string text = slash == std::string::npos ? file : file.substr(slash + 1);
        if (lineIsDefinition)
            return text + " · " + function + "()";
        text += ':' + std::to_string(line);
        if (!function.empty())
            text += " in " + function;
        return text;
    }
    if (file == "<unknown>")
        return "<unknown> (" + function + ")";
    return function;
}

format::SyncKind SyncSiteStats::dominantKind() const {
    const auto most = std::max_element(countByKind.begin() + 1, countByKind.end());
    return static_cast<format::SyncKind>(most - countByKind.begin());
}

} // namespace stallscope::model
