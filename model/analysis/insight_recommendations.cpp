#include "model/analysis/insight_recommendations.h"

#include "format/enum_names.h"

namespace stallscope::model {

namespace {

using format::SyncKind;

bool isCopyKind(SyncKind kind) {
    return kind == SyncKind::PageableCopy || kind == SyncKind::BlockingCopy;
}

bool isAllocKind(SyncKind kind) {
    return kind == SyncKind::BlockingMemset || kind == SyncKind::BlockingAlloc;
}

std::string attribution(bool python, SyncKind kind) {
    if (isCopyKind(kind))
        return python ? "This line reads GPU values on the host (.item(), .cpu(), .tolist(), "
                        "print(tensor) or Python control flow on a tensor), which waits for all "
                        "queued work. Keep values on the GPU (accumulate with torch ops, use "
                        "torch.where instead of if) and read them once, after the loop."
                      : "This blocking copy waits for all queued work. Copy into pinned memory "
                        "with cudaMemcpyAsync and wait on an event only where the value is used; "
                        "batch small reads into one copy.";
    if (isAllocKind(kind))
        return python ? "Allocations, frees or memsets here wait for the GPU. Let the caching "
                        "allocator reuse memory: preallocate buffers and avoid "
                        "torch.cuda.empty_cache() in the loop."
                      : "Allocations, frees or memsets here wait for the GPU. Use "
                        "cudaMallocAsync/cudaFreeAsync and cudaMemsetAsync (stream-ordered) or "
                        "preallocate buffers outside the loop.";
    return python ? "Remove this synchronization from the hot path if the host does not need the "
                    "GPU's results here; otherwise synchronize once where they are used (after "
                    "the loop), or record a torch.cuda.Event after the work you need and wait on "
                    "that event alone."
                  : "Remove this synchronization from the hot path if the host does not need the "
                    "results here; otherwise synchronize once where they are used, or record a "
                    "cudaEvent after the work you need and cudaEventSynchronize on it "
                    "(cudaStreamWaitEvent orders streams without blocking the host).";
}

} // namespace

std::string syncKindLabel(format::SyncKind kind) {
    static constexpr auto kLabels =
        std::to_array<std::string_view>({"Sync", // 0 is no kind
                                         "Stream sync", "Device sync", "Event sync", "Stream wait",
                                         "Blocking copy to pageable memory", "Blocking copy",
                                         "Blocking memset", "Blocking alloc/free"});
    static_assert(kLabels.size() == format::kSyncKindMax + 1);
    return std::string(format::nameOf(kLabels, kind, kLabels[0]));
}

std::string recommendationFor(InsightRule rule, SourceLanguage language, format::SyncKind kind) {
    const bool python = language == SourceLanguage::Python;
    switch (rule) {
    case InsightRule::SyncAttribution:
        return attribution(python, kind);
    case InsightRule::InLoopSync:
        if (isAllocKind(kind)) // a free in the loop: no sync to move, an allocation to keep
            return attribution(python, kind);
        return python ? "Move the sync after the loop: keep per-step values on the GPU (e.g. "
                        "losses.append(loss.detach()) and read torch.stack(losses).mean().item() "
                        "once at the end, or log every N steps), or capture the loop body in a "
                        "CUDA graph (torch.cuda.CUDAGraph, torch.cuda.make_graphed_callables or "
                        "torch.compile(mode=\"reduce-overhead\")) so replays amortize launch "
                        "overhead."
                      : "Move the synchronize after the loop if the results are needed only at "
                        "the end; keep intermediate values in device memory and copy them back "
                        "once; or capture the loop body into a CUDA graph (cudaStreamBeginCapture "
                        "... cudaGraphLaunch) so replays amortize launch overhead.";
    case InsightRule::PageableCopy:
        return python ? "Copy without blocking into pinned memory: x.to('cpu', non_blocking=True) "
                        "into a pin_memory=True buffer, then wait on a torch.cuda.Event only where "
                        "the value is used; or batch the reads: torch.stack([a, b, c]).cpu() once "
                        "instead of one .item() per value."
                      : "Allocate the host buffer pinned (cudaMallocHost or cudaHostRegister), "
                        "copy with cudaMemcpyAsync on a stream and cudaEventSynchronize only where "
                        "the value is used; batch small reads into one copy.";
    case InsightRule::DeviceSync:
        return python ? "torch.cuda.synchronize() waits for every stream of the device, but only "
                        "one stream had work here: wait for that stream alone "
                        "(torch.cuda.current_stream().synchronize()) or record a torch.cuda.Event "
                        "after the work you need and call event.synchronize()."
                      : "cudaDeviceSynchronize waits for every stream of the device, but only one "
                        "stream had work here: use cudaStreamSynchronize on that stream, or record "
                        "a cudaEvent after the work you need and cudaEventSynchronize on it.";
    case InsightRule::GpuBubble:
        return python ? "Each sync drains the GPU queue and the GPU then waits for Python to "
                        "launch the next work. Remove or defer the sync so the host runs ahead of "
                        "the GPU; if a value is needed, read the previous step's value so the next "
                        "step is already queued."
                      : "Each sync drains the GPU queue and the GPU then waits for the host to "
                        "launch the next kernel. Remove or defer the sync so the host keeps the "
                        "queue full, or queue the next work before waiting (double-buffer with "
                        "events).";
    case InsightRule::DefaultStream:
        return python ? "Work on the legacy default stream waits for, and blocks, every other "
                        "stream. Run it on a dedicated torch.cuda.Stream() and order streams "
                        "explicitly (stream.wait_stream, stream.wait_event)."
                      : "Work on the legacy default stream waits for, and blocks, every other "
                        "blocking stream. Create streams with cudaStreamCreateWithFlags(..., "
                        "cudaStreamNonBlocking) or build with nvcc --default-stream per-thread, "
                        "and order streams explicitly with cudaStreamWaitEvent.";
    case InsightRule::LaunchBound:
        return python ? "The GPU finishes each kernel before the next one is launched. Capture "
                        "the stretch in a CUDA graph (torch.cuda.CUDAGraph, "
                        "torch.cuda.make_graphed_callables or torch.compile(mode="
                        "\"reduce-overhead\")) so one launch replays all kernels, and fuse small "
                        "ops (torch.compile) to launch fewer kernels."
                      : "The GPU finishes each kernel before the next one is launched. Capture the "
                        "sequence into a CUDA graph (cudaStreamBeginCapture/cudaStreamEndCapture, "
                        "cudaGraphInstantiate, cudaGraphLaunch) and replay it, and fuse small "
                        "kernels.";
    case InsightRule::HostGap:
        return python ? "The GPU waits while the host runs this line. Overlap it with the GPU's "
                        "work: load and collate batches in DataLoader workers (num_workers > 0, "
                        "pin_memory=True, prefetch), move logging and checkpoints off the step, "
                        "or queue the next step's kernels before doing it."
                      : "The GPU waits while the host runs this code. Overlap it with the GPU's "
                        "work: do it on another thread, or queue the next kernels before it.";
    case InsightRule::Straggler:
        return python ? "Every other rank waits inside the collective until this rank arrives. "
                        "Take the work named above out of its step: move host work (data "
                        "loading, collation, logging, checkpoints) into DataLoader workers or "
                        "off the training loop, read GPU values (.item()) without blocking or "
                        "every N steps, and give every rank the same work (balanced shards, no "
                        "rank-specific work inside the step)."
                      : "Every other rank waits inside the collective until this rank arrives. "
                        "Take the work named above out of its step: move host work onto another "
                        "thread, synchronize only where a value is needed (events, not "
                        "cudaStreamSynchronize) and give every rank the same work.";
    }
    return {};
}

std::string narrowingRecommendation(SourceLanguage language) {
    return language == SourceLanguage::Python
               ? "torch.cuda.synchronize() here also waits for the other streams' work: wait "
                 "only for the stream whose results the host reads next "
                 "(torch.cuda.current_stream().synchronize(), or a torch.cuda.Event recorded "
                 "after that work and event.synchronize())."
               : "cudaDeviceSynchronize here also waits for the other streams' work: wait only "
                 "for the stream whose results the host reads next (cudaStreamSynchronize, or "
                 "cudaEventSynchronize on an event recorded after that work).";
}

std::string pageableUploadRecommendation(SourceLanguage language) {
    return language == SourceLanguage::Python
               ? "Upload from pinned memory: DataLoader(..., pin_memory=True), or pin the host "
                 "tensor once (x = x.pin_memory(), or a preallocated pinned buffer you copy "
                 "into), then x.to('cuda', non_blocking=True); from pageable memory the copy "
                 "blocks the host even with non_blocking=True."
               : "Allocate the host buffer pinned (cudaMallocHost or cudaHostRegister) and copy "
                 "with cudaMemcpyAsync on a stream: from pageable memory the driver stages the "
                 "copy while the host waits.";
}

} // namespace stallscope::model
