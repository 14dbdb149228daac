#include "bench/kineto/kineto_trace_generator.h"

#include "model/interop/trace_file_writer.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace stallscope::bench {

namespace {

constexpr int kOpsPerStep = 8;
constexpr int64_t kPid = 396;
constexpr int64_t kTid = 396;

const char* kOps[kOpsPerStep] = {"aten::linear",   "aten::relu", "aten::linear",
                                 "aten::mse_loss", "aten::mm",   "aten::threshold_backward",
                                 "aten::mm",       "aten::add_"};
const char* kKernels[kOpsPerStep] = {
    "void "
    "cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(cutlass_80_simt_sgemm_64x64_8x5_"
    "tn_align1::Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
    "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
    "at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
    "const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, "
    "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, "
    "c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
    "const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)",
    "void "
    "cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(cutlass_80_simt_sgemm_64x64_8x5_"
    "tn_align1::Params)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
    "float, float, float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, "
    "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4>)",
    "void "
    "cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(cutlass_80_simt_sgemm_64x64_8x5_"
    "nn_align1::Params)",
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "
    "float)::{lambda(float, float)#1}, std::array<char*, 3ul> >(int, "
    "at::native::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "
    "float)::{lambda(float, float)#1}, std::array<char*, 3ul>)",
    "void "
    "cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nt_align1>(cutlass_80_simt_sgemm_64x64_8x5_"
    "nt_align1::Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
};

// The trace file, written with the fastest gzip level so the generator is not the bottleneck.
class Sink : public model::TraceFileWriter {
public:
    Sink() : TraceFileWriter(1) {}
    void add(const char* format, ...) __attribute__((format(printf, 2, 3))) {
        char line[2048];
        va_list args;
        va_start(args, format);
        const int n = std::vsnprintf(line, sizeof line, format, args);
        va_end(args);
        text().append(line, static_cast<size_t>(n));
        maybeFlush();
    }
};

// Microseconds with three decimals, as Kineto writes them.
struct Us {
    char text[32];
    explicit Us(int64_t ns) {
        std::snprintf(text, sizeof text, "%lld.%03lld", (long long)(ns / 1000),
                      (long long)(ns % 1000));
    }
};

// A python_function event on the training thread: call `pythonId`, called from `parentId`.
void addPythonCall(Sink& out, const std::string& name, int64_t tsNs, int64_t durNs,
                   int64_t parentId, int64_t pythonId) {
    out.add(",\n  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"%s\", "
            "\"pid\": %lld, \"tid\": %lld, \"ts\": %s, \"dur\": %s, "
            "\"args\": {\"Python parent id\": %lld, \"Python id\": %lld}}",
            name.c_str(), (long long)kPid, (long long)kTid, Us(tsNs).text, Us(durNs).text,
            (long long)parentId, (long long)pythonId);
}

// A cuda_runtime event on the training thread: CUDA API `name` (callback id `cbid`) under the
// operator `externalId`, linked to its GPU work by `correlation`.
void addRuntimeCall(Sink& out, const char* name, int cbid, int64_t tsNs, int64_t durNs,
                    int64_t externalId, int64_t correlation) {
    out.add(",\n  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": %lld, "
            "\"tid\": %lld, \"ts\": %s, \"dur\": %s, \"args\": {\"External id\": %lld, "
            "\"cbid\": %d, \"correlation\": %lld}}",
            name, (long long)kPid, (long long)kTid, Us(tsNs).text, Us(durNs).text,
            (long long)externalId, cbid, (long long)correlation);
}

} // namespace

bool KinetoTraceGenerator::write(const std::string& path, int64_t targetBytes,
                                 KinetoTraceStats* stats, std::string* error) {
    Sink out;
    format::OutputPolicy replace; // the bench regenerates its own scratch traces
    replace.replaceExisting = true;
    if (!out.open(path, replace, error))
        return false;
    KinetoTraceStats s;
    out.add("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA "
            "H200\", "
            "\"totalGlobalMem\": 150109880320, \"computeMajor\": 9, \"computeMinor\": 0, "
            "\"numSms\": 132}],\n"
            "  \"with_stack\": 1,\n  \"traceEvents\": [\n");
    int64_t t = 4455362852106801; // ns
    int64_t correlation = 100;
    int64_t externalId = 1;
    const int64_t start = t;
    out.add("  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": %lld, \"tid\": 0, "
            "\"args\": {\"name\": \"python3\"}}",
            (long long)kPid);
    ++s.events;
    while (out.bytes() < targetBytes) {
        const int64_t stepStart = t;
        const int64_t stepNs = 120000;
        out.add(",\n  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                "\"ProfilerStep#%lld\", \"pid\": %lld, "
                "\"tid\": %lld, \"ts\": %s, \"dur\": %s, \"args\": {\"External id\": %lld, "
                "\"Record function id\": 0}}",
                (long long)s.steps, (long long)kPid, (long long)kTid, Us(t).text,
                Us(stepNs - 1000).text, (long long)externalId++);
        addPythonCall(out, "train.py(40): train_step", t + 100, stepNs - 2000, 1, externalId++);
        s.events += 2;
        int64_t op = t + 500;
        for (int k = 0; k < kOpsPerStep; ++k) {
            const int64_t c = correlation++;
            const int64_t kernelStart = op + 9000;
            addPythonCall(out, "torch/nn/modules/module.py(1751): _call_impl", op, 9000, 2,
                          externalId++);
            addPythonCall(out,
                          std::string("<built-in method ") + (kOps[k] + 6) +
                              " of PyCapsule object at 0x7f86c6ceb1d0>",
                          op + 200, 8000, 3, externalId++);
            out.add(
                ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": %lld, "
                "\"tid\": %lld, \"ts\": %s, \"dur\": %s, "
                "\"args\": {\"External id\": %lld, \"Record function id\": 0, \"Ev Idx\": %lld}}",
                kOps[k], (long long)kPid, (long long)kTid, Us(op + 400).text, Us(7000).text,
                (long long)externalId, (long long)externalId);
            addRuntimeCall(out, "cudaLaunchKernel", 211, op + 3000, 4100, externalId, c);
            out.add(",\n  {\"ph\": \"s\", \"id\": %lld, \"pid\": %lld, \"tid\": %lld, \"ts\": %s, "
                    "\"cat\": \"ac2g\", \"name\": \"ac2g\"}",
                    (long long)c, (long long)kPid, (long long)kTid, Us(op + 3000).text);
            out.add(",\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, "
                    "\"tid\": 7, \"ts\": %s, \"dur\": %s, "
                    "\"args\": {\"External id\": %lld, \"queued\": 0, \"device\": 0, \"context\": "
                    "1, \"stream\": 7, "
                    "\"correlation\": %lld, \"registers per thread\": 74, \"shared memory\": "
                    "20480, \"blocks per SM\": 0.121212, "
                    "\"warps per SM\": 0.484848, \"grid\": [16, 1, 1], \"block\": [128, 1, 1], "
                    "\"est. achieved occupancy %%\": 1}}",
                    kKernels[k], Us(kernelStart).text, Us(5632).text, (long long)externalId,
                    (long long)c);
            out.add(",\n  {\"ph\": \"f\", \"id\": %lld, \"pid\": 0, \"tid\": 7, \"ts\": %s, "
                    "\"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}",
                    (long long)c, Us(kernelStart).text);
            ++externalId;
            s.events += 7;
            ++s.kernels;
            op += 11000;
        }
        // .item(): copy to pinned memory, then a blocking stream sync.
        const int64_t copy = correlation++;
        const int64_t sync = correlation++;
        addPythonCall(out, "<built-in method item of Tensor object at 0x7f8487832b20>", op, 25000,
                      2, externalId++);
        addRuntimeCall(out, "cudaMemcpyAsync", 41, op + 1000, 3000, externalId, copy);
        out.add(",\n  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> "
                "Pinned)\", \"pid\": 0, \"tid\": 7, "
                "\"ts\": %s, \"dur\": %s, \"args\": {\"External id\": %lld, \"device\": 0, "
                "\"context\": 1, \"stream\": 7, "
                "\"correlation\": %lld, \"bytes\": 4, \"memory bandwidth (GB/s)\": 0.0024}}",
                Us(op + 20000).text, Us(1665).text, (long long)externalId, (long long)copy);
        addRuntimeCall(out, "cudaStreamSynchronize", 131, op + 4500, 18000, externalId++, sync);
        s.events += 4;
        ++s.syncs;
        ++s.steps;
        t = stepStart + stepNs;
    }
    out.add(",\n  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(1): "
            "<module>\", \"pid\": %lld, \"tid\": %lld, "
            "\"ts\": %s, \"dur\": %s, \"args\": {\"Python parent id\": null, \"Python id\": 1}}",
            (long long)kPid, (long long)kTid, Us(start - 50).text, Us(t - start + 100).text);
    out.add(
        ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": %lld, \"tid\": %lld, "
        "\"args\": {\"name\": \"thread %lld (python3)\"}}\n  ],\n  \"traceName\": \"%s\"\n}\n",
        (long long)kPid, (long long)kTid, (long long)kTid, "synthetic");
    s.events += 2;
    s.bytes = out.bytes();
    if (!out.finish(error))
        return false;
    if (stats)
        *stats = s;
    return true;
}

} // namespace stallscope::bench
