#include "format/session_enums.h"

#include "format/enum_names.h"

namespace stallscope::format {

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
    return nameOf(kNames, kind, kNames[0]);
}

std::string_view copyKindName(int kind) {
    static constexpr std::array<std::string_view, 11> kNames = {
        "", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
    return nameOf(kNames, kind, kNames[0]);
}

std::string_view memoryKindName(int kind) {
    static constexpr std::array<std::string_view, 8> kNames = {
        "unknown", "pageable", "pinned",          "device",
        "array",   "managed",  "device (static)", "managed (static)"};
    return nameOf(kNames, kind, kNames[0]);
}

} // namespace stallscope::format
