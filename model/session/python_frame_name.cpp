#include "model/session/python_frame_name.h"

#include "model/session/session_database.h"

#include <charconv>

namespace stallscope::model {

namespace {

std::string_view stripObjectAddress(std::string_view name) {
    // `<built-in method item of Tensor object at 0x7f8487832b20>`: the address differs per
    // object, the call site does not.
    const size_t at = name.rfind(" at 0x");
    if (at == std::string_view::npos || name.empty() || name.back() != '>')
        return name;
    for (size_t i = at + 6; i + 1 < name.size(); ++i) {
        const char c = name[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return name;
    }
    return name.substr(0, at);
}

std::string baseName(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

PythonFrameName PythonFrameName::parse(std::string_view name) {
    PythonFrameName frame;
    // `file(N): func` — find "): " after a run of digits preceded by '('.
    const size_t close = name.find("): ");
    if (close != std::string_view::npos && close > 0) {
        const size_t open = name.rfind('(', close);
        if (open != std::string_view::npos && open > 0 && open + 1 < close) {
            int64_t line = 0;
            const char* digitsEnd = name.data() + close;
            const auto [end, ec] = std::from_chars(name.data() + open + 1, digitsEnd, line);
            if (ec == std::errc() && end == digitsEnd && line >= 0) { // else: not a line number
                frame.file.assign(name.substr(0, open));
                frame.line = line;
                frame.function.assign(name.substr(close + 3));
                return frame;
            }
        }
    }
    const std::string_view stripped = stripObjectAddress(name);
    frame.function.assign(stripped.empty() ? name : stripped);
    if (stripped.size() < name.size())
        frame.function.push_back('>');
    return frame;
}

std::string PythonFrameName::kinetoName() const {
    if (file.empty())
        return function;
    return file + "(" + std::to_string(line) + "): " + function;
}

bool isDefLineFrame(const FrameInfo& frame) {
    return frame.kind == format::FrameKind::Python && frame.column == kDefLineColumn;
}

std::string frameChipLabel(const FrameInfo& frame) {
    std::string function = frame.function;
    if (frame.kind == format::FrameKind::Python && !function.empty() && function.front() != '<')
        function += "()";
    if (frame.file.empty())
        return function;
    std::string label = baseName(frame.file);
    if (!isDefLineFrame(frame) && frame.line > 0)
        label += ":" + std::to_string(frame.line);
    return function.empty() ? label : label + " · " + function;
}

} // namespace stallscope::model
