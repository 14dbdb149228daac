// Path remapping for sessions opened on another machine: "old prefix -> new prefix" rules, applied
// when a source file is not embedded in the session. Header-only, dependency-free (no Qt, no LLVM)
// so model/ and views/ can include it as well as the symbolizer.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::format {

struct PathRemapRule {
    std::string from; // prefix as recorded, e.g. "/home/ci/build/src"
    std::string to;   // prefix on this machine, e.g. "/home/me/src"
};

namespace detail {
// A prefix matches only at a path-component boundary: "/src" maps "/src/a.cpp" and "/src" but not
// "/srcx/a.cpp" — otherwise one rule silently rewrites unrelated trees.
inline bool prefixMatches(std::string_view path, std::string_view prefix) {
    if (prefix.empty() || path.substr(0, prefix.size()) != prefix)
        return false;
    return path.size() == prefix.size() || prefix.back() == '/' || prefix.back() == '\\' ||
           path[prefix.size()] == '/' || path[prefix.size()] == '\\';
}

// True when a path component of `path` is "..": such a path can climb out of the folder a rule
// maps it into.
inline bool hasParentComponent(std::string_view path) {
    for (size_t start = 0; start <= path.size();) {
        size_t end = path.find_first_of("/\\", start);
        if (end == std::string_view::npos)
            end = path.size();
        if (path.substr(start, end - start) == "..")
            return true;
        start = end + 1;
    }
    return false;
}
} // namespace detail

// The rule with the LONGEST matching prefix (the most specific one wins regardless of the order
// the user typed them in), or null when none matches.
inline const PathRemapRule* findRemapRule(std::string_view path,
                                          const std::vector<PathRemapRule>& rules) {
    const PathRemapRule* best = nullptr;
    for (const PathRemapRule& rule : rules)
        if (detail::prefixMatches(path, rule.from) &&
            (!best || rule.from.size() > best->from.size()))
            best = &rule;
    return best;
}

// Applies findRemapRule()'s rule. Nothing when no rule matches, or when the rest of the path has
// a ".." component: a remapped path always lies inside the folder the user's rule names, so a
// recorded "/ci/src/../../home/me/.ssh/id_rsa" is never read through a rule for "/ci/src".
inline std::optional<std::string> remapByRules(std::string_view path,
                                               const std::vector<PathRemapRule>& rules) {
    const PathRemapRule* best = findRemapRule(path, rules);
    if (!best)
        return std::nullopt;
    std::string_view rest = path.substr(best->from.size());
    if (detail::hasParentComponent(rest))
        return std::nullopt;
    std::string result = best->to;
    // Join with exactly one separator whatever the rule's trailing slashes.
    const bool restHasSlash = !rest.empty() && (rest.front() == '/' || rest.front() == '\\');
    const bool toHasSlash = !result.empty() && (result.back() == '/' || result.back() == '\\');
    if (!rest.empty() && !restHasSlash && !toHasSlash && !result.empty())
        result.push_back('/');
    if (restHasSlash && toHasSlash)
        rest.remove_prefix(1);
    result.append(rest);
    return result;
}

// remapByRules, or `path` unchanged when no rule applies.
inline std::string remapPath(std::string_view path, const std::vector<PathRemapRule>& rules) {
    return remapByRules(path, rules).value_or(std::string(path));
}

// Parses "old=new" (the command-line form, e.g. --remap /ci/src=/home/me/src). Returns false when
// there is no '=' or the old prefix is empty.
inline bool parsePathRemapRule(std::string_view text, PathRemapRule* rule) {
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0)
        return false;
    rule->from = std::string(text.substr(0, eq));
    rule->to = std::string(text.substr(eq + 1));
    return true;
}

} // namespace stallscope::format
