#include "model/session/collective_names.h"

#include "model/session/number_format.h"

#include <cctype>

namespace stallscope::model {

namespace {

// The kernel's function name without Itanium mangling's "_Z<length>" prefix (a plain function
// name: nested names, "_ZN…", are no NCCL kernels) and without its parameter list.
std::string_view functionName(std::string_view name) {
    if (name.starts_with("_Z")) {
        size_t at = 2, length = 0;
        while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at])) &&
               length < name.size())
            length = length * 10 + static_cast<size_t>(name[at++] - '0');
        if (at == 2 || length > name.size() - at)
            return {};
        return name.substr(at, length);
    }
    return name.substr(0, name.find('('));
}

} // namespace

bool isCollectiveKernelName(std::string_view name) {
    return functionName(name).starts_with("nccl");
}

std::string collectiveLabel(std::string_view name) {
    std::string_view function = functionName(name);
    for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
        if (!function.starts_with(prefix))
            continue;
        function.remove_prefix(prefix.size());
        std::string label = "NCCL";
        char separator = ' ';
        for (size_t start = 0; start < function.size();) {
            size_t end = function.find('_', start);
            if (end == std::string_view::npos)
                end = function.size();
            std::string_view part = function.substr(start, end - start);
            // The algorithm and protocol are one part ("RING_LL", "TREE_SIMPLE").
            if ((part == "RING" || part == "TREE" || part == "COLLNET" || part == "NVLS") &&
                end < function.size()) {
                size_t next = function.find('_', end + 1);
                if (next == std::string_view::npos)
                    next = function.size();
                part = function.substr(start, next - start);
                end = next;
            }
            if (part == "t" && separator == '.') { // int8_t, uint64_t: one data type
                label += "_t";
            } else if (!part.empty()) {
                label += separator == ' ' ? " " : " · ";
                label += part;
                separator = '.';
            }
            start = end + 1;
        }
        return label;
    }
    return {};
}

std::string collectiveCallText(const format::CollectiveCallRow& call) {
    std::string text = call.function.empty() ? std::string("NCCL call") : call.function;
    if (call.calls > 1)
        text += " ×" + formatCount(call.calls);
    if (call.bytes && *call.bytes >= 0)
        text += " · " + formatBytes(*call.bytes);
    text += " (" + formatCount(call.count);
    if (!call.datatype.empty())
        text += " × " + call.datatype;
    return text + ")";
}

std::string collectiveLabel(std::string_view name, const format::CollectiveCallRow& call) {
    std::string label = collectiveLabel(name);
    if (label.empty())
        return collectiveCallText(call);
    std::string size = call.bytes && *call.bytes >= 0 ? formatBytes(*call.bytes)
                                                      : formatCount(call.count) + " elements";
    if (call.calls > 1)
        size += " in " + formatCount(call.calls) + " calls";
    // After "NCCL <collective>", the first part of the label.
    const size_t parts = label.find(" · ");
    return parts == std::string::npos ? label + " · " + size : label.insert(parts, " · " + size);
}

} // namespace stallscope::model
