#include "model/interop/kineto_names.h"

#include "model/session/python_frame_name.h"
#include "model/session/session_database.h"

#include <array>
#include <charconv>
#include <cstdio>

namespace stallscope::model {

using format::CopyKind;
using format::MemoryKind;
using format::SyncKind;

namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// The words Kineto writes for format::MemoryKind and format::CopyKind, indexed by the kind.
constexpr std::array<std::string_view, 8> kMemoryWords = {
    "Unknown", "Pageable", "Pinned", "Device", "Array", "Managed", "DeviceStatic", "ManagedStatic"};
constexpr std::array<std::string_view, 11> kCopyWords = {
    "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};

// The kind `word` names in `words`, or 0 (Unknown).
template <size_t N>
int kindOfWord(const std::array<std::string_view, N>& words, std::string_view word) {
    for (size_t kind = 1; kind < N; ++kind) {
        if (words[kind] == word)
            return static_cast<int>(kind);
    }
    return 0;
}

// words[kind], or words[0] (Unknown) when `kind` is out of range.
template <size_t N>
std::string_view wordOfKind(const std::array<std::string_view, N>& words, int kind) {
    return kind >= 0 && static_cast<size_t>(kind) < N ? words[kind] : words[0];
}

MemoryKind memoryKind(std::string_view word) {
    return static_cast<MemoryKind>(kindOfWord(kMemoryWords, word));
}

} // namespace

ApiSyncClass classifyApi(std::string_view n) {
    ApiSyncClass result;
    if (n.size() < 8 || n[0] != 'c' || n[1] != 'u')
        return result;
    if (n == "cudaStreamSynchronize" || n == "cuStreamSynchronize")
        result.kind = static_cast<int>(SyncKind::Stream);
    else if (n == "cudaDeviceSynchronize" || n == "cuCtxSynchronize" ||
             n == "cudaThreadSynchronize")
        result.kind = static_cast<int>(SyncKind::Device);
    else if (n == "cudaEventSynchronize" || n == "cuEventSynchronize")
        result.kind = static_cast<int>(SyncKind::Event);
    else if (startsWith(n, "cudaStreamWaitEvent") || startsWith(n, "cuStreamWaitEvent"))
        result.kind = static_cast<int>(SyncKind::StreamWaitEvent);
    else if (startsWith(n, "cudaMemcpy") || startsWith(n, "cuMemcpy")) {
        const bool async = n.find("Async") != std::string_view::npos;
        // Peer and 2D/3D variants behave alike: only device->pageable or synchronous ones block.
        result.kind = static_cast<int>(SyncKind::BlockingCopy);
        result.copyCandidate = async ? 1 : 2;
    }
    return result;
}

void parseMemcpyName(std::string_view name, CopyKind* copyKind, MemoryKind* srcKind,
                     MemoryKind* dstKind) {
    *copyKind = CopyKind::Unknown;
    *srcKind = *dstKind = MemoryKind::Unknown;
    // "Memcpy DtoH (Device -> Pageable)"
    const size_t space = name.find(' ');
    if (space == std::string_view::npos)
        return;
    const size_t open = name.find('(', space);
    const std::string_view word =
        name.substr(space + 1, (open == std::string_view::npos ? name.size() : open) - space - 1);
    *copyKind = static_cast<CopyKind>(kindOfWord(kCopyWords, word.substr(0, word.find(' '))));
    if (open == std::string_view::npos)
        return;
    const size_t arrow = name.find(" -> ", open);
    const size_t close = name.find(')', open);
    if (arrow == std::string_view::npos || close == std::string_view::npos || arrow > close)
        return;
    *srcKind = memoryKind(name.substr(open + 1, arrow - open - 1));
    *dstKind = memoryKind(name.substr(arrow + 4, close - arrow - 4));
}

MemoryKind parseMemsetKind(std::string_view name) {
    // "Memset (Device)"
    const size_t open = name.find('(');
    const size_t close = name.find(')', open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || close == std::string_view::npos)
        return MemoryKind::Unknown;
    return memoryKind(name.substr(open + 1, close - open - 1));
}

std::string memcpyName(int copyKind, int srcKind, int dstKind) {
    std::string name = "Memcpy ";
    name += wordOfKind(kCopyWords, copyKind);
    name += " (";
    name += wordOfKind(kMemoryWords, srcKind);
    name += " -> ";
    name += wordOfKind(kMemoryWords, dstKind);
    name += ")";
    return name;
}

std::string memsetName(int dstKind) {
    std::string name = "Memset (";
    name += wordOfKind(kMemoryWords, dstKind);
    name += ")";
    return name;
}

const char* syncKindName(int kind) {
    static const char* names[] = {"unknown",           "stream synchronize", "device synchronize",
                                  "event synchronize", "stream wait event",  "pageable copy",
                                  "blocking copy",     "blocking memset",    "blocking alloc"};
    return kind >= 1 && kind <= format::kSyncKindMax ? names[kind] : names[0];
}

std::string stackEntryForFrame(const FrameInfo& frame) {
    if (frame.kind == format::FrameKind::Python) {
        if (frame.file.empty())
            return frame.function;
        if (isDefLineFrame(frame))
            return frame.file + "(" + std::to_string(frame.line) + "): " + frame.function;
        return frame.file + ":" + std::to_string(frame.line) + ": " + frame.function;
    }
    std::string text = "[native] ";
    if (!frame.function.empty()) {
        text += frame.function;
        if (!frame.file.empty())
            text += " (" + frame.file + ":" + std::to_string(frame.line) + ")";
    } else {
        char address[32];
        std::snprintf(address, sizeof address, "0x%llx",
                      static_cast<unsigned long long>(frame.address));
        text += address;
    }
    return text;
}

format::FrameRow frameRowFromStackEntry(const std::string& entry) {
    format::FrameRow row;
    if (startsWith(entry, "[native] ")) {
        row.kind = format::FrameKind::Native;
        row.function = entry.substr(9);
        return row;
    }
    row.kind = format::FrameKind::Python;
    const PythonFrameName def = PythonFrameName::parse(entry);
    if (!def.file.empty()) {
        row.file = def.file;
        row.line = def.line;
        row.function = def.function;
        row.column = kDefLineColumn;
        return row;
    }
    // `file:N: func`
    const size_t sep = entry.find(": ");
    const size_t colon = sep == std::string::npos ? sep : entry.rfind(':', sep - 1);
    if (colon != std::string::npos && colon > 0 && colon + 1 < sep) {
        int64_t line = 0;
        const char* digitsEnd = entry.data() + sep;
        const auto [end, ec] = std::from_chars(entry.data() + colon + 1, digitsEnd, line);
        if (ec == std::errc() && end == digitsEnd && line >= 0) { // else: not a line number
            row.file = entry.substr(0, colon);
            row.line = line;
            row.function = entry.substr(sep + 2);
            return row;
        }
    }
    row.function = def.function;
    return row;
}

} // namespace stallscope::model
