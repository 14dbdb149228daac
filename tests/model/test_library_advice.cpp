// model/analysis/library_advice.h: each known library sync point gets the advice that speaks to
// the user's lever; unknown library lines and syncs in user code get none.
#include "model/analysis/library_advice.h"

#include <QTest>

using namespace stallscope::model;

namespace {

SourceSite siteInside(const std::string& libraryFile, const std::string& function) {
    SourceSite site{"/home/u/train.py", 34, "main", SourceLanguage::Python};
    site.library = {libraryFile, 134, function};
    return site;
}

} // namespace

class TestLibraryAdvice : public QObject {
    Q_OBJECT
private slots:
    void knownSyncPoints_data();
    void knownSyncPoints();
    void noAdvice_data();
    void noAdvice();
    void firstMatchWins();
    void everyRuleIsReachable();
};

void TestLibraryAdvice::knownSyncPoints_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("function");
    QTest::addColumn<QString>("lever"); // a word of the advice the user acts on
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
                                          << "f-string";
    QTest::newRow("print of a tensor") << sp + "torch/_tensor_str.py"
                                       << "_tensor_str"
                                       << "print()";
    QTest::newRow("if tensor") << sp + "torch/_tensor.py"
                               << "__bool__"
                               << "if tensor:";
    QTest::newRow("item") << sp + "torch/_tensor.py"
                          << "item"
                          << ".item()";
    QTest::newRow("tolist") << sp + "torch/_tensor.py"
                            << "tolist"
                            << ".tolist()";
    QTest::newRow("cpu") << sp + "torch/_tensor.py"
                         << "cpu"
                         << ".cpu()";
    QTest::newRow("numpy array") << sp + "torch/_tensor.py"
                                 << "__array__"
                                 << ".numpy()";
    QTest::newRow("relative path (Kineto)") << "torch/_tensor.py"
                                            << "__repr__"
                                            << "print()";
}

void TestLibraryAdvice::knownSyncPoints() {
    QFETCH(QString, file);
    QFETCH(QString, function);
    QFETCH(QString, lever);
    const std::string advice =
        libraryAdvice(siteInside(file.toStdString(), function.toStdString()));
    QVERIFY2(advice.find(lever.toStdString()) != std::string::npos, advice.c_str());
}

void TestLibraryAdvice::noAdvice_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("function");
    const QString sp = "/venv/lib/python3.12/site-packages/";
    QTest::newRow("sync in user code") << ""
                                       << "";
    QTest::newRow("unknown library") << sp + "mylib/loop.py"
                                     << "step";
    QTest::newRow("other torch.cuda function") << sp + "torch/cuda/__init__.py"
                                               << "current_device";
    QTest::newRow("other Tensor method") << sp + "torch/_tensor.py"
                                         << "backward";
    QTest::newRow("other lightning module function") << sp + "lightning/pytorch/core/module.py"
                                                     << "forward";
    QTest::newRow("other transformers file") << sp + "transformers/modeling_utils.py"
                                             << "forward";
    QTest::newRow("torch file named like a tensor one") << sp + "torch/_tensor_docs.py"
                                                        << "item";
}

void TestLibraryAdvice::noAdvice() {
    QFETCH(QString, file);
    QFETCH(QString, function);
    SourceSite site = siteInside(file.toStdString(), function.toStdString());
    if (file.isEmpty())
        site.library = {};
    QCOMPARE(libraryAdvice(site), std::string());
}

void TestLibraryAdvice::firstMatchWins() {
    // convert_tensors_to_scalars (logging) is listed before apply_func's other functions (data
    // transfer): both match the file.
    const std::string file = "/x/site-packages/lightning_fabric/utilities/apply_func.py";
    const std::string scalars = libraryAdvice(siteInside(file, "convert_tensors_to_scalars"));
    const std::string move = libraryAdvice(siteInside(file, "move_data_to_device"));
    QVERIFY(!scalars.empty() && !move.empty());
    QVERIFY(scalars != move);
    QVERIFY(move.find("pin_memory=True") != std::string::npos);
    QVERIFY(scalars.find("pin_memory=True") == std::string::npos);
}

void TestLibraryAdvice::everyRuleIsReachable() {
    // Each row, its globs made concrete, gets its own advice: no row is shadowed by an earlier
    // one with other advice.
    auto concrete = [](std::string_view glob) {
        std::string text(glob);
        for (size_t star = text.find('*'); star != std::string::npos; star = text.find('*'))
            text.replace(star, 1, "x");
        return text;
    };
    const auto rules = libraryAdviceRules();
    QVERIFY(rules.size() >= 20);
    for (const LibraryAdviceRule& rule : rules) {
        const SourceSite site =
            siteInside("/p/site-packages/" + concrete(rule.file), concrete(rule.function));
        QCOMPARE(libraryAdvice(site), std::string(rule.advice));
        QVERIFY(!rule.advice.empty());
    }
}

QTEST_GUILESS_MAIN(TestLibraryAdvice)
#include "test_library_advice.moc"
