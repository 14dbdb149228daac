// The catalog behind synthetic sessions: the seeded random source, the CUDA API ids, the sync
// call sites (exact Python file:line), the Python callers and the kernel names. Constants only,
// so the generator's code stays about timing and ordering.
#pragma once

#include "format/session_schema.h"

#include <array>
#include <cstdint>
#include <vector>

namespace stallscope::model::synthetic {

using format::SyncKind;

// SplitMix64 with our own integer mapping: the std:: distributions are implementation-defined,
// and a seed must give the same session on every platform and standard library.
class Random {
public:
    explicit Random(uint64_t seed) : m_state(seed) {}
    uint64_t next() {
        uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // Uniform in [lo, hi]; the modulo bias (< 2^-40 for our spans) does not matter here.
    int64_t range(int64_t lo, int64_t hi) {
        return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
    }
    // value +- percent %.
    int64_t jitter(int64_t value, int64_t percent) {
        return value + value * range(-percent, percent) / 100;
    }

private:
    uint64_t m_state;
};

// CUPTI runtime callback ids (cupti_runtime_cbid.h), so the api_calls look like a recording.
enum Cbid : int64_t {
    kCbidMemcpy = 31,
    kCbidMemcpyAsync = 41,
    kCbidMemsetAsync = 51,
    kCbidStreamSynchronize = 131,
    kCbidEventRecord = 135,
    kCbidEventSynchronize = 137,
    kCbidStreamWaitEvent = 147,
    kCbidDeviceSynchronize = 165,
    kCbidLaunchKernel = 211,
};

enum Site : int {
    kSiteItem,
    kSiteCpu,
    kSiteDeviceSync,
    kSiteBatchWait,
    kSiteAllReduceWait,
    kSiteGradWait,
    kSiteLoaderEvent,
    kSiteFinal,
    kSiteMetrics, // the data-parallel job's straggler: its own sync before the all-reduce
    kSiteCount
};

struct SiteSpec {
    const char* file;
    int line;
    const char* function;
    const char* code;
    SyncKind kind;
};

// Line numbers are exact and distinct so tests can ask for a site by file:line.
inline constexpr std::array<SiteSpec, kSiteCount> kSites = {{
    {"train.py", 48, "train_step", "loss_value = loss.item()", SyncKind::Stream},
    {"train.py", 53, "train_step", "preds = logits.argmax(dim=1).cpu()", SyncKind::PageableCopy},
    {"train.py", 71, "train", "torch.cuda.synchronize()", SyncKind::Device},
    {"train.py", 66, "train", "torch.cuda.current_stream().wait_stream(loader_stream)",
     SyncKind::StreamWaitEvent},
    {"train.py", 44, "train_step", "handle = dist.all_reduce(bucket, async_op=True)",
     SyncKind::StreamWaitEvent},
    {"train.py", 45, "train_step", "handle.wait()", SyncKind::StreamWaitEvent},
    {"data.py", 88, "pin_memory_loop", "done_event.synchronize()", SyncKind::Event},
    {"train.py", 79, "main", "print(f'loss {total_loss.item():.4f}')", SyncKind::Stream},
    {"train.py", 58, "train_step", "acc = (preds == labels).float().mean().item()",
     SyncKind::Stream},
}};

struct PyFrame {
    const char* file;
    int line;
    const char* function;
};

// The lines the planted host work's samples show (SyntheticOptions::sampleHz), innermost frame
// first then its callers.
enum SampleSite : int {
    kSampleSleep,
    kSampleCollate,
    kSampleCollateSecond,
    kSampleAtItem,
    kSampleSiteCount
};
inline constexpr std::array<std::array<PyFrame, 4>, kSampleSiteCount> kSampleStacks = {{
    {{{"train.py", 41, "train_step"},
      {"train.py", 69, "train"},
      {"train.py", 77, "main"},
      {"train.py", 83, "<module>"}}},
    {{{"data.py", 72, "collate"},
      {"train.py", 64, "train"},
      {"train.py", 77, "main"},
      {"train.py", 83, "<module>"}}},
    {{{"data.py", 75, "collate"},
      {"train.py", 64, "train"},
      {"train.py", 77, "main"},
      {"train.py", 83, "<module>"}}},
    {{{"train.py", 48, "train_step"},
      {"train.py", 69, "train"},
      {"train.py", 77, "main"},
      {"train.py", 83, "<module>"}}},
}};

// Python callers of a site's function, innermost first.
std::vector<PyFrame> pythonCallers(const SiteSpec& site);
// The CUPTI name of a runtime API callback id ("cudaLaunchKernel_v7000"), "" when unknown.
const char* apiNameText(int64_t cbid);

inline constexpr const char* kForwardKernels[] = {
    "ampere_sgemm_128x64_tn",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)",
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>",
    "void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, "
    "true, false>",
    "sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16_stage4_warpsize2x2x1",
};
inline constexpr const char* kBackwardKernels[] = {
    "ampere_sgemm_64x64_nt",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()"
    "::{lambda(float, float)#1}>, unsigned int, float, 4> >",
    "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>",
    "void at::native::(anonymous namespace)::softmax_warp_backward<float, float, float, 10, "
    "true, false>",
};
inline constexpr const char* kOptimizerKernels[] = {
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor"
    "<float, 4>, float*, double, double, double, double, double, bool, bool>",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1>)",
};
// What NCCL 2.19+ names its kernels in a CUPTI record (the data-parallel job's all-reduce).
inline constexpr const char* kNcclAllReduceKernel =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
inline constexpr const char* kAllReduceKernel =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, "
    "unsigned long, ncclWork*)";

} // namespace stallscope::model::synthetic
