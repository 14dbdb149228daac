#include "format/terminal_text.h"

#include <algorithm>
#include <cstdio>

namespace stallscope::format {

namespace {

bool isContinuation(unsigned char byte) {
    return (byte & 0xC0) == 0x80;
}

} // namespace

size_t utf8SequenceLength(std::string_view text) {
    if (text.empty())
        return 0;
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(0);
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF; // the allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        low = lead == 0xE0 ? 0xA0 : 0x80;
        high = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        low = lead == 0xF0 ? 0x90 : 0x80;
        high = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (text.size() < length || byte(1) < low || byte(1) > high)
        return 0;
    for (size_t i = 2; i < length; ++i)
        if (!isContinuation(byte(i)))
            return 0;
    return length;
}

namespace {

void appendEscape(std::string& out, const char* format, unsigned value) {
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, format, value);
    out += escaped;
}

} // namespace

std::string terminalSafe(std::string_view text, bool keepNewlines) {
    std::string out;
    out.reserve(text.size());
    while (!text.empty()) {
        const auto byte = static_cast<unsigned char>(text[0]);
        if (byte < 0x80) {
            const bool harmless =
                (byte >= 0x20 && byte != 0x7F) || byte == '\t' || (byte == '\n' && keepNewlines);
            if (harmless)
                out += text[0];
            else
                appendEscape(out, "\\x%02x", byte);
            text.remove_prefix(1);
            continue;
        }
        const size_t length = utf8SequenceLength(text);
        if (length == 0) {
            appendEscape(out, "\\x%02x", byte);
            text.remove_prefix(1);
            continue;
        }
        const auto second = static_cast<unsigned char>(text[1]);
        if (byte == 0xC2 && second < 0xA0) // U+0080..U+009F: the C1 controls (CSI, OSC, ...)
            appendEscape(out, "\\u%04x", second);
        else
            out.append(text.substr(0, length));
        text.remove_prefix(length);
    }
    return out;
}

std::string clippedText(std::string_view text, size_t maxBytes, size_t wholeBytes) {
    wholeBytes = std::max(wholeBytes, text.size());
    if (wholeBytes <= maxBytes)
        return std::string(text);
    size_t cut = std::min(maxBytes, text.size());
    while (cut > 0 && cut < text.size() && isContinuation(static_cast<unsigned char>(text[cut])))
        --cut;
    return std::string(text.substr(0, cut)) + "… (" + std::to_string(wholeBytes) + " bytes)";
}

std::string shownLine(std::string_view text, size_t maxBytes) {
    return terminalSafe(clippedText(text, maxBytes), false);
}

} // namespace stallscope::format
