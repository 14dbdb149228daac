// One line of Python read as far as the line rewrites need (line_rewrite.h): its string literals
// and brackets, its primaries (a name, number, string or bracketed group followed by attributes,
// calls and subscripts: `batch["x"].to(device)`), its top-level commas and assignment. Not a
// parser: a rewrite asks for the exact shapes it knows and refuses the rest, and a line that is
// not one complete statement (an open bracket or string, a `;`, a continuation) is refused first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

namespace stallscope::model::python_line {

// Offsets into the text the primary was read from.
struct Trailer {
    enum class Kind : uint8_t { Attribute, Call, Subscript };
    Kind kind = Kind::Attribute;
    size_t begin = 0, end = 0; // from its '.', '(' or '[' to past its name or closing bracket
    std::string_view name;     // Attribute: the name
    std::string_view inner;    // Call, Subscript: what the brackets hold, trimmed
    bool is(Kind k, std::string_view n) const { return kind == k && name == n; }
};

struct Primary {
    size_t begin = 0, end = 0;
    std::string_view atom; // the name, number, string or bracketed group it starts with
    std::vector<Trailer> trailers;
    bool startsWithName() const; // `losses.append(x)`, not `"a".join(x)` or `(a + b).sum()`
    // The attribute names after an atom that is a name, up to the first call or subscript:
    // "torch.nn.functional.cross_entropy" for `torch.nn.functional.cross_entropy(a, b)`.
    size_t dottedNameEnd() const; // offset past the dotted name (begin + atom when none)
};

// Whether `text` is one whole statement: printable characters only, every string closed on the
// line, brackets matched, no `;` and no line continuation.
bool isWholeStatement(std::string_view text);
// `text` without its leading and trailing spaces, tabs and carriage returns.
std::string_view trimmed(std::string_view text);
// The primary that starts at `pos` of `text`, if one does.
std::optional<Primary> primaryAt(std::string_view text, size_t pos);
// The primary that is the whole of `text`, if it is one.
std::optional<Primary> wholePrimary(std::string_view text);
// Every primary of `text`, those inside brackets too, in order of their start.
std::vector<Primary> primariesOf(std::string_view text);
// `text` cut at its top-level commas, each piece trimmed; none for an empty text.
std::vector<std::string_view> topLevelItems(std::string_view text);
// Where `token` starts at the top level of `text` (outside strings and brackets); npos when not.
size_t findTopLevel(std::string_view text, std::string_view token);
// The offsets of the plain `=` of `text` at its top level (not `==`, `<=`, `+=`, ...).
std::vector<size_t> topLevelAssignments(std::string_view text);
// Whether a name among `words` ("and", "or", ...) stands at the top level of `text`.
bool hasTopLevelWord(std::string_view text, std::initializer_list<std::string_view> words);
// `name=value` of a keyword argument: the name, or "" for a positional one.
std::string_view keywordOf(std::string_view argument);
// The value of a keyword argument (trimmed).
std::string_view keywordValue(std::string_view argument);
// Whether `text` is one string literal without an f or b prefix.
bool isPlainString(std::string_view text);

} // namespace stallscope::model::python_line
