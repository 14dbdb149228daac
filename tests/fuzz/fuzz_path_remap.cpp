// Fuzz target: path remapping (format/path_remap.h). The input is lines: "from=to" rules (until
// an empty line), then recorded paths. A remapped path must lie under the chosen rule's new
// prefix — no ".." in the recorded rest may climb out of the folder the user vouched for — and a
// path no rule matches is returned unchanged.
#include "format/path_remap.h"

#include "tests/fuzz/fuzz_support.h"

#include <string>
#include <string_view>
#include <vector>

using namespace stallscope;

namespace {

std::vector<std::string_view> lines(std::string_view text) {
    std::vector<std::string_view> out;
    while (!text.empty()) {
        const size_t end = text.find('\n');
        out.push_back(text.substr(0, end));
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::vector<std::string_view> input =
        lines(std::string_view(reinterpret_cast<const char*>(data), size));
    std::vector<format::PathRemapRule> rules;
    size_t i = 0;
    for (; i < input.size() && !input[i].empty(); ++i) {
        format::PathRemapRule rule;
        if (format::parsePathRemapRule(input[i], &rule)) {
            fuzz::require(!rule.from.empty(), "a parsed rule has an empty prefix");
            rules.push_back(rule);
        }
    }
    for (++i; i < input.size(); ++i) {
        const std::string_view path = input[i];
        const std::optional<std::string> remapped = format::remapByRules(path, rules);
        if (!remapped) {
            fuzz::require(format::remapPath(path, rules) == path,
                          "a path no rule applies to was changed", std::string(path));
            continue;
        }
        const format::PathRemapRule* chosen = nullptr;
        for (const format::PathRemapRule& rule : rules)
            if (format::detail::prefixMatches(path, rule.from) &&
                (!chosen || rule.from.size() > chosen->from.size()))
                chosen = &rule;
        fuzz::require(chosen != nullptr, "a path no rule matches was remapped", std::string(path));
        fuzz::require(remapped->compare(0, chosen->to.size(), chosen->to) == 0,
                      "a remapped path does not start with the rule's new prefix", *remapped);
        fuzz::require(!format::detail::hasParentComponent(
                          std::string_view(*remapped).substr(chosen->to.size())),
                      "a remapped path climbs out of the rule's folder", *remapped);
    }
    return 0;
}
