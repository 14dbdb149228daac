// Text from a file on its way to a terminal (`stallscope --info`, --insights, error messages, the
// command-line tools): control characters are shown, never obeyed, so a crafted meta value or
// kernel name cannot retitle the window, move the cursor or hide lines. ESC and the other C0
// controls, DEL and bytes that are not UTF-8 become \xNN, the C1 controls (U+0080..U+009F) \u00NN;
// tab stays, and newline stays where the text is several lines (`keepNewlines`).
#pragma once

#include <string>
#include <string_view>

namespace stallscope::format {

std::string terminalSafe(std::string_view text, bool keepNewlines = true);

} // namespace stallscope::format
