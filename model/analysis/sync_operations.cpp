#include "model/analysis/sync_operations.h"

#include "format/module_class.h"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace stallscope::model {

namespace {

using format::SyncKind;

constexpr uint16_t kCopies =
    syncKindBit(SyncKind::PageableCopy) | syncKindBit(SyncKind::BlockingCopy);
constexpr uint16_t kAllocs =
    syncKindBit(SyncKind::BlockingAlloc) | syncKindBit(SyncKind::BlockingMemset);

// Texts several entries share.
constexpr std::string_view kLightningLogging =
    "Lightning reads logged values on the host (progress bar, loggers, sync_dist reductions) each "
    "time they are logged: in self.log(...) use on_step=False, on_epoch=True for values you need "
    "per epoch only (they accumulate on the GPU), keep sync_dist=False for per-step values, "
    "prog_bar=False where you need not watch them, and raise Trainer(log_every_n_steps=...).";
constexpr std::string_view kTrainerEval =
    "The Trainer copies predictions to the host during evaluation: unset "
    "eval_accumulation_steps (or raise it) to keep them on the GPU until the end, set "
    "prediction_loss_only=True when only the loss is needed, and shrink what is copied with "
    "preprocess_logits_for_metrics (e.g. argmax of the logits).";
constexpr std::string_view kKeepOnGpu =
    "Keep the value on the GPU and read it once: accumulate with torch ops "
    "(losses.append(loss.detach()), then torch.stack(losses).mean().item() after the loop), or "
    "read it every N steps.";
constexpr std::string_view kDecideOnGpu =
    "Decide on the GPU instead: torch.where(cond, a, b), scale the update by the condition "
    "(p.mul_(ok)), torch._assert_async(cond) for checks; or decide every N steps.";

// clang-format off
constexpr auto kOperations = std::to_array<SyncOperation>({
    // Libraries: the user's lever is an option or a call pattern of the library.
    {"lightning-log", "Lightning self.log", "reads the logged value on the host", kLightningLogging, "", SyncFix::LibraryOption},
    {"lightning-transfer", "Lightning batch transfer",
     "moves the batch to the GPU, or logged values to the host",
     "Pageable batches block the host while Lightning moves them: DataLoader(pin_memory=True) makes "
     "the copy asynchronous. For logged values: self.log(..., on_step=False, on_epoch=True), "
     "prog_bar=False, a larger Trainer(log_every_n_steps=...).", "", SyncFix::LibraryOption},
    {"torchmetrics-compute", "torchmetrics compute()", "reads (and in distributed runs gathers) the metric state",
     "torchmetrics reads the metric state when it computes: call metric.update() each step and "
     "compute() once per epoch — log the metric object with self.log(name, metric, "
     "on_step=False, on_epoch=True) — and keep dist_sync_on_step=False.", "", SyncFix::LibraryOption},
    {"trainer-step-reads", "transformers Trainer step", "reads the loss or token counts on the host every step",
     "Set logging_nan_inf_filter=False (it tests each step's loss for nan/inf on the host) and "
     "include_num_input_tokens_seen=False (it gathers the token count each step), and raise "
     "logging_steps.", "", SyncFix::LibraryOption},
    {"trainer-logging", "transformers Trainer logging", "reads the accumulated loss on the host each time it logs",
     "Raise logging_steps so the Trainer reads the loss less often.", "", SyncFix::LibraryOption},
    {"trainer-eval", "transformers Trainer evaluation", "copies predictions to the host", kTrainerEval, "", SyncFix::LibraryOption},
    {"trainer-batch-transfer", "transformers Trainer batch transfer",
     "copies each batch to the GPU from pageable memory (Accelerate's send_to_device)",
     "Keep TrainingArguments(dataloader_pin_memory=True), the default, and have the Dataset "
     "return CPU tensors so the DataLoader pins them; build tensors the collator would make each "
     "step on the GPU instead of copying them there.", "", SyncFix::PinnedCopy},
    {"trainer-other", "transformers Trainer loop", "reads values on the host in its own loop",
     "Raise logging_steps, set logging_nan_inf_filter=False and include_num_input_tokens_seen=False "
     "to drop the Trainer's per-step host reads.", "", SyncFix::LibraryOption},
    {"grad-scaler", "GradScaler unscale_/step", "reads the inf/nan check on the host every step",
     "With bfloat16 autocast no GradScaler is needed; with float16 the read is the price of loss "
     "scaling (GradScaler(enabled=False) under bf16).", "", SyncFix::LibraryOption},
    {"clip-grad-nonfinite", "clip_grad_norm_(error_if_nonfinite=True)", "reads the norm on the host every step",
     "Leave error_if_nonfinite=False (the default) and check the returned norm only when you log "
     "it.", "", SyncFix::LibraryOption},
    {"pin-memory-thread", "DataLoader pin-memory thread", "waits while it pins a batch",
     "It blocks your loop only when the loader falls behind: raise num_workers or "
     "prefetch_factor; in multi-GPU runs pass pin_memory_device with this process's device.", "", SyncFix::LibraryOption},
    {"dist-collective", "torch.distributed call", "waits on the host for a collective (barrier(), a blocking wait)",
     "Do not call dist.barrier() or wait on collectives in the step: let NCCL order the work on "
     "the GPU (async_op=True and work.wait() only where the result is used), and read reduced "
     "values every N steps.", "", SyncFix::ReadLater},
    // torch.cuda calls.
    {"cuda-synchronize", "torch.cuda.synchronize()", "waits for all work on the device",
     "Remove it from the loop; to time GPU work, record torch.cuda.Event(enable_timing=True) "
     "pairs and read them after the loop; where the host reads results, wait for that stream "
     "alone.", "", SyncFix::NarrowWait},
    {"stream-event-synchronize", "Stream/Event.synchronize()", "waits on the host for a stream or event",
     "Let streams wait on each other (stream.wait_event(event), wait_stream) and synchronize on "
     "the host only where it reads the results.", "", SyncFix::NarrowWait},
    {"empty-cache", "torch.cuda.empty_cache()", "frees the cached blocks, which waits for the device; the next allocations go back to cudaMalloc",
     "Do not empty the cache in the loop: the caching allocator reuses the blocks. If memory is "
     "tight, preallocate the buffers or set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.", "", SyncFix::Preallocate},
    // Tensors turned into Python values.
    {"print-tensor", "print() of a CUDA tensor", "formats the value on the host, one or more copies and waits each time",
     "Print a value kept on the GPU every N steps: losses.append(loss.detach()) each step and "
     "print(torch.stack(losses).mean().item()) every N.", "", SyncFix::ReadLater},
    {"format-tensor", "f-string/format() of a CUDA tensor", "formats the value on the host",
     "Log with lazy arguments (log.debug(\"loss %s\", loss) formats only when the message is "
     "emitted), or format a value read every N steps.", "", SyncFix::ReadLater},
    {"numpy", ".cpu().numpy() of a CUDA tensor", "copies the tensor to host memory and waits",
     "Keep the computation in torch on the GPU; where NumPy needs it, copy once into a pinned "
     "buffer (.to('cpu', non_blocking=True) into pin_memory()) and wait on an event where it is "
     "read.", "", SyncFix::PinnedCopy},
    {"tolist", ".tolist()", "copies the tensor to the host and builds a Python list",
     "Collect on the GPU (torch.cat of the per-step tensors) and call .tolist() once after the "
     "loop.", "", SyncFix::ReadLater},
    {"python-minmax", "Python max()/min()/sorted() over CUDA tensors", "compares tensors as Python bools, each comparison a wait",
     "Use torch.max / torch.min / torch.sort on a stacked tensor: one GPU op, no host decision.", "", SyncFix::DecideOnGpu},
    {"any-all-condition", "t.any()/t.all() in a condition", "turns a GPU reduction into a Python bool",
     kDecideOnGpu, "", SyncFix::DecideOnGpu},
    {"assert-tensor", "assert on a CUDA tensor", "waits for the GPU to decide the assertion",
     "torch._assert_async(cond) checks on the GPU without waiting; or check every N steps.", "", SyncFix::DecideOnGpu},
    {"while-tensor", "while on a CUDA tensor", "waits for the GPU at every test of the loop condition",
     "Run a fixed number of iterations and mask the finished ones (torch.where), testing the "
     "condition every N iterations.", "", SyncFix::DecideOnGpu},
    {"bool-condition", "if/bool() on a CUDA tensor", "waits for the GPU to decide",
     kDecideOnGpu, "", SyncFix::DecideOnGpu},
    {"scalar-conversion", "float(t) / int(t) of a CUDA tensor", "copies the value to the host and waits",
     kKeepOnGpu, "", SyncFix::ReadLater},
    {"item", ".item()", "copies the value to the host and waits", kKeepOnGpu, "", SyncFix::ReadLater},
    // Operations whose output size depends on the data.
    {"bool-mask-assign", "Boolean-mask assignment x[mask] = v", "needs the number of selected elements on the host",
     "Keep the shape fixed: x.masked_fill_(mask, v) for a scalar, torch.where(mask, v, x) for a "
     "tensor.", "", SyncFix::FixedShape},
    {"scalar-assign", "x[idx] = Python scalar", "uploads the scalar from pageable memory first",
     "x.index_fill_(dim, idx, value) (or masked_fill_ with a mask) takes the scalar as an "
     "argument: no copy.", "", SyncFix::Remove},
    {"bool-mask-index", "Boolean-mask indexing x[mask]", "needs the number of selected elements on the host",
     "Keep the shapes fixed: weight by the mask ((loss * mask).sum() / mask.sum()), ignore_index "
     "in the loss (F.cross_entropy(logits, labels.masked_fill(~mask, -100))), or "
     "torch.where(mask, x, fill).", "", SyncFix::FixedShape},
    {"masked-select", "torch.masked_select", "returns as many elements as the mask selects",
     "torch.where(mask, x, 0) keeps the shape; reduce over it with the mask as a weight.", "", SyncFix::FixedShape},
    {"where-one-arg", "torch.where(cond) with one argument", "returns as many indices as the data holds",
     "torch.where(cond, a, b) with three arguments, a mask, or torch.nonzero_static(cond, "
     "size=N).", "", SyncFix::FixedShape},
    {"nonzero", "torch.nonzero / argwhere", "returns as many rows as the data holds",
     "torch.nonzero_static(x, size=N) (padded with fill_value), or work with the mask itself.", "", SyncFix::FixedShape},
    {"unique-consecutive", "torch.unique_consecutive", "returns as many values as the data holds",
     "Mark run starts with a mask (x[1:] != x[:-1]) and keep the shape fixed.", "", SyncFix::FixedShape},
    {"unique", "torch.unique", "returns as many values as the data holds",
     "Count or mark over a known range instead: torch.zeros(n, dtype=torch.bool).index_fill_(0, "
     "x, True), or torch.bincount(x, minlength=n).", "", SyncFix::FixedShape},
    {"bincount", "torch.bincount without minlength", "reads the input's largest value on the host to size its output",
     "Count into a fixed size: torch.zeros(n, device=x.device).scatter_add_(0, x, "
     "torch.ones_like(x, dtype=torch.float)) (bincount syncs even with minlength).", "", SyncFix::FixedShape},
    {"repeat-interleave", "repeat_interleave without output_size", "sums the repeats on the host to size its output",
     "Pass output_size= when you know it (e.g. the batch's padded length).", "", SyncFix::FixedShape},
    {"cudnn-autotune", "cuDNN algorithm search (cudnn.benchmark)", "times candidate kernels for each new input shape, waiting for each",
     "It runs once per input shape: keep the shapes fixed (pad to a few lengths), or set "
     "torch.backends.cudnn.benchmark = False where the shapes change every step.", "", SyncFix::Remove},
    // Copies.
    {"module-to-device", "model.to(device) / model.cuda()", "uploads the parameters from pageable memory",
     "Harmless once, before the loop; in the loop, move the module once and keep it on the GPU.", "", SyncFix::Remove},
    {"tensor-from-python", "torch.tensor(data, device=\"cuda\")", "copies Python data from pageable memory and waits",
     "Build it on the CPU in pinned memory (torch.tensor(data).pin_memory()) and move it with "
     ".to('cuda', non_blocking=True); for constants create them on the GPU once, outside the "
     "loop.", "", SyncFix::PinnedCopy},
    {"pageable-upload", ".to(\"cuda\") / .cuda() from pageable memory", "the copy blocks the host even with non_blocking=True",
     "Upload from pinned memory: DataLoader(..., pin_memory=True), or pin the host tensor once "
     "(x = x.pin_memory(), or a preallocated pinned buffer you copy into), then "
     "x.to('cuda', non_blocking=True).",
     "Allocate the host buffer pinned (cudaMallocHost or cudaHostRegister) and copy with "
     "cudaMemcpyAsync on a stream: from pageable memory the driver stages the copy while the "
     "host waits.", SyncFix::PinnedCopy},
    {"cpu-copy", ".cpu() / .to(\"cpu\")", "copies the tensor to the host and waits",
     "Copy without blocking into pinned memory: x.to('cpu', non_blocking=True) into a "
     "pin_memory() buffer, then wait on a torch.cuda.Event only where the value is used; batch "
     "the reads into one copy.", "", SyncFix::PinnedCopy},
    // CUDA API calls (C++ programs and extensions).
    {"cuda-device-synchronize", "cudaDeviceSynchronize", "waits for every stream of the device",
     "Wait for the work the host uses alone: torch.cuda.current_stream().synchronize() or a "
     "torch.cuda.Event.",
     "Use cudaStreamSynchronize on the stream whose results the host reads, or "
     "cudaEventSynchronize on an event recorded after that work; move it after the loop if the "
     "results are needed only at the end.", SyncFix::NarrowWait},
    {"cuda-stream-synchronize", "cudaStreamSynchronize", "waits for the stream's queued work",
     "Synchronize once where the results are used, or wait on an event recorded after the work "
     "you need.",
     "Synchronize once where the results are used (after the loop), or record a cudaEvent "
     "after the work you need and cudaEventSynchronize on it; cudaStreamWaitEvent orders "
     "streams without blocking the host.", SyncFix::ReadLater},
    {"cuda-event-synchronize", "cudaEventSynchronize", "waits for the event's work",
     "Wait only where the result is read; let streams wait on events on the GPU.",
     "Wait only where the result is read, and let streams wait with cudaStreamWaitEvent; poll "
     "with cudaEventQuery where the host has other work.", SyncFix::ReadLater},
    {"cuda-free", "cudaFree in the loop", "waits for the device before it frees",
     "Let the caching allocator reuse memory: preallocate buffers and keep them.",
     "Allocate once outside the loop and reuse the buffer, or use the stream-ordered "
     "cudaMallocAsync/cudaFreeAsync.", SyncFix::Preallocate},
    {"cuda-memset-sync", "cudaMemset (synchronous)", "waits for the device",
     "Use torch.zero_() / fill_() on the GPU stream.",
     "Use cudaMemsetAsync on the stream.", SyncFix::Remove},
    {"cuda-memcpy-value", "cudaMemcpy of a value to the host",
     "waits for all queued work to read one value (a norm, a flag, a count)",
     "Keep the value on the GPU and read it every N steps, or decide on the GPU.",
     "Keep the value on the device and read it every N iterations (a convergence test every 20 "
     "sweeps), or decide on the GPU: a flag the next kernels check, a conditional graph node; "
     "read several values with one copy.", SyncFix::ReadLater},
    {"cuda-memcpy-pageable", "cudaMemcpy with pageable host memory", "the driver stages the copy while the host waits",
     "Pin the host buffer and copy asynchronously.",
     "Allocate the host buffer pinned (cudaMallocHost or cudaHostRegister), copy with "
     "cudaMemcpyAsync on a stream and cudaEventSynchronize only where the value is used.", SyncFix::PinnedCopy},
    {"cuda-memcpy", "cudaMemcpy (synchronous)", "waits for all queued work before it copies",
     "Copy asynchronously into pinned memory and wait on an event where the value is used.",
     "Copy with cudaMemcpyAsync into pinned memory on the stream and cudaEventSynchronize only "
     "where the value is used; batch small reads into one copy.", SyncFix::PinnedCopy},
});

// In match order: the specific before the general (a library's frame before the op it calls;
// `assert t` before `if t`; boolean-mask indexing before nonzero).
constexpr auto kRecognitions = std::to_array<SyncRecognition>({
    {.operation = "lightning-log", .libraryFile = "*lightning*/core/module.py", .libraryFunction = "log*"},
    {.operation = "lightning-log", .libraryFile = "*lightning*/core/module.py", .libraryFunction = "*to_tensor"},
    {.operation = "lightning-log", .libraryFile = "*lightning*/trainer/connectors/logger_connector/*", .libraryFunction = "*"},
    {.operation = "lightning-log", .libraryFile = "*lightning*/utilities/apply_func.py", .libraryFunction = "convert_tensors_to_scalars"},
    {.operation = "lightning-log", .libraryFile = "*lightning*/utilities/apply_func.py", .libraryFunction = "to_item"},
    {.operation = "lightning-transfer", .libraryFile = "*lightning*/utilities/apply_func.py", .libraryFunction = "*"},
    {.operation = "lightning-log", .libraryFile = "*lightning*/utilities/distributed.py", .libraryFunction = "*sync*"},
    {.operation = "torchmetrics-compute", .libraryFile = "torchmetrics/*", .libraryFunction = "*"},
    {.operation = "trainer-step-reads", .libraryFile = "transformers/trainer.py", .libraryFunction = "_inner_training_loop"},
    {.operation = "trainer-step-reads", .libraryFile = "transformers/trainer.py", .libraryFunction = "_run_epoch"},
    {.operation = "trainer-logging", .libraryFile = "transformers/trainer.py", .libraryFunction = "_maybe_log_save_evaluate"},
    {.operation = "trainer-eval", .libraryFile = "transformers/trainer.py", .libraryFunction = "*evaluation_loop"},
    {.operation = "trainer-eval", .libraryFile = "transformers/trainer.py", .libraryFunction = "prediction_loop"},
    {.operation = "trainer-eval", .libraryFile = "transformers/trainer.py", .libraryFunction = "_nested_gather"},
    {.operation = "trainer-eval", .libraryFile = "transformers/trainer_pt_utils.py", .libraryFunction = "nested_*"},
    {.operation = "trainer-other", .libraryFile = "transformers/trainer.py", .libraryFunction = "*"},
    {.operation = "trainer-batch-transfer", .libraryFile = "accelerate/utils/operations.py", .libraryFunction = "send_to_device"},
    {.operation = "trainer-batch-transfer", .libraryFile = "accelerate/data_loader.py", .libraryFunction = "__iter__"},
    {.operation = "grad-scaler", .libraryFile = "torch/*amp/grad_scaler.py", .libraryFunction = "*"},
    {.operation = "clip-grad-nonfinite", .libraryFile = "torch/nn/utils/clip_grad.py", .libraryFunction = "*"},
    {.operation = "pin-memory-thread", .libraryFile = "torch/utils/data/_utils/pin_memory.py", .libraryFunction = "*"},
    {.operation = "dist-collective", .libraryFile = "torch/distributed/*", .libraryFunction = "*"},
    {.operation = "module-to-device", .libraryFile = "torch/nn/modules/module.py", .libraryFunction = "<lambda>"},
    {.operation = "module-to-device", .libraryFile = "torch/nn/modules/module.py", .libraryFunction = "convert"},
    {.operation = "module-to-device", .libraryFile = "torch/nn/modules/module.py", .libraryFunction = "_apply"},
    {.operation = "cuda-synchronize", .libraryFile = "torch/cuda/__init__.py", .libraryFunction = "synchronize"},
    {.operation = "stream-event-synchronize", .libraryFile = "torch/cuda/streams.py", .libraryFunction = "synchronize"},
    {.operation = "empty-cache", .libraryFile = "torch/cuda/memory.py", .libraryFunction = "empty_cache"},
    {.operation = "print-tensor", .libraryFile = "torch/_tensor_str.py", .libraryFunction = "*"},
    {.operation = "print-tensor", .libraryFile = "torch/_tensor.py", .libraryFunction = "__repr__"},
    {.operation = "format-tensor", .libraryFile = "torch/_tensor.py", .libraryFunction = "__format__"},
    {.operation = "numpy", .libraryFile = "torch/_tensor.py", .libraryFunction = "__array__"},
    {.operation = "numpy", .libraryFile = "torch/_tensor.py", .libraryFunction = "numpy"},
    {.operation = "tolist", .libraryFile = "torch/_tensor.py", .libraryFunction = "tolist"},
    {.operation = "cpu-copy", .libraryFile = "torch/_tensor.py", .libraryFunction = "cpu"},
    {.operation = "item", .libraryFile = "torch/_tensor.py", .libraryFunction = "item"},
    {.operation = "bool-condition", .libraryFile = "torch/_tensor.py", .libraryFunction = "__bool__"},
    // A tensor as a Python bool (is_nonzero), told apart by the statement.
    {.operation = "assert-tensor", .calledOp = "is_nonzero", .source = "assert "},
    {.operation = "while-tensor", .calledOp = "is_nonzero", .source = "while "},
    {.operation = "any-all-condition", .calledOp = "is_nonzero", .source = ".any(|.all("},
    {.operation = "python-minmax", .calledOp = "is_nonzero", .source = " max(|(max(| min(|(min(|sorted("},
    {.operation = "bool-condition", .calledOp = "is_nonzero"},
    // Values read into Python.
    {.operation = "format-tensor", .calledOp = "item", .source = "f\"|f'|.format("},
    {.operation = "print-tensor", .calledOp = "item", .source = "print("},
    {.operation = "scalar-conversion", .calledOp = "item", .source = "float(|int("},
    {.operation = "item", .calledOp = "item"},
    {.operation = "tolist", .source = ".tolist("},
    // Data-dependent sizes.
    {.operation = "bool-mask-assign", .calledOp = "index_put*", .syncingOp = "nonzero"},
    {.operation = "scalar-assign", .calledOp = "index_put*", .kinds = syncKindBit(SyncKind::PageableCopy)},
    {.operation = "bool-mask-assign", .calledOp = "masked_scatter*"},
    {.operation = "bool-mask-assign", .calledOp = "index*", .syncingOp = "nonzero", .source = "] ="},
    {.operation = "bool-mask-index", .calledOp = "index*", .syncingOp = "nonzero"},
    {.operation = "masked-select", .calledOp = "masked_select*"},
    {.operation = "where-one-arg", .calledOp = "where*", .syncingOp = "nonzero"},
    {.operation = "nonzero", .calledOp = "nonzero*"},
    {.operation = "nonzero", .calledOp = "argwhere*"},
    {.operation = "unique-consecutive", .calledOp = "unique_consecutive*"},
    {.operation = "unique", .calledOp = "_unique*"},
    {.operation = "unique", .calledOp = "unique*"},
    {.operation = "bincount", .calledOp = "bincount*"},
    {.operation = "repeat-interleave", .calledOp = "repeat_interleave*"},
    {.operation = "cudnn-autotune", .calledOp = "*convolution*"},
    {.operation = "cudnn-autotune", .calledOp = "conv*"},
    // Any other read of one value.
    {.operation = "item", .syncingOp = "_local_scalar_dense"},
    // Copies, by the statement (a .to() may go either way).
    {.operation = "tensor-from-python", .source = "torch.tensor(|torch.as_tensor(|Tensor(", .kinds = kCopies},
    {.operation = "numpy", .source = ".cpu().numpy(", .kinds = kCopies},
    {.operation = "cpu-copy", .source = ".cpu(|\"cpu\"|'cpu'", .kinds = kCopies},
    {.operation = "pageable-upload", .source = ".cuda(|.to(", .kinds = syncKindBit(SyncKind::PageableCopy)},
    // CUDA calls.
    {.operation = "cuda-free", .cudaCall = "cu*Free*", .kinds = kAllocs},
    {.operation = "cuda-free", .cudaCall = "cudaDeviceReset*", .kinds = kAllocs},
    {.operation = "cuda-memset-sync", .cudaCall = "cu*Memset*", .kinds = syncKindBit(SyncKind::BlockingMemset)},
    {.operation = "cuda-memcpy-value", .cudaCall = "cu*Memcpy*", .kinds = kCopies, .readsValues = true},
    {.operation = "cuda-memcpy-pageable", .cudaCall = "cu*Memcpy*", .kinds = syncKindBit(SyncKind::PageableCopy)},
    {.operation = "cuda-memcpy", .cudaCall = "cu*Memcpy*", .kinds = syncKindBit(SyncKind::BlockingCopy)},
    {.operation = "cuda-device-synchronize", .cudaCall = "cudaDeviceSynchronize*"},
    {.operation = "cuda-device-synchronize", .cudaCall = "cuCtxSynchronize*"},
    {.operation = "cuda-stream-synchronize", .cudaCall = "cu*StreamSynchronize*"},
    {.operation = "cuda-event-synchronize", .cudaCall = "cu*EventSynchronize*"},
});
// clang-format on

bool globMatches(std::string_view glob, std::string_view text) {
    return glob.empty() || ::fnmatch(std::string(glob).c_str(), std::string(text).c_str(), 0) == 0;
}

bool lineHolds(std::string_view alternatives, std::string_view line) {
    if (alternatives.empty())
        return true;
    for (size_t begin = 0; begin <= alternatives.size();) {
        size_t end = alternatives.find('|', begin);
        if (end == std::string_view::npos)
            end = alternatives.size();
        if (const std::string_view text = alternatives.substr(begin, end - begin);
            !text.empty() && line.find(text) != std::string_view::npos)
            return true;
        begin = end + 1;
    }
    return false;
}

bool matches(const SyncRecognition& r, const SyncEvidence& e) {
    if ((!r.libraryFile.empty() || !r.libraryFunction.empty()) && e.library.empty())
        return false;
    if (!r.libraryFile.empty() &&
        !globMatches(r.libraryFile, format::libraryFileLabel(e.library.file)))
        return false;
    if (!r.calledOp.empty() &&
        (e.aten.calledOp.empty() || !globMatches(r.calledOp, e.aten.calledOp)))
        return false;
    if (!r.syncingOp.empty() &&
        (e.aten.syncingOp.empty() || !globMatches(r.syncingOp, e.aten.syncingOp)))
        return false;
    if (!r.cudaCall.empty() && (e.cudaCall.empty() || !globMatches(r.cudaCall, e.cudaCall)))
        return false;
    if (r.kinds != 0 && (r.kinds & e.kinds) == 0)
        return false;
    if (r.readsValues && !e.readsValues)
        return false;
    return globMatches(r.libraryFunction, e.library.function) && lineHolds(r.source, e.line);
}

bool isCudaCallName(std::string_view name) {
    if (name.starts_with("cuda"))
        return name.size() > 4 && std::isupper(static_cast<unsigned char>(name[4]));
    return name.size() > 2 && name.starts_with("cu") &&
           std::isupper(static_cast<unsigned char>(name[2]));
}

} // namespace

std::span<const SyncOperation> syncOperations() {
    return kOperations;
}

std::span<const SyncRecognition> syncRecognitions() {
    return kRecognitions;
}

const SyncOperation* syncOperationById(std::string_view id) {
    for (const SyncOperation& operation : kOperations)
        if (operation.id == id)
            return &operation;
    return nullptr;
}

const SyncOperation* identifySyncOperation(const SyncEvidence& evidence) {
    for (const SyncRecognition& recognition : kRecognitions)
        if (matches(recognition, evidence))
            return syncOperationById(recognition.operation);
    return nullptr;
}

std::string cudaCallOf(const std::vector<FrameInfo>& frames) {
    std::string call;
    for (const FrameInfo& frame : frames) {
        if (frame.kind == format::FrameKind::Python)
            break;
        // "cudaDeviceSynchronize", "cudaMemcpy_v3020" (a versioned symbol): the name up to '('.
        const std::string_view name =
            std::string_view(frame.function)
                .substr(0, std::min(frame.function.find('('), frame.function.size()));
        if (isCudaCallName(name) && name.find("::") == std::string_view::npos)
            call = name;
    }
    return call;
}

std::string_view sourceLineOf(std::string_view text, int64_t line) {
    constexpr size_t kMaxLine = 4096;
    if (line <= 0)
        return {};
    size_t begin = 0;
    for (int64_t l = 1; l < line; ++l) {
        begin = text.find('\n', begin);
        if (begin == std::string_view::npos)
            return {};
        ++begin;
    }
    std::string_view result =
        text.substr(begin, std::min(text.find('\n', begin), text.size()) - begin);
    result = result.substr(0, std::min(result.find('#'), kMaxLine));
    return result;
}

std::string statementText(std::string_view line) {
    constexpr size_t kMaxStatement = 120;
    std::string text;
    for (const char c : line)
        text += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
    const size_t first = text.find_first_not_of(' ');
    if (first == std::string::npos)
        return {};
    text = text.substr(first, text.find_last_not_of(' ') - first + 1);
    if (text.size() > kMaxStatement) {
        size_t cut = kMaxStatement;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80)
            --cut; // not inside a UTF-8 sequence
        text = text.substr(0, cut) + "…";
    }
    return text;
}

} // namespace stallscope::model
