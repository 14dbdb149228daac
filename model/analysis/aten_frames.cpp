#include "model/analysis/aten_frames.h"

#include <cctype>

namespace stallscope::model {

namespace {

constexpr std::string_view kOps = "at::_ops::";
constexpr std::string_view kCall = "::call(";
constexpr std::string_view kGenerated = "torch::autograd::generated::";
constexpr std::string_view kApply = "::apply(";

// "at::_ops::nonzero::call(at::Tensor const&)" -> "nonzero"; "" for any other function.
std::string_view opOfCall(std::string_view function) {
    if (!function.starts_with(kOps))
        return {};
    const std::string_view rest = function.substr(kOps.size());
    const size_t call = rest.find(kCall);
    if (call == std::string_view::npos || rest.substr(0, call).find(':') != std::string_view::npos)
        return {};
    return rest.substr(0, call);
}

// "torch::autograd::generated::IndexBackward0::apply(...)" -> "IndexBackward0".
std::string_view nodeOfApply(std::string_view function) {
    if (!function.starts_with(kGenerated))
        return {};
    const std::string_view rest = function.substr(kGenerated.size());
    const size_t apply = rest.find(kApply);
    if (apply == std::string_view::npos)
        return {};
    const std::string_view node = rest.substr(0, apply);
    return node.find("Backward") != std::string_view::npos &&
                   node.find(':') == std::string_view::npos
               ? node
               : std::string_view{};
}

} // namespace

AtenFrames atenFramesOf(const std::vector<FrameInfo>& frames) {
    AtenFrames found;
    for (const FrameInfo& frame : frames) {
        if (frame.kind == format::FrameKind::Python)
            break;
        if (const std::string_view op = opOfCall(frame.function); !op.empty()) {
            if (found.syncingOp.empty())
                found.syncingOp = op;
            found.calledOp = op;
        }
        if (const std::string_view node = nodeOfApply(frame.function);
            !node.empty() && found.backwardNode.empty())
            found.backwardNode = node;
    }
    return found;
}

bool isBackwardOf(std::string_view node, std::string_view op) {
    const size_t backward = node.find("Backward");
    if (backward == std::string_view::npos || backward == 0)
        return false;
    // CamelCase to the operator's snake_case: "IndexPut" -> "index_put".
    std::string name;
    for (size_t i = 0; i < backward; ++i) {
        const auto c = static_cast<unsigned char>(node[i]);
        if (std::isupper(c) && i > 0)
            name += '_';
        name += static_cast<char>(std::tolower(c));
    }
    // In-place ops end in "_" ("index_put_"), overloads add "_Tensor", "_Scalar", ...
    std::string_view base = op;
    if (base.ends_with('_'))
        base.remove_suffix(1);
    if (base == name)
        return true;
    return base.size() > name.size() + 1 && base.starts_with(name) && base[name.size()] == '_' &&
           std::isupper(static_cast<unsigned char>(base[name.size() + 1]));
}

} // namespace stallscope::model
