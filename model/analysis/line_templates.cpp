#include "model/analysis/line_templates.h"

#include <algorithm>

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

std::string applied(std::string_view statement, const Edit& edit) {
    return text(statement.substr(0, edit.begin)) + edit.text + text(statement.substr(edit.end));
}

Arguments argumentsOf(std::string_view inner) {
    Arguments arguments;
    for (const std::string_view item : topLevelItems(inner)) {
        if (item.empty() || item.starts_with('*'))
            arguments.valid = false;
        else if (!keywordOf(item).empty())
            arguments.keyword.push_back(item);
        else if (arguments.keyword.empty())
            arguments.positional.push_back(item);
        else
            arguments.valid = false;
    }
    return arguments;
}

std::optional<std::string_view> maskOf(const Primary& primary, size_t index) {
    if (index >= primary.trailers.size() || primary.trailers[index].kind != Kind::Subscript)
        return std::nullopt;
    const std::string_view mask = primary.trailers[index].inner;
    if (mask.empty() || mask == "..." || topLevelItems(mask).size() != 1 ||
        python_line::findTopLevel(mask, ":") != std::string_view::npos)
        return std::nullopt;
    return mask;
}

std::string negated(std::string_view mask) {
    return wholePrimary(mask) ? "~" + text(mask) : "~(" + text(mask) + ")";
}

// ---- Values read into Python, kept on the GPU.

namespace {

bool readsAValue(std::string_view operand) {
    return operand.find(".item(") != std::string_view::npos ||
           operand.find("float(") != std::string_view::npos ||
           operand.find("int(") != std::string_view::npos ||
           operand.find(".tolist(") != std::string_view::npos;
}

// `loss.item()` or `float(loss)` as the tensor it reads, kept on the GPU: `loss.detach()`
// (no graph kept alive, as the Python number kept none).
std::optional<std::string> keptOnGpu(std::string_view operand) {
    const std::optional<Primary> primary = wholePrimary(operand);
    if (!primary || (!primary->startsWithName() && primary->atom.front() != '('))
        return std::nullopt;
    const std::vector<Trailer>& trailers = primary->trailers;
    const size_t count = trailers.size();
    if (count >= 2 && trailers[count - 2].is(Kind::Attribute, "item") &&
        trailers[count - 1].kind == Kind::Call && trailers[count - 1].inner.empty())
        return readsAValue(operand.substr(0, trailers[count - 2].begin))
                   ? std::nullopt
                   : std::optional(text(operand.substr(0, trailers[count - 2].begin)) +
                                   ".detach()");
    if (primary->atom == "float" && count == 1 && trailers[0].kind == Kind::Call) {
        const Arguments arguments = argumentsOf(trailers[0].inner);
        if (!arguments.valid || arguments.positional.size() != 1 || !arguments.keyword.empty())
            return std::nullopt;
        const std::string_view tensor = arguments.positional[0];
        const std::optional<Primary> read = wholePrimary(tensor);
        if ((read && !read->startsWithName() && read->atom.front() != '(') || readsAValue(tensor))
            return std::nullopt; // float("inf") reads no tensor
        return read ? text(tensor) + ".detach()" : "(" + text(tensor) + ").detach()";
    }
    return std::nullopt;
}

// `expression` with its one read kept on the GPU, when it is operands joined by + - * / (each a
// primary or number, with an optional minus) and no other operand reads a value.
std::optional<Edit> readKeptOnGpu(std::string_view expression) {
    std::optional<Edit> read;
    size_t i = 0;
    const auto skipSpaces = [&expression](size_t at) {
        while (at < expression.size() && expression[at] == ' ')
            ++at;
        return at;
    };
    while (true) {
        if (i < expression.size() && expression[i] == '-')
            i = skipSpaces(i + 1);
        const std::optional<Primary> operand = python_line::primaryAt(expression, i);
        if (!operand)
            return std::nullopt;
        const std::string_view written = slice(expression, i, operand->end);
        if (std::optional<std::string> kept = keptOnGpu(written)) {
            if (read)
                return std::nullopt;
            read = Edit{i, operand->end, std::move(*kept)};
        } else if (readsAValue(written)) {
            return std::nullopt;
        }
        i = skipSpaces(operand->end);
        if (i == expression.size())
            break;
        const char op = expression[i];
        const bool arithmetic = op == '+' || op == '-' || op == '*' || op == '/';
        if (!arithmetic ||
            (i + 1 < expression.size() && (expression[i + 1] == op || expression[i + 1] == '=')))
            return std::nullopt; // ** // and anything else: not a plain sum or product
        i = skipSpaces(i + 1);
    }
    return read;
}

} // namespace

// `total += loss.item()` → `total += loss.detach()`.
std::optional<LineRewrite> accumulatedOnGpu(std::string_view statement) {
    const size_t op = python_line::findTopLevel(statement, "+=");
    if (op == std::string_view::npos)
        return std::nullopt;
    const std::string_view target = trimmed(statement.substr(0, op));
    const std::optional<Primary> total = wholePrimary(target);
    const std::string_view sum = trimmed(statement.substr(op + 2));
    if (!total || !total->startsWithName() || sum.empty())
        return std::nullopt;
    std::optional<Edit> read = readKeptOnGpu(sum);
    if (!read)
        return std::nullopt;
    read->begin += offsetIn(statement, sum);
    read->end += offsetIn(statement, sum);
    return LineRewrite{applied(statement, *read),
                       "`" + text(target) +
                           "` becomes a tensor on the GPU: read it once after the loop, `" +
                           text(target) + ".item()`"};
}

// `losses.append(loss.item())` → `losses.append(loss.detach())`.
std::optional<LineRewrite> appendedOnGpu(std::string_view statement) {
    const std::optional<Primary> call = wholePrimary(statement);
    if (!call || !call->startsWithName() || call->trailers.size() < 2)
        return std::nullopt;
    const Trailer& arguments = call->trailers.back();
    const Trailer& append = call->trailers[call->trailers.size() - 2];
    if (arguments.kind != Kind::Call || !append.is(Kind::Attribute, "append"))
        return std::nullopt;
    const Arguments value = argumentsOf(arguments.inner);
    if (!value.valid || value.positional.size() != 1 || !value.keyword.empty())
        return std::nullopt;
    std::optional<Edit> read = readKeptOnGpu(value.positional[0]);
    if (!read)
        return std::nullopt;
    read->begin += offsetIn(statement, value.positional[0]);
    read->end += offsetIn(statement, value.positional[0]);
    const std::string list = text(slice(statement, call->begin, append.begin));
    return LineRewrite{applied(statement, *read),
                       "`" + list +
                           "` then holds tensors on the GPU: read them once after the "
                           "loop, `torch.stack(" +
                           list + ").tolist()`"};
}

// `print(loss)` → `if step % 100 == 0: print(loss)`: printing a CUDA tensor always reads it.
std::optional<LineRewrite> printedEveryN(std::string_view statement) {
    const std::optional<Primary> call = wholePrimary(statement);
    if (!call || call->atom != "print" || call->trailers.size() != 1 ||
        call->trailers[0].kind != Kind::Call)
        return std::nullopt;
    return LineRewrite{"if step % 100 == 0: " + text(statement),
                       "step: your loop's step counter; 100: how often it prints"};
}

// ---- Copies through pinned memory.

// `x.to(device)` → `x.pin_memory().to(device, non_blocking=True)`; `.cuda()` alike.
std::optional<LineRewrite> uploadedFromPinned(std::string_view statement) {
    std::optional<Edit> edit;
    int copies = 0;
    for (const Primary& primary : primariesOf(statement))
        for (size_t k = 0; k + 1 < primary.trailers.size(); ++k) {
            const Trailer& method = primary.trailers[k];
            const Trailer& call = primary.trailers[k + 1];
            const bool to = method.is(Kind::Attribute, "to");
            if ((!to && !method.is(Kind::Attribute, "cuda")) || call.kind != Kind::Call)
                continue;
            ++copies;
            const std::string_view source = slice(statement, primary.begin, method.begin);
            const Arguments arguments = argumentsOf(call.inner);
            if (!arguments.valid || source.ends_with(".pin_memory()") ||
                arguments.positional.size() > (to ? 2u : 1u))
                continue;
            bool nonBlocking = false, device = !to || !arguments.positional.empty(), known = true;
            for (const std::string_view keyword : arguments.keyword) {
                if (keywordOf(keyword) == "non_blocking")
                    known = known && keywordValue(keyword) == "True";
                nonBlocking |= keywordOf(keyword) == "non_blocking";
                device |= keywordOf(keyword) == "device";
            }
            if (!known || !device)
                continue;
            const std::string rewrittenArguments = nonBlocking ? text(call.inner)
                                                   : call.inner.empty()
                                                       ? std::string("non_blocking=True")
                                                       : text(call.inner) + ", non_blocking=True";
            edit = Edit{method.begin, call.end,
                        ".pin_memory()." + text(method.name) + "(" + rewrittenArguments + ")"};
        }
    if (copies != 1 || !edit)
        return std::nullopt;
    return LineRewrite{applied(statement, *edit), {}};
}

// `torch.tensor(data, device="cuda")` → `torch.tensor(data).pin_memory().to("cuda",
// non_blocking=True)`.
std::optional<LineRewrite> builtInPinnedMemory(std::string_view statement) {
    std::optional<Edit> edit;
    int builds = 0;
    for (const Primary& primary : primariesOf(statement)) {
        const std::vector<Trailer>& trailers = primary.trailers;
        if (primary.atom != "torch" || trailers.size() < 2 ||
            !(trailers[0].is(Kind::Attribute, "tensor") ||
              trailers[0].is(Kind::Attribute, "as_tensor")) ||
            trailers[1].kind != Kind::Call)
            continue;
        ++builds;
        const Arguments arguments = argumentsOf(trailers[1].inner);
        if (!arguments.valid || arguments.positional.size() != 1)
            continue;
        std::string kept = text(arguments.positional[0]);
        std::string_view device;
        bool known = true;
        for (const std::string_view keyword : arguments.keyword) {
            if (keywordOf(keyword) == "device" && device.empty())
                device = keywordValue(keyword);
            else if (keywordOf(keyword) == "dtype")
                kept += ", " + text(keyword);
            else
                known = false; // requires_grad (a leaf), pin_memory, copy: not the same tensor
        }
        if (!known || device.empty())
            continue;
        edit = Edit{primary.begin, trailers[1].end,
                    "torch." + text(trailers[0].name) + "(" + kept + ").pin_memory().to(" +
                        text(device) + ", non_blocking=True)"};
    }
    if (builds != 1 || !edit)
        return std::nullopt;
    return LineRewrite{applied(statement, *edit), {}};
}

} // namespace stallscope::model::line_templates
