#include "model/analysis/line_rewrite.h"

#include "format/module_class.h"
#include "model/analysis/line_templates.h"
#include "model/analysis/python_line.h"

#include <algorithm>
#include <array>

namespace stallscope::model {

namespace {

using namespace line_templates;

// A line longer than this is no line a card quotes whole.
constexpr size_t kMaxStatementBytes = 400;

struct LineTemplate {
    std::string_view operation; // SyncOperation::id
    std::optional<LineRewrite> (*rewrite)(std::string_view statement);
};

// Tried in this order; docs/insights.md lists them under "The operations that sync".
constexpr auto kTemplates = std::to_array<LineTemplate>({
    {"item", accumulatedOnGpu},
    {"item", appendedOnGpu},
    {"scalar-conversion", accumulatedOnGpu},
    {"scalar-conversion", appendedOnGpu},
    {"print-tensor", printedEveryN},
    {"format-tensor", printedEveryN},
    {"pageable-upload", uploadedFromPinned},
    {"tensor-from-python", builtInPinnedMemory},
    {"nonzero", nonzeroStatic},
    {"where-one-arg", whereStatic},
    {"bool-mask-index", maskedLoss},
    {"bool-mask-index", maskedSum},
    {"masked-select", maskedSelectSum},
    {"bool-mask-assign", maskedFill},
    {"assert-tensor", asyncAssert},
    {"cuda-synchronize", deletedSynchronize},
    {"empty-cache", deletedEmptyCache},
});

} // namespace

std::optional<LineRewrite> rewrittenLine(const SyncOperation& operation, std::string_view line) {
    const std::string_view statement = python_line::trimmed(line);
    if (statement.size() > kMaxStatementBytes || !python_line::isWholeStatement(statement))
        return std::nullopt;
    for (const LineTemplate& candidate : kTemplates)
        if (candidate.operation == operation.id)
            if (std::optional<LineRewrite> rewrite = candidate.rewrite(statement))
                return rewrite;
    return std::nullopt;
}

bool hasLineTemplate(std::string_view id) {
    return std::any_of(kTemplates.begin(), kTemplates.end(),
                       [id](const LineTemplate& candidate) { return candidate.operation == id; });
}

std::optional<LineRewrite> siteLineRewrite(const SyncOperation* operation,
                                           const SyncEvidence& evidence, const SourceSite& site) {
    if (!operation || site.language != SourceLanguage::Python || site.lineIsDefinition)
        return std::nullopt;
    if (!evidence.library.empty() &&
        !format::libraryFileLabel(evidence.library.file).starts_with("torch/"))
        return std::nullopt;
    return rewrittenLine(*operation, evidence.line);
}

} // namespace stallscope::model
