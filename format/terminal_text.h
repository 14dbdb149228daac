// Text from a file on its way to a terminal (`stallscope --info`, --insights, error messages, the
// command-line tools): control characters are shown, never obeyed, so a crafted meta value or
// kernel name cannot retitle the window, move the cursor or hide lines. ESC and the other C0
// controls, DEL and bytes that are not UTF-8 become \xNN, the C1 controls (U+0080..U+009F) \u00NN;
// tab stays, and newline stays where the text is several lines (`keepNewlines`).
#pragma once

#include "format/session_tables.h"

#include <string>
#include <string_view>

namespace stallscope::format {

std::string terminalSafe(std::string_view text, bool keepNewlines = true);

// The length of the well-formed UTF-8 sequence at the start of `text` (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF), or 0 when it is not one; for writers whose output
// must be valid UTF-8 (JSON).
size_t utf8SequenceLength(std::string_view text);

// `text` cut to at most `maxBytes` (at a UTF-8 character's start), ending in "… (N bytes)" when
// cut: how a value read from a file is kept or shown without its size reaching every view.
// `wholeBytes`: the size of the value `text` begins (when only its start was read).
std::string clippedText(std::string_view text, size_t maxBytes, size_t wholeBytes = 0);
// One line of a file's text for a view or a line-oriented output: control characters (newlines
// too) escaped as terminalSafe() does, at most `maxBytes` of the original shown. The default
// leaves a meta value as the loader kept it (kMaxMetaValueBytes and its "… (N bytes)").
std::string shownLine(std::string_view text, size_t maxBytes = kMaxMetaValueBytes + 64);
// How much of a name (a site, a kernel) a line-oriented output shows.
inline constexpr size_t kShownNameBytes = 64 * 1024;

} // namespace stallscope::format
