// The templates of line_rewrite.h, one function per shape of line: each takes a whole, trimmed
// statement (python_line::isWholeStatement) and returns it rewritten, or nothing when the line
// is not exactly its shape. Only line_rewrite.cpp calls them; the tests go through
// rewrittenLine. Reads and copies in line_templates.cpp, shapes, checks and deletions in
// line_templates_shapes.cpp.
#pragma once

#include "model/analysis/insight.h"
#include "model/analysis/python_line.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::model::line_templates {

inline std::string text(std::string_view view) {
    return std::string(view);
}
inline std::string_view slice(std::string_view text, size_t begin, size_t end) {
    return text.substr(begin, end - begin);
}
// Where `part`, a view into `whole`, starts in it.
inline size_t offsetIn(std::string_view whole, std::string_view part) {
    return static_cast<size_t>(part.data() - whole.data());
}

// One change of a statement: [begin, end) becomes `text`.
struct Edit {
    size_t begin = 0, end = 0;
    std::string text;
};
std::string applied(std::string_view statement, const Edit& edit);

// A call's arguments as written: positional ones, then keyword ones ("name=value").
struct Arguments {
    std::vector<std::string_view> positional;
    std::vector<std::string_view> keyword;
    bool valid = true; // none empty, unpacked (*args) or positional after a keyword one
};
Arguments argumentsOf(std::string_view inner);

// What the brackets of the primary's trailer `index` hold, when it is a subscript of one index
// that is neither a tuple nor a slice: the mask of `x[mask]`.
std::optional<std::string_view> maskOf(const python_line::Primary& primary, size_t index);
// `~mask`, `~(labels != pad)`.
std::string negated(std::string_view mask);

// Values read into Python, kept on the GPU.
std::optional<LineRewrite> accumulatedOnGpu(std::string_view statement);
std::optional<LineRewrite> appendedOnGpu(std::string_view statement);
std::optional<LineRewrite> printedEveryN(std::string_view statement);
// Copies through pinned memory.
std::optional<LineRewrite> uploadedFromPinned(std::string_view statement);
std::optional<LineRewrite> builtInPinnedMemory(std::string_view statement);
// Data-dependent sizes made static.
std::optional<LineRewrite> nonzeroStatic(std::string_view statement);
std::optional<LineRewrite> whereStatic(std::string_view statement);
std::optional<LineRewrite> maskedLoss(std::string_view statement);
std::optional<LineRewrite> maskedSum(std::string_view statement);
std::optional<LineRewrite> maskedSelectSum(std::string_view statement);
std::optional<LineRewrite> maskedFill(std::string_view statement);
// A check decided on the GPU; waits that serve nothing, deleted.
std::optional<LineRewrite> asyncAssert(std::string_view statement);
std::optional<LineRewrite> deletedSynchronize(std::string_view statement);
std::optional<LineRewrite> deletedEmptyCache(std::string_view statement);

} // namespace stallscope::model::line_templates
