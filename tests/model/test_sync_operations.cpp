// model/analysis/sync_operations.h: the catalog of sync-causing operations. Each operation is
// told from what a recording keeps (library frame, ATen ops, CUDA call, sync kind, the user's
// line), the specific before the general; each gets its rewrite; unknown syncs get none.
#include "model/analysis/sync_operations.h"
#include "tests/support/test_suite.h"

#include <QFile>
#include <QTest>

#include <set>

using namespace stallscope::model;
using stallscope::format::FrameKind;
using stallscope::format::SyncKind;

namespace {

SyncEvidence insideLibrary(const std::string& file, const std::string& function) {
    SyncEvidence evidence;
    evidence.library = {file, 134, function};
    return evidence;
}

SyncEvidence ofAten(std::string called, std::string syncing, std::string_view line = {}) {
    SyncEvidence evidence;
    evidence.aten.calledOp = std::move(called);
    evidence.aten.syncingOp = std::move(syncing);
    evidence.line = line;
    return evidence;
}

SyncEvidence ofCudaCall(std::string call, SyncKind kind, std::string_view line = {}) {
    SyncEvidence evidence;
    evidence.cudaCall = std::move(call);
    evidence.kinds = syncKindBit(kind);
    evidence.line = line;
    return evidence;
}

std::string idOf(const SyncEvidence& evidence) {
    const SyncOperation* operation = identifySyncOperation(evidence);
    return operation ? std::string(operation->id) : std::string("(none)");
}

FrameInfo frame(FrameKind kind, std::string function) {
    FrameInfo info;
    info.kind = kind;
    info.function = std::move(function);
    return info;
}

} // namespace

class TestSyncOperations : public QObject {
    Q_OBJECT
private slots:
    void catalogIsComplete();
    void libraryCalls_data();
    void libraryCalls();
    void notLibraryCalls_data();
    void notLibraryCalls();
    void firstMatchWins();
    void operationsFromAten_data();
    void operationsFromAten();
    void cudaCalls_data();
    void cudaCalls();
    void kindsOfTheSite();
    void valueReads();
    void everyRecognitionIsReachable();
    void cudaCallOfAStack();
    void sourceLines();
};

void TestSyncOperations::catalogIsComplete() {
    const auto operations = syncOperations();
    QVERIFY(operations.size() >= 25);
    std::set<std::string_view> ids, recognised;
    for (const SyncOperation& operation : operations) {
        QVERIFY2(ids.insert(operation.id).second, std::string(operation.id).c_str());
        QVERIFY(!operation.name.empty() && !operation.meaning.empty() && !operation.python.empty());
        QCOMPARE(syncOperationById(operation.id), &operation);
    }
    for (const SyncRecognition& recognition : syncRecognitions()) {
        QVERIFY2(syncOperationById(recognition.operation),
                 std::string(recognition.operation).c_str());
        recognised.insert(recognition.operation);
    }
    QCOMPARE(recognised.size(), operations.size()); // none that nothing recognises
    QVERIFY(!syncOperationById("no-such-operation"));
    // docs/insights.md lists each one.
    QFile docs(QStringLiteral(STALLSCOPE_SOURCE_DIR "/docs/insights.md"));
    QVERIFY(docs.open(QIODevice::ReadOnly));
    const QByteArray text = docs.readAll();
    for (const SyncOperation& operation : operations)
        QVERIFY2(
            text.contains("| `" + QByteArray(operation.id.data(), operation.id.size()) + "` |"),
            std::string(operation.id).c_str());
}

void TestSyncOperations::libraryCalls_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("function");
    QTest::addColumn<QString>("lever"); // a word of the rewrite the user acts on
    const QString sp = "/venv/lib/python3.12/site-packages/";
    QTest::newRow("lightning self.log") << sp + "lightning/pytorch/core/module.py"
                                        << "log"
                                        << "on_step=False";
    QTest::newRow("pytorch_lightning log_dict") << sp + "pytorch_lightning/core/module.py"
                                                << "log_dict"
                                                << "sync_dist=False";
    QTest::newRow("lightning result collection")
        << sp + "lightning/pytorch/trainer/connectors/logger_connector/result.py"
        << "metrics"
        << "prog_bar=False";
    QTest::newRow("fabric apply_func move") << sp + "lightning_fabric/utilities/apply_func.py"
                                            << "move_data_to_device"
                                            << "pin_memory=True";
    QTest::newRow("fabric apply_func scalars") << sp + "lightning/fabric/utilities/apply_func.py"
                                               << "convert_tensors_to_scalars"
                                               << "log_every_n_steps";
    QTest::newRow("torchmetrics compute") << sp + "torchmetrics/metric.py"
                                          << "compute"
                                          << "on_epoch=True";
    QTest::newRow("trainer loop") << sp + "transformers/trainer.py"
                                  << "_inner_training_loop"
                                  << "logging_nan_inf_filter=False";
    QTest::newRow("trainer tokens seen") << sp + "transformers/trainer.py"
                                         << "_inner_training_loop"
                                         << "include_num_input_tokens_seen=False";
    QTest::newRow("trainer logging") << sp + "transformers/trainer.py"
                                     << "_maybe_log_save_evaluate"
                                     << "logging_steps";
    QTest::newRow("trainer eval") << sp + "transformers/trainer.py"
                                  << "evaluation_loop"
                                  << "eval_accumulation_steps";
    QTest::newRow("trainer nested gather") << sp + "transformers/trainer.py"
                                           << "_nested_gather"
                                           << "eval_accumulation_steps";
    QTest::newRow("trainer nested numpify") << sp + "transformers/trainer_pt_utils.py"
                                            << "nested_numpify"
                                            << "eval_accumulation_steps";
    QTest::newRow("trainer elsewhere") << sp + "transformers/trainer.py"
                                       << "training_step"
                                       << "logging_steps";
    QTest::newRow("pin memory thread") << sp + "torch/utils/data/_utils/pin_memory.py"
                                       << "pin_memory"
                                       << "pin_memory_device";
    QTest::newRow("torch.cuda.synchronize")
        << "/usr/lib/python3/dist-packages/torch/cuda/__init__.py"
        << "synchronize"
        << "torch.cuda.Event";
    QTest::newRow("stream synchronize") << sp + "torch/cuda/streams.py"
                                        << "synchronize"
                                        << "wait_event";
    QTest::newRow("grad scaler") << sp + "torch/amp/grad_scaler.py"
                                 << "_maybe_opt_step"
                                 << "bfloat16";
    QTest::newRow("cuda grad scaler") << sp + "torch/cuda/amp/grad_scaler.py"
                                      << "step"
                                      << "bfloat16";
    QTest::newRow("clip grad") << sp + "torch/nn/utils/clip_grad.py"
                               << "clip_grad_norm_"
                               << "error_if_nonfinite";
    QTest::newRow("f-string of a tensor") << sp + "torch/_tensor.py"
                                          << "__format__"
                                          << "log.debug(\"loss %s\"";
    QTest::newRow("print of a tensor") << sp + "torch/_tensor_str.py"
                                       << "_tensor_str"
                                       << "every N";
    QTest::newRow("if tensor") << sp + "torch/_tensor.py"
                               << "__bool__"
                               << "torch.where";
    QTest::newRow("item") << sp + "torch/_tensor.py"
                          << "item"
                          << "after the loop";
    QTest::newRow("tolist") << sp + "torch/_tensor.py"
                            << "tolist"
                            << "once after the loop";
    QTest::newRow("cpu") << sp + "torch/_tensor.py"
                         << "cpu"
                         << "non_blocking=True";
    QTest::newRow("numpy array") << sp + "torch/_tensor.py"
                                 << "__array__"
                                 << "pin_memory";
    QTest::newRow("relative path (Kineto)") << "torch/_tensor.py"
                                            << "__repr__"
                                            << "every N";
}

void TestSyncOperations::libraryCalls() {
    QFETCH(QString, file);
    QFETCH(QString, function);
    QFETCH(QString, lever);
    const SyncOperation* operation =
        identifySyncOperation(insideLibrary(file.toStdString(), function.toStdString()));
    QVERIFY(operation);
    const std::string rewrite(operation->rewrite(SourceLanguage::Python));
    QVERIFY2(rewrite.find(lever.toStdString()) != std::string::npos, rewrite.c_str());
}

void TestSyncOperations::notLibraryCalls_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("function");
    const QString sp = "/venv/lib/python3.12/site-packages/";
    QTest::newRow("sync in user code") << ""
                                       << "";
    QTest::newRow("unknown library") << sp + "mylib/loop.py"
                                     << "step";
    QTest::newRow("other torch.cuda function") << sp + "torch/cuda/__init__.py"
                                               << "current_device";
    QTest::newRow("torch file that is no sync point") << sp + "torch/nn/functional.py"
                                                      << "cross_entropy";
    QTest::newRow("other Tensor method") << sp + "torch/_tensor.py"
                                         << "backward";
    QTest::newRow("other lightning module function") << sp + "lightning/pytorch/core/module.py"
                                                     << "forward";
    QTest::newRow("other transformers file") << sp + "transformers/modeling_utils.py"
                                             << "forward";
    QTest::newRow("torch file named like a tensor one") << sp + "torch/_tensor_docs.py"
                                                        << "item";
}

void TestSyncOperations::notLibraryCalls() {
    QFETCH(QString, file);
    QFETCH(QString, function);
    SyncEvidence evidence = insideLibrary(file.toStdString(), function.toStdString());
    if (file.isEmpty())
        evidence.library = {};
    QCOMPARE(idOf(evidence), std::string("(none)"));
}

void TestSyncOperations::firstMatchWins() {
    // convert_tensors_to_scalars (logging) is listed before apply_func's other functions (data
    // transfer): both match the file.
    const std::string file = "/x/site-packages/lightning_fabric/utilities/apply_func.py";
    QCOMPARE(idOf(insideLibrary(file, "convert_tensors_to_scalars")), std::string("lightning-log"));
    // Its nested to_item is where Lightning 2.6 reads a logged value (recorded on an H100).
    QCOMPARE(idOf(insideLibrary(file, "to_item")), std::string("lightning-log"));
    QCOMPARE(idOf(insideLibrary(file, "move_data_to_device")), std::string("lightning-transfer"));
    // transformers 5 reads each step's loss for nan/inf in _run_epoch; Accelerate moves the
    // Trainer's batches (both recorded under a transformers Trainer on an H100).
    const std::string trainer = "/x/site-packages/transformers/trainer.py";
    QCOMPARE(idOf(insideLibrary(trainer, "_run_epoch")), std::string("trainer-step-reads"));
    QCOMPARE(idOf(insideLibrary(trainer, "_maybe_log_save_evaluate")),
             std::string("trainer-logging"));
    QCOMPARE(
        idOf(insideLibrary("/x/site-packages/accelerate/utils/operations.py", "send_to_device")),
        std::string("trainer-batch-transfer"));
    QCOMPARE(idOf(insideLibrary("/x/site-packages/accelerate/utils/operations.py", "gather")),
             std::string("(none)"));
    // A library's frame names the sync before the op it made: Lightning's .item().
    SyncEvidence logged = insideLibrary("/x/site-packages/lightning/pytorch/core/module.py", "log");
    logged.aten.calledOp = "item";
    QCOMPARE(idOf(logged), std::string("lightning-log"));
}

void TestSyncOperations::operationsFromAten_data() {
    QTest::addColumn<QString>("calledOp");
    QTest::addColumn<QString>("syncingOp");
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("operation");
    QTest::newRow("if t") << "is_nonzero"
                          << "_local_scalar_dense"
                          << "    if torch.isfinite(norm):"
                          << "bool-condition";
    QTest::newRow("assert t") << "is_nonzero"
                              << "_local_scalar_dense"
                              << "    assert (v >= 0).all(), \"negative\""
                              << "assert-tensor";
    QTest::newRow("assert only in a comment") << "is_nonzero"
                                              << "_local_scalar_dense"
                                              << "    if ok:  # assert ok"
                                              << "bool-condition";
    QTest::newRow("while t") << "is_nonzero"
                             << "_local_scalar_dense"
                             << "while not done.all():"
                             << "while-tensor";
    QTest::newRow("if t.any()") << "is_nonzero"
                                << "_local_scalar_dense"
                                << "if finished.any():"
                                << "any-all-condition";
    QTest::newRow("python max") << "is_nonzero"
                                << "_local_scalar_dense"
                                << "best = max(scores)"
                                << "python-minmax";
    QTest::newRow("while on a tensor's max") << "is_nonzero"
                                             << "_local_scalar_dense"
                                             << "while y.max() > 0.5:"
                                             << "while-tensor";
    QTest::newRow("if on a tensor's max") << "is_nonzero"
                                          << "_local_scalar_dense"
                                          << "if y.max() > 0.5:"
                                          << "bool-condition";
    QTest::newRow(".item()") << "item"
                             << "_local_scalar_dense"
                             << "total += loss.item()"
                             << "item";
    QTest::newRow("float(t)") << "item"
                              << "_local_scalar_dense"
                              << "history.append(float(loss))"
                              << "scalar-conversion";
    QTest::newRow("int(t)") << "item"
                            << "_local_scalar_dense"
                            << "n = int(lengths.max())"
                            << "scalar-conversion";
    QTest::newRow("f-string") << "item"
                              << "_local_scalar_dense"
                              << "log(f\"loss {loss:.3f}\")"
                              << "format-tensor";
    QTest::newRow("without the line") << "item"
                                      << "_local_scalar_dense"
                                      << ""
                                      << "item";
    QTest::newRow("x[mask]") << "index_Tensor"
                             << "nonzero"
                             << "y = logits[mask]"
                             << "bool-mask-index";
    QTest::newRow("x[mask] = v") << "index_put_"
                                 << "nonzero"
                                 << "ids[mask] = 0"
                                 << "bool-mask-assign";
    QTest::newRow("x[mask] = y[mask], first the read") << "index_Tensor"
                                                       << "nonzero"
                                                       << "ids[pick] = noise[pick]"
                                                       << "bool-mask-assign";
    QTest::newRow("masked_select") << "masked_select"
                                   << "nonzero"
                                   << ""
                                   << "masked-select";
    QTest::newRow("where(cond)") << "where"
                                 << "nonzero"
                                 << ""
                                 << "where-one-arg";
    QTest::newRow("nonzero") << "nonzero"
                             << "nonzero"
                             << ""
                             << "nonzero";
    QTest::newRow("index_select is no mask") << "index_select"
                                             << "_local_scalar_dense"
                                             << ""
                                             << "item";
    QTest::newRow("unique") << "_unique2"
                            << "_unique2"
                            << ""
                            << "unique";
    QTest::newRow("unique_consecutive") << "unique_consecutive"
                                        << "unique_consecutive"
                                        << ""
                                        << "unique-consecutive";
    QTest::newRow("bincount") << "bincount"
                              << "_local_scalar_dense"
                              << ""
                              << "bincount";
    QTest::newRow("repeat_interleave") << "repeat_interleave_Tensor"
                                       << "_local_scalar_dense"
                                       << ""
                                       << "repeat-interleave";
    QTest::newRow(".tolist()") << "_to_copy"
                               << "copy_"
                               << "preds.extend(p.tolist())"
                               << "tolist";
    QTest::newRow("cudnn benchmark") << "convolution_backward"
                                     << ""
                                     << ""
                                     << "cudnn-autotune";
    QTest::newRow("an op the catalog does not know") << "cumsum"
                                                     << "cumsum"
                                                     << ""
                                                     << "(none)";
}

void TestSyncOperations::operationsFromAten() {
    QFETCH(QString, calledOp);
    QFETCH(QString, syncingOp);
    QFETCH(QString, line);
    QFETCH(QString, operation);
    const std::string text = line.toStdString();
    const std::string_view statement = sourceLineOf(text, 1);
    QCOMPARE(idOf(ofAten(calledOp.toStdString(), syncingOp.toStdString(), statement)),
             operation.toStdString());
}

void TestSyncOperations::cudaCalls_data() {
    QTest::addColumn<QString>("call");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("operation");
    QTest::newRow("device sync") << "cudaDeviceSynchronize" << int(SyncKind::Device) << ""
                                 << "cuda-device-synchronize";
    QTest::newRow("driver ctx sync") << "cuCtxSynchronize" << int(SyncKind::Device) << ""
                                     << "cuda-device-synchronize";
    QTest::newRow("stream sync") << "cudaStreamSynchronize" << int(SyncKind::Stream) << ""
                                 << "cuda-stream-synchronize";
    QTest::newRow("event sync") << "cudaEventSynchronize" << int(SyncKind::Event) << ""
                                << "cuda-event-synchronize";
    QTest::newRow("free") << "cudaFree" << int(SyncKind::BlockingAlloc) << ""
                          << "cuda-free";
    QTest::newRow("driver free") << "cuMemFree_v2" << int(SyncKind::BlockingAlloc) << ""
                                 << "cuda-free";
    QTest::newRow("memset") << "cudaMemset" << int(SyncKind::BlockingMemset) << ""
                            << "cuda-memset-sync";
    QTest::newRow("pageable memcpy") << "cudaMemcpy" << int(SyncKind::PageableCopy) << ""
                                     << "cuda-memcpy-pageable";
    QTest::newRow("pinned memcpy") << "cudaMemcpy" << int(SyncKind::BlockingCopy) << ""
                                   << "cuda-memcpy";
    QTest::newRow("memcpy of another kind") << "cudaMemcpy" << int(SyncKind::Stream) << ""
                                            << "(none)";
    // A PyTorch statement's copy is named by the statement before the CUDA call.
    QTest::newRow(".to(cuda) from pageable")
        << "cudaMemcpyAsync" << int(SyncKind::PageableCopy) << "x = batch.to(\"cuda\")"
        << "pageable-upload";
    QTest::newRow(".cpu()") << "cudaMemcpyAsync" << int(SyncKind::PageableCopy)
                            << "out.append(emb.cpu())"
                            << "cpu-copy";
    QTest::newRow(".cpu().numpy()")
        << "cudaMemcpyAsync" << int(SyncKind::PageableCopy) << "out.append(emb.cpu().numpy())"
        << "numpy";
    QTest::newRow("x[idx] = scalar")
        << "cudaMemcpyAsync" << int(SyncKind::PageableCopy) << "done[idx] = False"
        << "cuda-memcpy-pageable";
    QTest::newRow("torch.tensor(data, device)") << "cudaMemcpyAsync" << int(SyncKind::PageableCopy)
                                                << "t = torch.tensor(rows, device=\"cuda\")"
                                                << "tensor-from-python";
    QTest::newRow(".to(cuda) that is no copy sync")
        << "cudaStreamSynchronize" << int(SyncKind::Stream) << "x = x.to(dev)"
        << "cuda-stream-synchronize";
}

void TestSyncOperations::cudaCalls() {
    QFETCH(QString, call);
    QFETCH(int, kind);
    QFETCH(QString, line);
    QFETCH(QString, operation);
    const std::string text = line.toStdString();
    QCOMPARE(idOf(ofCudaCall(call.toStdString(), static_cast<SyncKind>(kind), text)),
             operation.toStdString());
}

void TestSyncOperations::kindsOfTheSite() {
    // A .cpu() is a copy record and a stream sync: the copy rows match a site holding both, and
    // not a site of stream syncs alone.
    const std::string line = "preds.append(top5.cpu())";
    SyncEvidence both = ofCudaCall("cudaMemcpyAsync", SyncKind::Stream, line);
    both.kinds |= syncKindBit(SyncKind::PageableCopy);
    QCOMPARE(idOf(both), std::string("cpu-copy"));
    QCOMPARE(idOf(ofCudaCall("cudaMemcpyAsync", SyncKind::Stream, line)), std::string("(none)"));
}

void TestSyncOperations::valueReads() {
    // A cudaMemcpy whose copies each read a value is told as that, pageable or pinned; without
    // the copies' say-so it stays the copy it is. PyTorch's reads keep their own names: the
    // statement and the ATen op come before the CUDA call.
    for (const SyncKind kind : {SyncKind::PageableCopy, SyncKind::BlockingCopy}) {
        SyncEvidence value = ofCudaCall("cudaMemcpy", kind);
        value.readsValues = true;
        QCOMPARE(idOf(value), std::string("cuda-memcpy-value"));
    }
    QCOMPARE(idOf(ofCudaCall("cudaMemcpy", SyncKind::PageableCopy)),
             std::string("cuda-memcpy-pageable"));
    SyncEvidence stream = ofCudaCall("cudaMemcpy", SyncKind::Stream);
    stream.readsValues = true;
    QCOMPARE(idOf(stream), std::string("(none)"));
    SyncEvidence cpu = ofCudaCall("cudaMemcpyAsync", SyncKind::PageableCopy, "v = loss.cpu()");
    cpu.readsValues = true;
    QCOMPARE(idOf(cpu), std::string("cpu-copy"));
    SyncEvidence item = ofCudaCall("cudaMemcpyAsync", SyncKind::PageableCopy);
    item.aten.syncingOp = "_local_scalar_dense";
    item.readsValues = true;
    QCOMPARE(idOf(item), std::string("item"));
}

void TestSyncOperations::everyRecognitionIsReachable() {
    // Each row, its globs made concrete, is told as its own operation: no row is shadowed by an
    // earlier one that names another operation.
    auto concrete = [](std::string_view glob) {
        std::string text(glob);
        for (size_t star = text.find('*'); star != std::string::npos; star = text.find('*'))
            text.replace(star, 1, "x");
        return text;
    };
    for (const SyncRecognition& row : syncRecognitions()) {
        SyncEvidence evidence;
        if (!row.libraryFile.empty())
            evidence.library = {"/p/site-packages/" + concrete(row.libraryFile), 1,
                                concrete(row.libraryFunction)};
        evidence.aten.calledOp = concrete(row.calledOp);
        evidence.aten.syncingOp = concrete(row.syncingOp);
        evidence.cudaCall = concrete(row.cudaCall);
        const std::string line(row.source.substr(0, row.source.find('|')));
        evidence.line = line;
        evidence.readsValues = row.readsValues;
        for (int k = 1; k <= stallscope::format::kSyncKindMax; ++k)
            if (row.kinds == 0 || (row.kinds & syncKindBit(static_cast<SyncKind>(k))) != 0) {
                evidence.kinds = syncKindBit(static_cast<SyncKind>(k));
                break;
            }
        QCOMPARE(idOf(evidence), std::string(row.operation));
    }
}

void TestSyncOperations::cudaCallOfAStack() {
    // Innermost first: the recorder's callback, the driver call, the runtime call the program
    // made, the program; a Python frame ends the search (PyTorch's C++ below it is the op).
    const std::vector<FrameInfo> frames = {
        frame(FrameKind::Native, "stallscope::recorder::onCallback(void*)"),
        frame(FrameKind::Native, "cuCtxSynchronize"),
        frame(FrameKind::Native, "cudaDeviceSynchronize"),
        frame(FrameKind::Native, "c10::cuda::device_synchronize()"),
        frame(FrameKind::Python, "step"),
        frame(FrameKind::Native, "cudaStreamSynchronize"),
    };
    QCOMPARE(cudaCallOf(frames), std::string("cudaDeviceSynchronize"));
    QCOMPARE(cudaCallOf({frame(FrameKind::Native, "main")}), std::string());
    QCOMPARE(cudaCallOf({frame(FrameKind::Native, "cudaMemcpy_v3020(void*)")}),
             std::string("cudaMemcpy_v3020"));
    QCOMPARE(cudaCallOf({frame(FrameKind::Native, "cuda")}), std::string()); // no call name
}

void TestSyncOperations::sourceLines() {
    const std::string text = "first\n  y = x.item()  # read\nlast";
    QCOMPARE(sourceLineOf(text, 2), std::string_view("  y = x.item()  "));
    QCOMPARE(sourceLineOf(text, 3), std::string_view("last"));
    QCOMPARE(sourceLineOf(text, 4), std::string_view());
    QCOMPARE(sourceLineOf(text, 0), std::string_view());
    QCOMPARE(statementText("  y = x.item()  "), std::string("y = x.item()"));
    QCOMPARE(statementText("a\tb\x1b[2Jc"), std::string("a b [2Jc"));
    QCOMPARE(statementText("   "), std::string());
    const std::string longLine(200, 'x');
    QCOMPARE(statementText(longLine), std::string(120, 'x') + "…");
    QCOMPARE(statementText(std::string(120, 'x')), std::string(120, 'x'));
    QCOMPARE(sourceLineOf(std::string(10000, 'y'), 1).size(), size_t(4096));
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSyncOperations)
#include "test_sync_operations.moc"
