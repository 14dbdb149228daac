// The user's own line rewritten by a template of its operation (docs/insights.md, "The
// operations that sync"): `total += loss.item()` becomes `total += loss.detach()`,
// `loss = F.cross_entropy(logits[mask], labels[mask])` keeps its shapes with ignore_index. A
// template rewrites only the exact shape it knows, with the user's names, and only where the
// rewritten line means what the line meant (a placeholder the user fills, or an assumption it
// makes, is said in LineRewrite::note); any other line gets nothing, and the card gives the
// operation's recipe alone. Python lines only.
#pragma once

#include "model/analysis/insight.h"
#include "model/analysis/sync_operations.h"

#include <optional>
#include <string_view>

namespace stallscope::model {

// `line` (indentation and trailing spaces aside, its comment already cut off) rewritten by a
// template of `operation`; none when no template of it fits the line exactly.
std::optional<LineRewrite> rewrittenLine(const SyncOperation& operation, std::string_view line);
// Whether any template rewrites lines of the operation `id`.
bool hasLineTemplate(std::string_view id);
// A sync site's line rewritten: an executing Python line (not a def line standing in for it)
// that synced itself or through torch's own Python code (another library's frame between them:
// that library's code synced, not the line's text).
std::optional<LineRewrite> siteLineRewrite(const SyncOperation* operation,
                                           const SyncEvidence& evidence, const SourceSite& site);

} // namespace stallscope::model
