#include "format/session_enums.h"

#include <array>

namespace stallscope::format {

namespace {

// names[kind] when kind indexes the table, else `fallback`.
template <size_t N>
std::string_view lookup(const std::array<std::string_view, N>& names, int kind,
                        std::string_view fallback) {
    return kind >= 0 && static_cast<size_t>(kind) < N ? names[kind] : fallback;
}

} // namespace

std::string_view syncKindName(int kind) {
    static constexpr std::array<std::string_view, kSyncKindMax + 1> kNames = {
        "sync", // 0 is no kind
        "stream synchronize",
        "device synchronize",
        "event synchronize",
        "stream wait event",
        "blocking copy to pageable memory",
        "blocking copy",
        "blocking memset",
        "blocking alloc/free"};
    return lookup(kNames, kind, kNames[0]);
}

std::string_view copyKindName(int kind) {
    static constexpr std::array<std::string_view, 11> kNames = {
        "", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
    return lookup(kNames, kind, kNames[0]);
}

std::string_view memoryKindName(int kind) {
    static constexpr std::array<std::string_view, 8> kNames = {
        "unknown", "pageable", "pinned",          "device",
        "array",   "managed",  "device (static)", "managed (static)"};
    return lookup(kNames, kind, kNames[0]);
}

} // namespace stallscope::format
