// model/analysis/line_rewrite.h: the user's own line rewritten by its operation's template. Each
// template on the lines it rewrites (the exact text and what its note asks of the user) and on
// the look-alikes it must leave alone (the recipe stays); then through the insight engine: an
// embedded line rewritten on the finding, in the text output and the JSON, and a pinned copy's
// rewrite only where the copy uploads.
#include "model/analysis/insight_json.h"
#include "model/analysis/insight_text.h"
#include "model/analysis/line_rewrite.h"
#include "tests/model/insight_fixture.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <optional>

using namespace stallscope;
using format::CopyKind;
using format::MemoryKind;
using format::SyncKind;
using model::LineRewrite;
using testing::InsightFixture;

namespace {

// Null for an unknown id (which fails the test).
const model::SyncOperation* operation(const QString& id) {
    const model::SyncOperation* found = model::syncOperationById(id.toStdString());
    if (!found)
        STALLSCOPE_FAIL("no operation %s", qPrintable(id));
    return found;
}

// train.py with `line` as its line 41.
std::string trainSource(const std::string& line) {
    std::string text;
    for (int l = 1; l <= 45; ++l)
        text += (l == 41 ? line : "# line " + std::to_string(l)) + "\n";
    return text;
}

constexpr const char* kTrainPath = "/home/u/train.py";

} // namespace

class TestLineRewrite : public QObject {
    Q_OBJECT
private slots:
    void rewrites_data();
    void rewrites();
    void leavesAlone_data();
    void leavesAlone();
    void templatesOfItsOperationOnly();
    void shownBeforeTheRecipe();
    void sitesOfPythonLinesOnly();
    void everyTemplateIsDocumented();
    void embeddedLineRewrittenOnTheFinding();
    void lineWithoutTemplateKeepsTheRecipe();
    void pinnedCopyRewriteOnlyForUploads_data();
    void pinnedCopyRewriteOnlyForUploads();

private:
    testing::ScratchDir m_dir;
};

void TestLineRewrite::rewrites_data() {
    QTest::addColumn<QString>("operation");
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("rewritten");
    QTest::addColumn<QString>("note"); // a part of the note, "" for none
    // Reads kept on the GPU.
    QTest::newRow("accumulated item") << "item"
                                      << "        total += loss.item()  "
                                      << "total += loss.detach()"
                                      << "`total` becomes a tensor on the GPU: read it once after "
                                         "the loop, `total.item()`";
    QTest::newRow("accumulated, scaled") << "item"
                                         << "running_loss += loss.item() * x.size(0)"
                                         << "running_loss += loss.detach() * x.size(0)"
                                         << "`running_loss` becomes";
    QTest::newRow("accumulated count") << "item"
                                       << "correct += (pred == y).sum().item()"
                                       << "correct += (pred == y).sum().detach()"
                                       << "`correct` becomes";
    QTest::newRow("accumulated into a dict") << "item"
                                             << "stats[\"loss\"] += -loss.item() / n"
                                             << "stats[\"loss\"] += -loss.detach() / n"
                                             << "`stats[\"loss\"].item()`";
    QTest::newRow("appended item") << "item"
                                   << "losses.append(loss.item())"
                                   << "losses.append(loss.detach())"
                                   << "`losses` then holds tensors on the GPU: read them once "
                                      "after the loop, `torch.stack(losses).tolist()`";
    QTest::newRow("appended, divided") << "item"
                                       << "self.history.append(loss.item() / steps)"
                                       << "self.history.append(loss.detach() / steps)"
                                       << "torch.stack(self.history)";
    QTest::newRow("accumulated float()") << "scalar-conversion"
                                         << "total += float(loss)"
                                         << "total += loss.detach()"
                                         << "`total` becomes";
    QTest::newRow("appended float()") << "scalar-conversion"
                                      << "norms.append(float(grad.norm()))"
                                      << "norms.append(grad.norm().detach())"
                                      << "`norms` then holds";
    QTest::newRow("float() of a sum") << "scalar-conversion"
                                      << "total += float(a + b)"
                                      << "total += (a + b).detach()"
                                      << "`total` becomes";
    QTest::newRow("print") << "print-tensor"
                           << "print(loss)"
                           << "if step % 100 == 0: print(loss)"
                           << "step: your loop's step counter; 100: how often it prints";
    QTest::newRow("print an f-string") << "format-tensor"
                                       << "print(f\"loss {loss:.4f}\")"
                                       << "if step % 100 == 0: print(f\"loss {loss:.4f}\")"
                                       << "step: your loop's step counter";
    // Copies through pinned memory.
    QTest::newRow("to cuda") << "pageable-upload"
                             << "x = x.to(\"cuda\")"
                             << "x = x.pin_memory().to(\"cuda\", non_blocking=True)"
                             << "";
    QTest::newRow(".cuda()") << "pageable-upload"
                             << "batch = batch.cuda()"
                             << "batch = batch.pin_memory().cuda(non_blocking=True)"
                             << "";
    QTest::newRow("non_blocking already")
        << "pageable-upload"
        << "inputs = inputs.to(device, non_blocking=True)"
        << "inputs = inputs.pin_memory().to(device, non_blocking=True)"
        << "";
    QTest::newRow("inside a call") << "pageable-upload"
                                   << "out = model(images.to(device).float())"
                                   << "out = model(images.pin_memory().to(device, "
                                      "non_blocking=True).float())"
                                   << "";
    QTest::newRow("device keyword") << "pageable-upload"
                                    << "y = batch[\"labels\"].to(device=dev)"
                                    << "y = batch[\"labels\"].pin_memory().to(device=dev, "
                                       "non_blocking=True)"
                                    << "";
    QTest::newRow("tensor from a list")
        << "tensor-from-python"
        << "ids = torch.tensor(tokens, dtype=torch.long, device=\"cuda\")"
        << "ids = torch.tensor(tokens, dtype=torch.long).pin_memory().to(\"cuda\", "
           "non_blocking=True)"
        << "";
    QTest::newRow("as_tensor") << "tensor-from-python"
                               << "w = torch.as_tensor(arr, device=device).float()"
                               << "w = torch.as_tensor(arr).pin_memory().to(device, "
                                  "non_blocking=True).float()"
                               << "";
    // Data-dependent sizes made static.
    QTest::newRow("torch.nonzero") << "nonzero"
                                   << "idx = torch.nonzero(mask)"
                                   << "idx = torch.nonzero_static(mask, size=N)"
                                   << "N: the most nonzero elements you expect, a number you "
                                      "choose; the indices past their count are -1 "
                                      "(fill_value=), mask them before use";
    QTest::newRow("x.nonzero()") << "nonzero"
                                 << "idx = mask.nonzero().squeeze(1)"
                                 << "idx = mask.nonzero_static(size=N).squeeze(1)"
                                 << "N: the most nonzero elements";
    QTest::newRow("argwhere") << "nonzero"
                              << "rows = torch.argwhere(x > 0)"
                              << "rows = torch.nonzero_static(x > 0, size=N)"
                              << "N: the most nonzero elements";
    QTest::newRow("one-argument where") << "where-one-arg"
                                        << "rows, cols = torch.where(mask)"
                                        << "rows, cols = torch.nonzero_static(mask, "
                                           "size=N).unbind(1)"
                                        << "N: the most nonzero elements";
    QTest::newRow("masked cross_entropy")
        << "bool-mask-index"
        << "loss = F.cross_entropy(logits[mask], labels[mask])"
        << "loss = F.cross_entropy(logits.flatten(0, -2), labels.masked_fill(~mask, "
           "-100).flatten(), ignore_index=-100)"
        << "assumes `mask` has the shape of `labels`";
    QTest::newRow("functional, keyword kept")
        << "bool-mask-index"
        << "loss = torch.nn.functional.cross_entropy(out[keep], y[keep], label_smoothing=0.1)"
        << "loss = torch.nn.functional.cross_entropy(out.flatten(0, -2), y.masked_fill(~keep, "
           "-100).flatten(), label_smoothing=0.1, ignore_index=-100)"
        << "`keep` has the shape of `y`";
    QTest::newRow("nll_loss, mask expression")
        << "bool-mask-index"
        << "loss = F.nll_loss(logp[labels != pad], labels[labels != pad], reduction=\"sum\")"
        << "loss = F.nll_loss(logp.flatten(0, -2), labels.masked_fill(~(labels != pad), "
           "-100).flatten(), reduction=\"sum\", ignore_index=-100)"
        << "`labels != pad` has the shape of `labels`";
    QTest::newRow("masked sum") << "bool-mask-index"
                                << "masked = losses[mask].sum()"
                                << "masked = torch.where(mask, losses, 0).sum()"
                                << "assumes `mask` has the shape of `losses`";
    QTest::newRow("masked sum beside literal indexes")
        << "bool-mask-index"
        << "s = h[:, -1][keep].sum() + out[0] + batch[\"w\"]"
        << "s = torch.where(keep, h[:, -1], 0).sum() + out[0] + batch[\"w\"]"
        << "has the shape of `h[:, -1]`";
    QTest::newRow("masked sum, keyed mask") << "bool-mask-index"
                                            << "loss = tok_loss[batch[\"mask\"]].sum() / n"
                                            << "loss = torch.where(batch[\"mask\"], tok_loss, "
                                               "0).sum() / n"
                                            << "has the shape of `tok_loss`";
    QTest::newRow("masked_select sum") << "masked-select"
                                       << "s = torch.masked_select(x, m).sum()"
                                       << "s = torch.where(m, x, 0).sum()"
                                       << "";
    QTest::newRow("method masked_select sum") << "masked-select"
                                              << "s = x.masked_select(m).sum()"
                                              << "s = torch.where(m, x, 0).sum()"
                                              << "";
    QTest::newRow("masked assignment") << "bool-mask-assign"
                                       << "scores[scores < 0] = 0"
                                       << "scores.masked_fill_(scores < 0, 0)"
                                       << "assumes `scores < 0` has the shape of `scores`";
    QTest::newRow("masked -inf") << "bool-mask-assign"
                                 << "attn[pad] = float(\"-inf\")"
                                 << "attn.masked_fill_(pad, float(\"-inf\"))"
                                 << "`pad` has the shape of `attn`";
    QTest::newRow("masked dtype minimum") << "bool-mask-assign"
                                          << "x[m] = torch.finfo(x.dtype).min"
                                          << "x.masked_fill_(m, torch.finfo(x.dtype).min)"
                                          << "`m` has the shape of `x`";
    // Checks on the GPU; waits deleted.
    QTest::newRow("assert") << "assert-tensor"
                            << "assert torch.isfinite(loss)"
                            << "torch._assert_async(torch.isfinite(loss))"
                            << "the GPU checks it: a failure ends the process at a later CUDA "
                               "call instead of raising AssertionError here";
    QTest::newRow("assert with a message") << "assert-tensor"
                                           << "assert (x >= 0).all(), \"negative input\""
                                           << "torch._assert_async((x >= 0).all(), \"negative "
                                              "input\")"
                                           << "the GPU checks it";
    QTest::newRow("assert()") << "assert-tensor"
                              << "assert(t.all())"
                              << "torch._assert_async(t.all())"
                              << "the GPU checks it";
    QTest::newRow("synchronize") << "cuda-synchronize"
                                 << "    torch.cuda.synchronize()"
                                 << ""
                                 << "unless the host reads a copy made with non_blocking=True, "
                                    "or a GPU timing, right after it";
    QTest::newRow("empty_cache") << "empty-cache"
                                 << "torch.cuda.empty_cache()"
                                 << ""
                                 << "";
}

void TestLineRewrite::rewrites() {
    QFETCH(QString, operation);
    QFETCH(QString, line);
    QFETCH(QString, rewritten);
    QFETCH(QString, note);
    const std::string text = line.toStdString();
    const model::SyncOperation* op = ::operation(operation);
    QVERIFY(op);
    const std::optional<LineRewrite> rewrite = model::rewrittenLine(*op, text);
    QVERIFY(rewrite);
    QCOMPARE(QString::fromStdString(rewrite->line), rewritten);
    QVERIFY2(note.isEmpty() ? rewrite->note.empty()
                            : QString::fromStdString(rewrite->note).contains(note),
             rewrite->note.c_str());
}

void TestLineRewrite::leavesAlone_data() {
    QTest::addColumn<QString>("operation");
    QTest::addColumn<QString>("line");
    // A read whose value the next lines use as a Python number, or not alone.
    QTest::newRow("plain assignment") << "item"
                                      << "loss_value = loss.item()";
    QTest::newRow("two reads") << "item"
                               << "total += loss.item() + aux.item()";
    QTest::newRow("a power") << "item"
                             << "total += loss.item() ** 2";
    QTest::newRow("a condition") << "item"
                                 << "total += loss.item() if ok else 0";
    QTest::newRow("inside a call") << "item"
                                   << "total += max(loss.item(), 0)";
    QTest::newRow("two statements") << "item"
                                    << "total += loss.item(); n += 1";
    QTest::newRow("continued") << "item"
                               << "total += (loss.item()";
    QTest::newRow("a tab") << "item"
                           << "total +=\tloss.item()";
    QTest::newRow("no call") << "item"
                             << "total += loss.item";
    QTest::newRow("a logger") << "item"
                              << "log.info(\"%f\", loss.item())";
    QTest::newRow("extend") << "item"
                            << "losses.extend(loss.item())";
    QTest::newRow("the read alone") << "item"
                                    << "loss.item()";
    QTest::newRow("int() truncates") << "scalar-conversion"
                                     << "total += int(n_correct)";
    QTest::newRow("float of a string") << "scalar-conversion"
                                       << "total += float(\"inf\")";
    QTest::newRow("float of a read") << "scalar-conversion"
                                     << "total += float(loss.item())";
    // A print that is not the statement, or not every step.
    QTest::newRow("print's value") << "print-tensor"
                                   << "x = print(loss)";
    QTest::newRow("print already gated") << "print-tensor"
                                         << "if step % 10 == 0: print(loss)";
    QTest::newRow("a logger's f-string") << "format-tensor"
                                         << "logger.info(f\"{loss}\")";
    QTest::newRow("comment cut in a string") << "print-tensor"
                                             << "print(\"loss ";
    // Copies the template does not know the direction or arguments of.
    QTest::newRow("two copies") << "pageable-upload"
                                << "x, y = x.to(dev), y.to(dev)";
    QTest::newRow("already pinned") << "pageable-upload"
                                    << "x = x.pin_memory().to(dev)";
    QTest::newRow("positional non_blocking") << "pageable-upload"
                                             << "x = x.to(dev, torch.half, True)";
    QTest::newRow("non_blocking=False") << "pageable-upload"
                                        << "x = x.to(dev, non_blocking=False)";
    QTest::newRow("a dtype only") << "pageable-upload"
                                  << "x = x.to(dtype=torch.half)";
    QTest::newRow("a leaf tensor") << "tensor-from-python"
                                   << "t = torch.tensor(data, device=\"cuda\", requires_grad=True)";
    QTest::newRow("no device") << "tensor-from-python"
                               << "t = torch.tensor(data)";
    // Shapes the static rewrites do not keep.
    QTest::newRow("nonzero as_tuple") << "nonzero"
                                      << "idx = torch.nonzero(mask, as_tuple=True)";
    QTest::newRow("two nonzeros") << "nonzero"
                                  << "a, b = mask.nonzero(), other.nonzero()";
    QTest::newRow("three-argument where") << "where-one-arg"
                                          << "y = torch.where(c, a, b)";
    QTest::newRow("Tensor.where") << "where-one-arg"
                                  << "y = x.where(c)";
    QTest::newRow("an unknown loss") << "bool-mask-index"
                                     << "loss = criterion(logits[mask], labels[mask])";
    QTest::newRow("two masks") << "bool-mask-index"
                               << "loss = F.cross_entropy(logits[mask], labels[keep])";
    QTest::newRow("a loss per target")
        << "bool-mask-index"
        << "loss = F.cross_entropy(logits[mask], labels[mask], reduction=\"none\")";
    QTest::newRow("its own ignore_index")
        << "bool-mask-index"
        << "loss = F.cross_entropy(logits[mask], labels[mask], ignore_index=0)";
    QTest::newRow("a regression loss") << "bool-mask-index"
                                       << "loss = F.mse_loss(pred[mask], y[mask])";
    QTest::newRow("a mask on the second dimension")
        << "bool-mask-index"
        << "loss = F.cross_entropy(logits[:, mask], labels[mask])";
    QTest::newRow("a sum over a dimension") << "bool-mask-index"
                                            << "s = x[mask].sum(dim=0)";
    QTest::newRow("a mean") << "bool-mask-index"
                            << "s = x[mask].mean()";
    QTest::newRow("two masked sums") << "bool-mask-index"
                                     << "s = x[m].sum() + y[n].sum()";
    QTest::newRow("another mask") << "bool-mask-index"
                                  << "s = x[i].sum() + y[keep]";
    QTest::newRow("a tensor of values") << "bool-mask-assign"
                                        << "x[mask] = values";
    QTest::newRow("an increment") << "bool-mask-assign"
                                  << "x[mask] += 1";
    QTest::newRow("a second-dimension mask") << "bool-mask-assign"
                                             << "x[:, mask] = 0";
    QTest::newRow("chained assignment") << "bool-mask-assign"
                                        << "a = x[mask] = 0";
    QTest::newRow("masked_select kept") << "masked-select"
                                        << "v = torch.masked_select(x, m)";
    // Python decisions with no GPU form on one line.
    QTest::newRow("assert and") << "assert-tensor"
                                << "assert t.all() and ok";
    QTest::newRow("assert not") << "assert-tensor"
                                << "assert not torch.isnan(x).any()";
    QTest::newRow("assert, f-string message") << "assert-tensor"
                                              << "assert t.all(), f\"bad {t}\"";
    QTest::newRow("assert a tuple") << "assert-tensor"
                                    << "assert (t.all(), \"msg\")";
    QTest::newRow("an if") << "any-all-condition"
                           << "if t.any():";
    QTest::newRow("a bool") << "bool-condition"
                            << "if torch.isfinite(norm):";
    QTest::newRow("a while") << "while-tensor"
                             << "while (x > 0).any():";
    QTest::newRow("synchronize and more") << "cuda-synchronize"
                                          << "torch.cuda.synchronize(); t = time.time()";
    QTest::newRow("a stream's synchronize") << "stream-event-synchronize"
                                            << "torch.cuda.current_stream().synchronize()";
    QTest::newRow("empty_cache every 10") << "empty-cache"
                                          << "if i % 10 == 0: torch.cuda.empty_cache()";
    QTest::newRow("tolist") << "tolist"
                            << "preds.extend(out.argmax(1).tolist())";
    QTest::newRow("numpy") << "numpy"
                           << "y = x.cpu().numpy()";
}

void TestLineRewrite::leavesAlone() {
    QFETCH(QString, operation);
    QFETCH(QString, line);
    const std::string text = line.toStdString();
    const model::SyncOperation* op = ::operation(operation);
    QVERIFY(op);
    const std::optional<LineRewrite> rewrite = model::rewrittenLine(*op, text);
    QVERIFY2(!rewrite, rewrite ? rewrite->line.c_str() : "");
}

// A template rewrites lines of its own operation: the line says what it is only together with
// what the recording says synced.
void TestLineRewrite::templatesOfItsOperationOnly() {
    const model::SyncOperation* item = operation("item");
    const model::SyncOperation* nonzero = operation("nonzero");
    const model::SyncOperation* streamSync = operation("cuda-stream-synchronize");
    QVERIFY(item && nonzero && streamSync);
    QVERIFY(model::rewrittenLine(*item, "total += loss.item()"));
    QVERIFY(!model::rewrittenLine(*nonzero, "total += loss.item()"));
    QVERIFY(!model::rewrittenLine(*item, "idx = torch.nonzero(mask)"));
    QVERIFY(!model::rewrittenLine(*streamSync, "torch.cuda.synchronize()"));
    QVERIFY(model::hasLineTemplate("item") && model::hasLineTemplate("empty-cache"));
    QVERIFY(!model::hasLineTemplate("bool-condition") && !model::hasLineTemplate("no-such-op"));
}

void TestLineRewrite::shownBeforeTheRecipe() {
    model::Insight insight;
    insight.recommendation = "Keep the value on the GPU.";
    QCOMPARE(model::fixText(insight), std::string("Keep the value on the GPU."));
    insight.lineRewrite = LineRewrite{"total += loss.detach()", "read `total` after the loop"};
    QCOMPARE(model::fixText(insight),
             std::string("Your line, rewritten: `total += loss.detach()` (read `total` after the "
                         "loop). Keep the value on the GPU."));
    insight.lineRewrite = LineRewrite{"", ""};
    QCOMPARE(model::fixText(insight), std::string("Delete your line. Keep the value on the GPU."));
}

void TestLineRewrite::sitesOfPythonLinesOnly() {
    const std::string line = "total += loss.item()";
    model::SyncEvidence evidence;
    evidence.line = line;
    const model::SyncOperation* item = operation("item");
    QVERIFY(item);
    model::SourceSite site{kTrainPath, 41, "train", model::SourceLanguage::Python};
    QVERIFY(model::siteLineRewrite(item, evidence, site));
    QVERIFY(!model::siteLineRewrite(nullptr, evidence, site));
    // A def line standing in for the executing one (imported torch.profiler traces).
    site.lineIsDefinition = true;
    QVERIFY(!model::siteLineRewrite(item, evidence, site));
    site.lineIsDefinition = false;
    for (const auto language : {model::SourceLanguage::Native, model::SourceLanguage::Unknown}) {
        site.language = language;
        QVERIFY(!model::siteLineRewrite(item, evidence, site));
    }
    site.language = model::SourceLanguage::Python;
    // torch's own Python code between the line and the sync: still the line's read.
    evidence.library = {"/venv/lib/python3.12/site-packages/torch/_tensor.py", 10, "item"};
    QVERIFY(model::siteLineRewrite(item, evidence, site));
    // Another library's code synced: the line's text is not what waited.
    evidence.library = {"/venv/lib/python3.12/site-packages/lightning/pytorch/core/module.py", 4,
                        "log"};
    QVERIFY(!model::siteLineRewrite(item, evidence, site));
}

void TestLineRewrite::everyTemplateIsDocumented() {
    QFile docs(QStringLiteral(STALLSCOPE_SOURCE_DIR "/docs/insights.md"));
    QVERIFY(docs.open(QIODevice::ReadOnly));
    const QByteArray text = docs.readAll();
    const qsizetype start = text.indexOf("### Your line, rewritten");
    QVERIFY(start >= 0);
    // The operations of the section's table: the first cell of each row.
    QByteArray listed;
    for (const QByteArray& row : text.mid(start, text.indexOf("\n## ", start) - start).split('\n'))
        if (row.startsWith("| `"))
            listed += row.mid(2, row.indexOf(" |", 2) - 2) + ",";
    int templated = 0;
    for (const model::SyncOperation& op : model::syncOperations()) {
        const QByteArray id = "`" + QByteArray(op.id.data(), op.id.size()) + "`";
        QVERIFY2(listed.contains(id) == model::hasLineTemplate(op.id), id.constData());
        templated += model::hasLineTemplate(op.id);
    }
    QCOMPARE(templated, 14);
    QVERIFY(text.contains("\"line_rewrite\""));
}

namespace {

// A loop of five `.item()` reads at train.py:41, whose text is `line`. Nothing when the fixture
// failed (which failed the test).
std::optional<model::InsightReport> analyzeReads(const std::string& path, const std::string& line) {
    InsightFixture f(path);
    const std::string source = trainSource(line);
    f.writer().addSource({kTrainPath, "", int64_t(source.size()), false, source});
    format::FrameRow frame;
    frame.kind = format::FrameKind::Python;
    frame.file = kTrainPath;
    frame.line = 41;
    frame.function = "train";
    const int64_t python = f.writer().addFrame(frame);
    const int64_t stack =
        f.stackOf({f.driverFrame(),
                   f.nativeFrame("", 0, "at::_ops::_local_scalar_dense::call(at::Tensor const&)"),
                   f.nativeFrame("", 0, "at::_ops::item::call(at::Tensor const&)"), python});
    f.writeLoop(stack, 5, 4);
    const testing::LoadedFixture loaded = f.load({python});
    if (!loaded.ok())
        return std::nullopt;
    return loaded.analyze();
}

} // namespace

void TestLineRewrite::embeddedLineRewrittenOnTheFinding() {
    const std::optional<model::InsightReport> report =
        analyzeReads(m_dir.file("rewritten.stallscope"), "        total += loss.item()");
    QVERIFY(report);
    QCOMPARE(report->insights.size(), size_t(1));
    const model::Insight& insight = report->insights[0];
    QVERIFY(insight.operation);
    QCOMPARE(std::string(insight.operation->id), std::string("item"));
    QVERIFY(insight.lineRewrite);
    QCOMPARE(insight.lineRewrite->line, std::string("total += loss.detach()"));
    // The recipe stays the operation's; the rewritten line comes first wherever the fix shows.
    QCOMPARE(insight.recommendation,
             std::string(insight.operation->rewrite(model::SourceLanguage::Python)));
    const std::string text = model::insightReportToText(*report);
    QVERIFY2(text.find("   Fix: Your line, rewritten: `total += loss.detach()` (`total` becomes "
                       "a tensor on the GPU: read it once after the loop, `total.item()`). "
                       "Keep the value on the GPU") != std::string::npos,
             text.c_str());
    const QJsonObject json = model::insightReportToJsonObject(*report)["insights"][0].toObject();
    QCOMPARE(json["line_rewrite"]["line"].toString(), QStringLiteral("total += loss.detach()"));
    QVERIFY(json["line_rewrite"]["note"].toString().startsWith(QStringLiteral("`total` becomes")));
    QCOMPARE(json["recommendation"].toString(), QString::fromStdString(insight.recommendation));
}

void TestLineRewrite::lineWithoutTemplateKeepsTheRecipe() {
    const std::optional<model::InsightReport> report =
        analyzeReads(m_dir.file("recipe.stallscope"), "        loss_value = loss.item()");
    QVERIFY(report);
    QCOMPARE(report->insights.size(), size_t(1));
    const model::Insight& insight = report->insights[0];
    QVERIFY(insight.operation);
    QVERIFY(!insight.lineRewrite);
    QCOMPARE(model::fixText(insight), insight.recommendation);
    const std::string text = model::insightReportToText(*report);
    QVERIFY(text.find("   Fix: " + insight.recommendation + "\n") != std::string::npos);
    const QJsonObject json = model::insightReportToJsonObject(*report)["insights"][0].toObject();
    QVERIFY(json.contains(QStringLiteral("line_rewrite")));
    QVERIFY(json["line_rewrite"].isNull());
}

void TestLineRewrite::pinnedCopyRewriteOnlyForUploads_data() {
    QTest::addColumn<bool>("uploads");
    QTest::newRow("host to device") << true;
    QTest::newRow("device to host") << false; // `.to(device)` says no direction
}

// `x = batch.to(device)` copying through pageable memory: pinning `batch` is the fix where the
// copy reads host memory; where it writes host memory `batch` is on the GPU and cannot be pinned.
void TestLineRewrite::pinnedCopyRewriteOnlyForUploads() {
    QFETCH(bool, uploads);
    InsightFixture f(m_dir.file(uploads ? "upload.stallscope" : "read.stallscope"));
    const std::string source = trainSource("    x = batch.to(device)");
    f.writer().addSource({kTrainPath, "", int64_t(source.size()), false, source});
    const int64_t stack = f.pythonStack(kTrainPath, 41, "train");
    for (int i = 0; i < 3; ++i) {
        const int64_t t0 = 200'000 * i + 10'000;
        f.launch(t0, t0 + 1'000, t0 + 51'000);
        const int64_t copy = uploads
                                 ? f.memcpy(t0 + 51'000, t0 + 53'000, CopyKind::HtoD,
                                            MemoryKind::Pageable, MemoryKind::Device, 4096, false)
                                 : f.memcpy(t0 + 51'000, t0 + 53'000, CopyKind::DtoH,
                                            MemoryKind::Device, MemoryKind::Pageable, 4096, false);
        f.sync(SyncKind::PageableCopy, t0 + 2'000, t0 + 54'000, stack, f.stream, {}, copy);
    }
    const model::InsightReport report = f.load().analyze();
    QVERIFY(f.ok());
    QCOMPARE(report.insights.size(), size_t(1));
    const model::Insight& insight = report.insights[0];
    QVERIFY(insight.operation);
    QCOMPARE(std::string(insight.operation->id), std::string("pageable-upload"));
    QCOMPARE(insight.lineRewrite.has_value(), uploads);
    if (uploads)
        QCOMPARE(insight.lineRewrite->line,
                 std::string("x = batch.pin_memory().to(device, non_blocking=True)"));
}

STALLSCOPE_TEST_GUILESS_MAIN(TestLineRewrite)
#include "test_line_rewrite.moc"
