#include "model/analysis/line_templates.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace stallscope::model::line_templates {

using python_line::keywordOf;
using python_line::keywordValue;
using python_line::primariesOf;
using python_line::Primary;
using python_line::topLevelItems;
using python_line::Trailer;
using python_line::trimmed;
using python_line::wholePrimary;
using Kind = Trailer::Kind;

namespace {

// The size the static-size rewrites need is the user's to choose.
constexpr std::string_view kStaticSizeNote =
    "N: the most nonzero elements you expect, a number you choose; the indices past their count "
    "are -1 (fill_value=), mask them before use";

// `0`, `-1`, `"x"`, `None`, `...`: an index that selects no data-dependent number of elements.
bool isLiteral(std::string_view index) {
    if (index.starts_with('-'))
        index = trimmed(index.substr(1));
    const std::optional<Primary> literal = wholePrimary(index);
    return index == "None" || index == "..." ||
           (literal && literal->trailers.empty() && !literal->startsWithName() &&
            literal->atom.front() != '(' && literal->atom.front() != '[' &&
            literal->atom.front() != '{');
}

// Whether every subscript of the statement but those at `masks` (offsets of their '[') indexes by
// literals and slices (`batch["x"]`, `out[0]`, `h[:, -1]`): no other one may be the mask that
// synced.
bool noOtherMask(std::string_view statement, std::initializer_list<size_t> masks) {
    for (const Primary& primary : primariesOf(statement))
        for (const Trailer& trailer : primary.trailers) {
            if (trailer.kind != Kind::Subscript ||
                std::find(masks.begin(), masks.end(), trailer.begin) != masks.end())
                continue;
            for (const std::string_view index : topLevelItems(trailer.inner))
                if (!isLiteral(index) &&
                    python_line::findTopLevel(index, ":") == std::string_view::npos)
                    return false;
        }
    return true;
}

// A Python scalar masked_fill_ takes as its value: `0`, `-1e9`, `float("-inf")`, `True`,
// `torch.finfo(x.dtype).min`.
bool isScalar(std::string_view value) {
    if (value.starts_with('-') || value.starts_with('+'))
        value = trimmed(value.substr(1));
    constexpr auto kNames = std::to_array<std::string_view>(
        {"True", "False", "math.inf", "math.nan", "torch.inf", "torch.nan"});
    if (std::find(kNames.begin(), kNames.end(), value) != kNames.end())
        return true;
    const std::optional<Primary> scalar = wholePrimary(value);
    if (!scalar)
        return false;
    const std::vector<Trailer>& trailers = scalar->trailers;
    if (trailers.empty())
        return std::isdigit(static_cast<unsigned char>(value.front())) || value.front() == '.';
    if (scalar->atom == "float")
        return trailers.size() == 1 && trailers[0].kind == Kind::Call &&
               python_line::isPlainString(trailers[0].inner);
    const bool limits =
        trailers[0].is(Kind::Attribute, "finfo") || trailers[0].is(Kind::Attribute, "iinfo");
    return scalar->atom == "torch" && trailers.size() == 3 && limits &&
           trailers[1].kind == Kind::Call && trailers[2].kind == Kind::Attribute &&
           (trailers[2].name == "min" || trailers[2].name == "max" || trailers[2].name == "eps" ||
            trailers[2].name == "tiny");
}

// The loss functions whose ignore_index leaves a target out as boolean-mask indexing does.
bool isClassLoss(std::string_view callee) {
    for (const std::string_view module : {"F.", "nn.functional.", "torch.nn.functional."})
        if (callee.starts_with(module)) {
            const std::string_view loss = callee.substr(module.size());
            return loss == "cross_entropy" || loss == "nll_loss";
        }
    return false;
}

bool isMeanOrSum(std::string_view reduction) {
    return reduction == "\"mean\"" || reduction == "'mean'" || reduction == "\"sum\"" ||
           reduction == "'sum'";
}

} // namespace

// `torch.nonzero(x)` → `torch.nonzero_static(x, size=N)`; `x.nonzero()`, `argwhere` alike.
std::optional<LineRewrite> nonzeroStatic(std::string_view statement) {
    std::optional<Edit> edit;
    int calls = 0;
    for (const Primary& primary : primariesOf(statement))
        for (size_t k = 0; k < primary.trailers.size(); ++k) {
            const Trailer& method = primary.trailers[k];
            if (!method.is(Kind::Attribute, "nonzero") && !method.is(Kind::Attribute, "argwhere"))
                continue;
            ++calls;
            if (k + 1 == primary.trailers.size() || primary.trailers[k + 1].kind != Kind::Call)
                continue;
            const Trailer& call = primary.trailers[k + 1];
            const Arguments arguments = argumentsOf(call.inner);
            if (!arguments.valid || !arguments.keyword.empty())
                continue;
            if (k == 0 && primary.atom == "torch") {
                if (arguments.positional.size() == 1)
                    edit =
                        Edit{primary.begin, call.end,
                             "torch.nonzero_static(" + text(arguments.positional[0]) + ", size=N)"};
            } else if (arguments.positional.empty()) {
                edit = Edit{method.begin, call.end, ".nonzero_static(size=N)"};
            }
        }
    if (calls != 1 || !edit)
        return std::nullopt;
    return LineRewrite{applied(statement, *edit), text(kStaticSizeNote)};
}

// `torch.where(cond)` → `torch.nonzero_static(cond, size=N).unbind(1)`: the same tuple of
// index tensors, one per dimension, of a fixed length.
std::optional<LineRewrite> whereStatic(std::string_view statement) {
    std::optional<Edit> edit;
    int calls = 0;
    for (const Primary& primary : primariesOf(statement))
        for (size_t k = 0; k < primary.trailers.size(); ++k) {
            if (!primary.trailers[k].is(Kind::Attribute, "where"))
                continue;
            ++calls;
            if (k != 0 || primary.atom != "torch" || primary.trailers.size() < 2 ||
                primary.trailers[1].kind != Kind::Call)
                continue;
            const Arguments arguments = argumentsOf(primary.trailers[1].inner);
            if (arguments.valid && arguments.positional.size() == 1 && arguments.keyword.empty())
                edit = Edit{primary.begin, primary.trailers[1].end,
                            "torch.nonzero_static(" + text(arguments.positional[0]) +
                                ", size=N).unbind(1)"};
        }
    if (calls != 1 || !edit)
        return std::nullopt;
    return LineRewrite{applied(statement, *edit), text(kStaticSizeNote)};
}

// `F.cross_entropy(logits[mask], labels[mask])` → `F.cross_entropy(logits.flatten(0, -2),
// labels.masked_fill(~mask, -100).flatten(), ignore_index=-100)`: the left-out targets are
// ignored instead of removed, and the mean (or sum) is over the same ones. flatten() keeps the
// rows in the order the mask selects them, for (batch, classes) and (batch, tokens, vocabulary)
// logits alike.
std::optional<LineRewrite> maskedLoss(std::string_view statement) {
    std::optional<Edit> edit;
    std::string note;
    int losses = 0;
    for (const Primary& primary : primariesOf(statement)) {
        const std::vector<Trailer>& trailers = primary.trailers;
        for (const Trailer& trailer : trailers)
            losses += trailer.is(Kind::Attribute, "cross_entropy") ||
                      trailer.is(Kind::Attribute, "nll_loss");
        size_t call = 0;
        while (call < trailers.size() && trailers[call].kind == Kind::Attribute)
            ++call;
        if (!primary.startsWithName() || call == trailers.size() ||
            trailers[call].kind != Kind::Call ||
            !isClassLoss(slice(statement, primary.begin, primary.dottedNameEnd())))
            continue;
        const Arguments arguments = argumentsOf(trailers[call].inner);
        if (!arguments.valid || arguments.positional.size() != 2)
            continue;
        const std::string_view inputText = arguments.positional[0];
        const std::string_view targetText = arguments.positional[1];
        const std::optional<Primary> input = wholePrimary(inputText);
        const std::optional<Primary> target = wholePrimary(targetText);
        if (!input || !target || input->trailers.empty() || target->trailers.empty())
            continue;
        const std::optional<std::string_view> mask = maskOf(*input, input->trailers.size() - 1);
        if (!mask || maskOf(*target, target->trailers.size() - 1) != mask ||
            !noOtherMask(statement,
                         {offsetIn(statement, inputText) + input->trailers.back().begin,
                          offsetIn(statement, targetText) + target->trailers.back().begin}))
            continue;
        const std::string_view logits = slice(inputText, 0, input->trailers.back().begin);
        const std::string_view labels = slice(targetText, 0, target->trailers.back().begin);
        std::string rewritten = "(" + text(logits) + ".flatten(0, -2), " + text(labels) +
                                ".masked_fill(" + negated(*mask) + ", -100).flatten()";
        bool known = true;
        for (const std::string_view keyword : arguments.keyword) {
            const std::string_view name = keywordOf(keyword);
            known = known && (name == "weight" || name == "label_smoothing" ||
                              (name == "reduction" && isMeanOrSum(keywordValue(keyword))));
            rewritten += ", " + text(keyword);
        }
        if (!known)
            continue; // ignore_index of its own, reduction="none" (one loss per target)
        edit = Edit{trailers[call].begin, trailers[call].end, rewritten + ", ignore_index=-100)"};
        note = "assumes `" + text(*mask) + "` has the shape of `" + text(labels) + "`";
    }
    if (losses != 1 || !edit)
        return std::nullopt;
    return LineRewrite{applied(statement, *edit), note};
}

// `x[mask].sum()` → `torch.where(mask, x, 0).sum()` (not `(x * mask)`: an inf or nan left out
// stays out).
std::optional<LineRewrite> maskedSum(std::string_view statement) {
    std::optional<Edit> edit;
    size_t maskAt = 0;
    std::string note;
    int sums = 0;
    for (const Primary& primary : primariesOf(statement)) {
        const std::vector<Trailer>& trailers = primary.trailers;
        for (size_t k = 0; k + 2 < trailers.size(); ++k) {
            const std::optional<std::string_view> mask = maskOf(primary, k);
            if (!mask || !trailers[k + 1].is(Kind::Attribute, "sum") ||
                trailers[k + 2].kind != Kind::Call || !trailers[k + 2].inner.empty())
                continue;
            ++sums;
            const std::string_view values = slice(statement, primary.begin, trailers[k].begin);
            maskAt = trailers[k].begin;
            edit = Edit{primary.begin, trailers[k + 2].end,
                        "torch.where(" + text(*mask) + ", " + text(values) + ", 0).sum()"};
            note = "assumes `" + text(*mask) + "` has the shape of `" + text(values) + "`";
        }
    }
    if (sums != 1 || !edit || !noOtherMask(statement, {maskAt}))
        return std::nullopt;
    return LineRewrite{applied(statement, *edit), note};
}

// `torch.masked_select(x, mask).sum()` → `torch.where(mask, x, 0).sum()`: both broadcast x and
// the mask alike, so the sums are the same.
std::optional<LineRewrite> maskedSelectSum(std::string_view statement) {
    std::optional<Edit> edit;
    int selects = 0;
    for (const Primary& primary : primariesOf(statement)) {
        const std::vector<Trailer>& trailers = primary.trailers;
        for (size_t k = 0; k < trailers.size(); ++k) {
            if (!trailers[k].is(Kind::Attribute, "masked_select"))
                continue;
            ++selects;
            if (k + 3 >= trailers.size() || trailers[k + 1].kind != Kind::Call ||
                !trailers[k + 2].is(Kind::Attribute, "sum") || trailers[k + 3].kind != Kind::Call ||
                !trailers[k + 3].inner.empty())
                continue;
            const Arguments arguments = argumentsOf(trailers[k + 1].inner);
            if (!arguments.valid || !arguments.keyword.empty())
                continue;
            const bool function = k == 0 && primary.atom == "torch";
            if (arguments.positional.size() != (function ? 2u : 1u))
                continue;
            const std::string_view values =
                function ? arguments.positional[0]
                         : slice(statement, primary.begin, trailers[k].begin);
            edit = Edit{primary.begin, trailers[k + 3].end,
                        "torch.where(" + text(arguments.positional.back()) + ", " + text(values) +
                            ", 0).sum()"};
        }
    }
    if (selects != 1 || !edit)
        return std::nullopt;
    return LineRewrite{applied(statement, *edit), {}};
}

// `x[mask] = 0` → `x.masked_fill_(mask, 0)`, for a Python scalar value (a tensor of values
// fills the selected elements one by one, which masked_fill_ does not).
std::optional<LineRewrite> maskedFill(std::string_view statement) {
    const std::vector<size_t> assignments = python_line::topLevelAssignments(statement);
    if (assignments.size() != 1)
        return std::nullopt;
    const std::string_view target = trimmed(statement.substr(0, assignments[0]));
    const std::string_view value = trimmed(statement.substr(assignments[0] + 1));
    const std::optional<Primary> element = wholePrimary(target);
    if (!element || !element->startsWithName() || element->trailers.empty() || !isScalar(value))
        return std::nullopt;
    const std::optional<std::string_view> mask = maskOf(*element, element->trailers.size() - 1);
    if (!mask ||
        !noOtherMask(statement, {offsetIn(statement, target) + element->trailers.back().begin}))
        return std::nullopt;
    const std::string_view tensor = slice(target, 0, element->trailers.back().begin);
    return LineRewrite{text(tensor) + ".masked_fill_(" + text(*mask) + ", " + text(value) + ")",
                       "assumes `" + text(*mask) + "` has the shape of `" + text(tensor) + "`"};
}

// `assert torch.isfinite(loss)` → `torch._assert_async(torch.isfinite(loss))`, a plain string
// message kept.
std::optional<LineRewrite> asyncAssert(std::string_view statement) {
    if (!statement.starts_with("assert") || statement.size() < 7 ||
        (statement[6] != ' ' && statement[6] != '('))
        return std::nullopt;
    const std::vector<std::string_view> items = topLevelItems(statement.substr(6));
    if (items.empty() || items.size() > 2 ||
        (items.size() == 2 && !python_line::isPlainString(items[1])))
        return std::nullopt;
    std::string_view condition = items[0];
    // `assert(x.all())`: its parentheses are the condition's (a tuple would always pass).
    if (const std::optional<Primary> group = wholePrimary(condition);
        group && group->atom.front() == '(' && group->trailers.empty()) {
        condition = trimmed(condition.substr(1, condition.size() - 2));
        if (topLevelItems(condition).size() != 1)
            return std::nullopt;
    }
    // A Python bool of its own (`a and b`, `not t`) is no tensor to check on the GPU.
    if (condition.empty() ||
        python_line::hasTopLevelWord(condition, {"and", "or", "not", "if", "is", "in", "lambda"}))
        return std::nullopt;
    return LineRewrite{"torch._assert_async(" + text(condition) +
                           (items.size() == 2 ? ", " + text(items[1]) : std::string()) + ")",
                       "the GPU checks it: a failure ends the process at a later CUDA call "
                       "instead of raising AssertionError here"};
}

// `torch.cuda.synchronize()` → deleted.
std::optional<LineRewrite> deletedSynchronize(std::string_view statement) {
    const std::optional<Primary> call = wholePrimary(statement);
    if (!call || call->atom != "torch" || call->trailers.size() != 3 ||
        !call->trailers[0].is(Kind::Attribute, "cuda") ||
        !call->trailers[1].is(Kind::Attribute, "synchronize") ||
        call->trailers[2].kind != Kind::Call || topLevelItems(call->trailers[2].inner).size() > 1)
        return std::nullopt;
    return LineRewrite{{},
                       "unless the host reads a copy made with non_blocking=True, or a GPU "
                       "timing, right after it"};
}

// `torch.cuda.empty_cache()` → deleted: the caching allocator reuses the blocks.
std::optional<LineRewrite> deletedEmptyCache(std::string_view statement) {
    const std::optional<Primary> call = wholePrimary(statement);
    if (!call || call->atom != "torch" || call->trailers.size() != 3 ||
        !call->trailers[0].is(Kind::Attribute, "cuda") ||
        !call->trailers[1].is(Kind::Attribute, "empty_cache") ||
        call->trailers[2].kind != Kind::Call || !call->trailers[2].inner.empty())
        return std::nullopt;
    return LineRewrite{{}, {}};
}

} // namespace stallscope::model::line_templates
