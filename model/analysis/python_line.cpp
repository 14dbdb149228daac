#include "model/analysis/python_line.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace stallscope::model::python_line {

namespace {

constexpr size_t kNone = std::string_view::npos;

bool isNameStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
}

bool isNameChar(char c) {
    return isNameStart(c) || std::isdigit(static_cast<unsigned char>(c));
}

bool atNameBoundary(std::string_view text, size_t pos) {
    return pos == 0 || !isNameChar(text[pos - 1]);
}

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

// The offset of the quote of a string literal starting at `pos` (after its prefix letters:
// r, b, u, f and their pairs); npos when none starts there.
size_t quoteOfStringAt(std::string_view text, size_t pos) {
    if (!atNameBoundary(text, pos))
        return kNone;
    size_t quote = pos;
    while (quote < text.size() && quote - pos < 2 &&
           std::string_view("rRbBuUfF").find(text[quote]) != kNone)
        ++quote;
    return quote < text.size() && (text[quote] == '"' || text[quote] == '\'') ? quote : kNone;
}

// Past the end of the string literal whose quote is at `quote`; npos when the line ends first.
size_t stringEnd(std::string_view text, size_t quote) {
    const std::string_view triple(text.data() + quote, std::min<size_t>(3, text.size() - quote));
    const bool isTriple = triple.size() == 3 && triple[1] == triple[0] && triple[2] == triple[0];
    const size_t width = isTriple ? 3 : 1;
    for (size_t i = quote + width; i < text.size(); ++i) {
        if (text[i] == '\\') {
            ++i; // an escaped character, the quote too (raw strings included)
            continue;
        }
        if (text.substr(i, width) == text.substr(quote, width))
            return i + width;
    }
    return kNone;
}

// Past the string literal starting at `pos`, or `pos` when none starts there (npos: unclosed).
size_t pastString(std::string_view text, size_t pos) {
    const size_t quote = quoteOfStringAt(text, pos);
    return quote == kNone ? pos : stringEnd(text, quote);
}

bool isOpening(char c) {
    return c == '(' || c == '[' || c == '{';
}

bool isClosing(char c) {
    return c == ')' || c == ']' || c == '}';
}

// The offset of the bracket that closes the one at `open` (the text is a whole statement).
size_t closingBracket(std::string_view text, size_t open) {
    int depth = 0;
    for (size_t i = open; i < text.size();) {
        if (const size_t past = pastString(text, i); past != i) {
            if (past == kNone)
                return kNone;
            i = past;
            continue;
        }
        if (isOpening(text[i]))
            ++depth;
        else if (isClosing(text[i]) && --depth == 0)
            return i;
        ++i;
    }
    return kNone;
}

// Calls `visit(offset)` for each character of `text` at its top level, outside strings.
template <typename Visit> void forTopLevel(std::string_view text, Visit visit) {
    int depth = 0;
    for (size_t i = 0; i < text.size();) {
        if (const size_t past = pastString(text, i); past != i) {
            if (past == kNone)
                return;
            i = past;
            continue;
        }
        if (isOpening(text[i]))
            ++depth;
        else if (isClosing(text[i]))
            --depth;
        else if (depth == 0 && !visit(i))
            return;
        ++i;
    }
}

size_t numberEnd(std::string_view text, size_t pos) {
    const bool hex = text.substr(pos, 2) == "0x" || text.substr(pos, 2) == "0X";
    size_t i = pos;
    while (i < text.size()) {
        const char c = text[i];
        if (isNameChar(c) || c == '.')
            ++i;
        else if ((c == '+' || c == '-') && !hex && (text[i - 1] == 'e' || text[i - 1] == 'E'))
            ++i;
        else
            break;
    }
    return i;
}

void collectPrimaries(std::string_view text, size_t begin, size_t end, std::vector<Primary>& out) {
    for (size_t i = begin; i < end;) {
        if (std::optional<Primary> primary = primaryAt(text, i)) {
            const size_t past = primary->end;
            const std::string_view atom = primary->atom;
            const std::vector<Trailer> trailers = primary->trailers;
            out.push_back(std::move(*primary));
            if (isOpening(atom.front()))
                collectPrimaries(text, i + 1, i + atom.size() - 1, out);
            for (const Trailer& trailer : trailers)
                if (trailer.kind != Trailer::Kind::Attribute)
                    collectPrimaries(text, trailer.begin + 1, trailer.end - 1, out);
            i = past;
            continue;
        }
        const size_t past = pastString(text, i);
        i = past == i ? i + 1 : past;
    }
}

} // namespace

bool Primary::startsWithName() const {
    return isNameStart(atom.front()) && isNameChar(atom.back()); // a string's prefix is no name
}

size_t Primary::dottedNameEnd() const {
    size_t end = begin + atom.size();
    if (!startsWithName())
        return end;
    for (const Trailer& trailer : trailers) {
        if (trailer.kind != Trailer::Kind::Attribute)
            break;
        end = trailer.end;
    }
    return end;
}

bool isWholeStatement(std::string_view text) {
    if (text.empty())
        return false;
    if (std::any_of(text.begin(), text.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        return false;
    std::string open;
    for (size_t i = 0; i < text.size();) {
        if (const size_t past = pastString(text, i); past != i) {
            if (past == kNone)
                return false;
            i = past;
            continue;
        }
        const char c = text[i];
        if (isOpening(c)) {
            open += c;
        } else if (isClosing(c)) {
            const char expected = c == ')' ? '(' : c == ']' ? '[' : '{';
            if (open.empty() || open.back() != expected)
                return false;
            open.pop_back();
        } else if (c == ';' || c == '\\') {
            return false;
        }
        ++i;
    }
    return open.empty();
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    return text;
}

std::optional<Primary> primaryAt(std::string_view text, size_t pos) {
    if (pos >= text.size())
        return std::nullopt;
    size_t i = pos;
    const char first = text[pos];
    if (const size_t quote = quoteOfStringAt(text, pos); quote != kNone) {
        i = stringEnd(text, quote);
    } else if (isNameStart(first) && atNameBoundary(text, pos)) {
        while (i < text.size() && isNameChar(text[i]))
            ++i;
    } else if (std::isdigit(static_cast<unsigned char>(first)) ||
               (first == '.' && pos + 1 < text.size() &&
                std::isdigit(static_cast<unsigned char>(text[pos + 1])))) {
        if (!atNameBoundary(text, pos))
            return std::nullopt;
        i = numberEnd(text, pos);
    } else if (isOpening(first)) {
        i = closingBracket(text, pos);
        if (i != kNone)
            ++i;
    } else {
        return std::nullopt;
    }
    if (i == kNone)
        return std::nullopt;
    Primary primary;
    primary.begin = pos;
    primary.atom = text.substr(pos, i - pos);
    while (i < text.size()) {
        Trailer trailer;
        trailer.begin = i;
        if (text[i] == '.' && i + 1 < text.size() && isNameStart(text[i + 1])) {
            size_t end = i + 1;
            while (end < text.size() && isNameChar(text[end]))
                ++end;
            trailer.kind = Trailer::Kind::Attribute;
            trailer.name = text.substr(i + 1, end - i - 1);
            trailer.end = end;
        } else if (text[i] == '(' || text[i] == '[') {
            const size_t close = closingBracket(text, i);
            if (close == kNone)
                return std::nullopt;
            trailer.kind = text[i] == '(' ? Trailer::Kind::Call : Trailer::Kind::Subscript;
            trailer.inner = trimmed(text.substr(i + 1, close - i - 1));
            trailer.end = close + 1;
        } else {
            break;
        }
        i = trailer.end;
        primary.trailers.push_back(trailer);
    }
    primary.end = i;
    return primary;
}

std::optional<Primary> wholePrimary(std::string_view text) {
    std::optional<Primary> primary = primaryAt(text, 0);
    if (!primary || primary->end != text.size())
        return std::nullopt;
    return primary;
}

std::vector<Primary> primariesOf(std::string_view text) {
    std::vector<Primary> primaries;
    collectPrimaries(text, 0, text.size(), primaries);
    return primaries;
}

std::vector<std::string_view> topLevelItems(std::string_view text) {
    std::vector<std::string_view> items;
    if (trimmed(text).empty())
        return items;
    size_t start = 0;
    forTopLevel(text, [&](size_t i) {
        if (text[i] == ',') {
            items.push_back(trimmed(text.substr(start, i - start)));
            start = i + 1;
        }
        return true;
    });
    items.push_back(trimmed(text.substr(start)));
    return items;
}

size_t findTopLevel(std::string_view text, std::string_view token) {
    size_t found = kNone;
    forTopLevel(text, [&](size_t i) {
        if (text.substr(i).starts_with(token))
            found = i;
        return found == kNone;
    });
    return found;
}

std::vector<size_t> topLevelAssignments(std::string_view text) {
    std::vector<size_t> found;
    forTopLevel(text, [&](size_t i) {
        const bool plain = text[i] == '=' && (i + 1 == text.size() || text[i + 1] != '=') &&
                           (i == 0 || std::string_view("=!<>+-*/%&|^@:~").find(text[i - 1]) ==
                                          std::string_view::npos);
        if (plain)
            found.push_back(i);
        return true;
    });
    return found;
}

bool hasTopLevelWord(std::string_view text, std::initializer_list<std::string_view> words) {
    bool found = false;
    forTopLevel(text, [&](size_t i) {
        if (isNameStart(text[i]) && atNameBoundary(text, i)) {
            size_t end = i;
            while (end < text.size() && isNameChar(text[end]))
                ++end;
            found = std::find(words.begin(), words.end(), text.substr(i, end - i)) != words.end();
        }
        return !found;
    });
    return found;
}

std::string_view keywordOf(std::string_view argument) {
    size_t end = 0;
    if (argument.empty() || !isNameStart(argument.front()))
        return {};
    while (end < argument.size() && isNameChar(argument[end]))
        ++end;
    size_t equals = end;
    while (equals < argument.size() && isSpace(argument[equals]))
        ++equals;
    const bool keyword = equals < argument.size() && argument[equals] == '=' &&
                         (equals + 1 == argument.size() || argument[equals + 1] != '=');
    return keyword ? argument.substr(0, end) : std::string_view();
}

std::string_view keywordValue(std::string_view argument) {
    const size_t equals = argument.find('=');
    return equals == kNone ? std::string_view() : trimmed(argument.substr(equals + 1));
}

bool isPlainString(std::string_view text) {
    const size_t quote = quoteOfStringAt(text, 0);
    if (quote == kNone || stringEnd(text, quote) != text.size())
        return false;
    const std::string_view prefix = text.substr(0, quote);
    return prefix.find_first_of("fFbB") == kNone;
}

} // namespace stallscope::model::python_line
