#include "model/analysis/library_advice.h"

#include "format/module_class.h"

#include <fnmatch.h>

#include <array>

namespace stallscope::model {

namespace {

// Texts shared by several rows.
constexpr std::string_view kLightningLogging =
    "Lightning reads logged values on the host (progress bar, loggers, sync_dist reductions) each "
    "time they are logged: in self.log(...) use on_step=False, on_epoch=True for values you need "
    "per epoch only (they accumulate on the GPU), keep sync_dist=False for per-step values, "
    "prog_bar=False where you need not watch them, and raise Trainer(log_every_n_steps=...).";
constexpr std::string_view kLightningTransfer =
    "Lightning moves data here: a batch to the GPU (pageable batches block the host: "
    "DataLoader(pin_memory=True) makes the copy asynchronous) or logged values to the host for "
    "the progress bar and loggers (self.log(..., on_step=False, on_epoch=True), prog_bar=False, "
    "a larger Trainer(log_every_n_steps=...)).";
constexpr std::string_view kTorchmetrics =
    "torchmetrics reads (and, in distributed runs, gathers) the metric state when it computes: "
    "call metric.update() each step and compute() once per epoch — log the metric object with "
    "self.log(name, metric, on_step=False, on_epoch=True) — and keep dist_sync_on_step=False.";
constexpr std::string_view kTrainerEval =
    "The Trainer copies predictions to the host during evaluation: unset "
    "eval_accumulation_steps (or raise it) to keep them on the GPU until the end, set "
    "prediction_loss_only=True when only the loss is needed, and shrink what is copied with "
    "preprocess_logits_for_metrics (e.g. argmax of the logits).";
constexpr std::string_view kTensorToHost =
    "Converting a tensor to a Python value copies it to the host and waits for the GPU: an "
    "f-string, print() or format() of a tensor, `if tensor:`, .item(), .tolist(), .cpu() and "
    ".numpy() all do. Keep values on the GPU (torch.where instead of if, accumulate with torch "
    "ops) and convert once, after the loop or every N steps.";

constexpr auto kRules = std::to_array<LibraryAdviceRule>({
    // PyTorch Lightning (pytorch_lightning/..., lightning/pytorch/..., lightning_fabric/...,
    // lightning/fabric/...).
    {"*lightning*/core/module.py", "log*", kLightningLogging},
    {"*lightning*/core/module.py", "*to_tensor", kLightningLogging},
    {"*lightning*/trainer/connectors/logger_connector/*", "*", kLightningLogging},
    {"*lightning*/utilities/apply_func.py", "convert_tensors_to_scalars", kLightningLogging},
    {"*lightning*/utilities/apply_func.py", "*", kLightningTransfer},
    {"*lightning*/utilities/distributed.py", "*sync*", kLightningLogging},
    {"torchmetrics/*", "*", kTorchmetrics},
    // Hugging Face transformers Trainer.
    {"transformers/trainer.py", "_inner_training_loop",
     "The Trainer reads the loss or token counts on the host every step here: set "
     "logging_nan_inf_filter=False (it tests each step's loss for nan/inf on the host) and "
     "include_num_input_tokens_seen=False (it gathers the token count each step), and raise "
     "logging_steps."},
    {"transformers/trainer.py", "_maybe_log_save_evaluate",
     "The Trainer reads the accumulated loss on the host each time it logs: raise logging_steps "
     "so it does so less often."},
    {"transformers/trainer.py", "*evaluation_loop", kTrainerEval},
    {"transformers/trainer.py", "prediction_loop", kTrainerEval},
    {"transformers/trainer.py", "_nested_gather", kTrainerEval},
    {"transformers/trainer_pt_utils.py", "nested_*", kTrainerEval},
    {"transformers/trainer.py", "*",
     "This is the Trainer's own loop: raise logging_steps, set logging_nan_inf_filter=False and "
     "include_num_input_tokens_seen=False to drop its per-step host reads."},
    // PyTorch.
    {"torch/utils/data/_utils/pin_memory.py", "*",
     "The DataLoader's pin-memory thread waits here while it pins a batch: it blocks your loop "
     "only when the loader falls behind (raise num_workers, prefetch_factor). In multi-GPU runs "
     "pass pin_memory_device with the device this process trains on."},
    {"torch/cuda/__init__.py", "synchronize",
     "torch.cuda.synchronize() waits for all work on the device: remove it from the loop; to "
     "time GPU work, record torch.cuda.Event(enable_timing=True) pairs and read them after the "
     "loop."},
    {"torch/cuda/streams.py", "synchronize",
     "This waits on the host for a stream or event: let streams wait on each other with "
     "stream.wait_event(event) / wait_stream, and synchronize on the host only where it reads "
     "the results."},
    {"torch/*amp/grad_scaler.py", "*",
     "GradScaler.step reads the inf/nan check on the host every step: with bfloat16 autocast no "
     "GradScaler is needed; with float16 the read is the price of loss scaling."},
    {"torch/nn/utils/clip_grad.py", "*",
     "Gradient clipping with error_if_nonfinite=True reads the norm on the host every step: "
     "leave it False (the default) and check the returned norm only when you log it."},
    {"torch/_tensor.py", "__format__", kTensorToHost},
    {"torch/_tensor.py", "__repr__", kTensorToHost},
    {"torch/_tensor.py", "__array__", kTensorToHost},
    {"torch/_tensor.py", "__bool__", kTensorToHost},
    {"torch/_tensor.py", "item", kTensorToHost},
    {"torch/_tensor.py", "tolist", kTensorToHost},
    {"torch/_tensor.py", "cpu", kTensorToHost},
    {"torch/_tensor.py", "numpy", kTensorToHost},
    {"torch/_tensor_str.py", "*", kTensorToHost},
});

bool globMatches(std::string_view glob, std::string_view text) {
    return ::fnmatch(std::string(glob).c_str(), std::string(text).c_str(), 0) == 0;
}

} // namespace

std::span<const LibraryAdviceRule> libraryAdviceRules() {
    return kRules;
}

std::string libraryAdvice(const SourceSite& site) {
    if (site.library.empty())
        return {};
    const std::string_view file = format::libraryFileLabel(site.library.file);
    for (const LibraryAdviceRule& rule : kRules)
        if (globMatches(rule.file, file) && globMatches(rule.function, site.library.function))
            return std::string(rule.advice);
    return {};
}

} // namespace stallscope::model
