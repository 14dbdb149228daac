// Particle filter with a low-priority analysis job on a second stream.
//
// Each step moves 4M particles and sums their weights on the `work` stream, copies the sum
// into pinned memory, and the host reads it to adapt the next step's noise level (the host
// needs that value every step). Every 100 steps a snapshot of the particles is handed to an
// analysis kernel (a Lyapunov-exponent estimate on 16K of them, a few milliseconds on 8 blocks)
// on a low-priority `analysis` stream, meant to run in the background.
// Pattern: the per-step wait for the weight sum is cudaDeviceSynchronize(), which also waits
// for the analysis stream: the step after each snapshot stalls until the analysis is done.
// Fix: wait only for the stream whose result is read: cudaStreamSynchronize(work).
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

constexpr int PARTICLES = 1 << 22;
constexpr int SAMPLES = 1 << 14;
constexpr int SNAPSHOT_EVERY = 100;
constexpr int WARMUP = 200;

__device__ float hash_normal(unsigned int seed) {
    seed ^= seed >> 16;
    seed *= 0x7feb352d;
    seed ^= seed >> 15;
    seed *= 0x846ca68b;
    seed ^= seed >> 16;
    float u1 = (seed & 0xffff) * (1.0f / 65536.0f) + 1e-6f, u2 = (seed >> 16) * (1.0f / 65536.0f);
    return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

__global__ void propagate(float* x, float* w, int n, float noise, float observation,
                          unsigned int step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xi = 0.95f * x[i] + noise * hash_normal(i * 2654435761u + step);
    float d = xi - observation;
    x[i] = xi;
    w[i] = expf(-0.5f * d * d);
}

__global__ void sum_weights(const float* w, int n, float* total) {
    __shared__ float partial[256];
    float s = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        s += w[i];
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (threadIdx.x < k)
            partial[threadIdx.x] += partial[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(total, partial[0]);
}

// Background analysis: a Lyapunov-exponent estimate of a logistic map seeded by each sample.
__global__ void lyapunov(const float* snapshot, int samples, int iters, float* out) {
    for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < samples; s += gridDim.x * blockDim.x) {
        float r = 3.6f + 0.4f * (0.5f + 0.5f * tanhf(snapshot[s]));
        float v = 0.5f, acc = 0.f;
        for (int k = 0; k < iters; ++k) {
            v = r * v * (1.f - v);
            acc += __logf(fabsf(r * (1.f - 2.f * v)) + 1e-7f);
        }
        out[s] = acc / iters;
    }
}

int main(int argc, char** argv) {
    int steps = 6000;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);

    float *x, *w, *d_total, *snapshot, *exponents, *h_total;
    CHECK(cudaMalloc(&x, sizeof(float) * PARTICLES));
    CHECK(cudaMalloc(&w, sizeof(float) * PARTICLES));
    CHECK(cudaMalloc(&d_total, sizeof(float)));
    CHECK(cudaMalloc(&snapshot, sizeof(float) * SAMPLES));
    CHECK(cudaMalloc(&exponents, sizeof(float) * SAMPLES));
    CHECK(cudaMallocHost(&h_total, sizeof(float)));
    CHECK(cudaMemset(x, 0, sizeof(float) * PARTICLES));

    int least, greatest;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t work, analysis;
    CHECK(cudaStreamCreateWithPriority(&work, cudaStreamNonBlocking, greatest));
    CHECK(cudaStreamCreateWithPriority(&analysis, cudaStreamNonBlocking, least));
    cudaEvent_t snapshot_ready, analysis_done;
    CHECK(cudaEventCreateWithFlags(&snapshot_ready, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&analysis_done, cudaEventDisableTiming));
    CHECK(cudaEventRecord(analysis_done, analysis));

    float noise = 0.5f;
    double ess_sum = 0.0;
    unsigned int step_no = 0;
    auto step = [&]() {
        float observation = sinf(0.01f * step_no);
        propagate<<<PARTICLES / 256, 256, 0, work>>>(x, w, PARTICLES, noise, observation, step_no);
        CHECK(cudaMemsetAsync(d_total, 0, sizeof(float), work));
        sum_weights<<<264, 256, 0, work>>>(w, PARTICLES, d_total);
        CHECK(cudaMemcpyAsync(h_total, d_total, sizeof(float), cudaMemcpyDeviceToHost, work));
        if (step_no % SNAPSHOT_EVERY == 0) {
            CHECK(cudaStreamWaitEvent(work, analysis_done,
                                      0)); // the last analysis has read its snapshot
            CHECK(cudaMemcpyAsync(snapshot, x, sizeof(float) * SAMPLES, cudaMemcpyDeviceToDevice,
                                  work));
            CHECK(cudaEventRecord(snapshot_ready, work));
            CHECK(cudaStreamWaitEvent(analysis, snapshot_ready, 0));
            lyapunov<<<8, 256, 0, analysis>>>(snapshot, SAMPLES, 30000, exponents);
            CHECK(cudaEventRecord(analysis_done, analysis));
        }
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize()); // FIX:
        float mean_weight = *h_total / PARTICLES;
        ess_sum += mean_weight;
        noise = mean_weight < 0.2f ? fmaxf(noise * 0.98f, 0.05f) : fminf(noise * 1.02f, 1.0f);
        ++step_no;
    };

    for (int i = 0; i < WARMUP; ++i)
        step();
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
        step();
    CHECK(cudaDeviceSynchronize());
    double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    fprintf(stderr, "mean weight %.4f, final noise %.3f\n", ess_sum / (steps + WARMUP), noise);
    printf("CORPUS {\"steps\": %d, \"loop_s\": %.6f, \"warmup\": %d}\n", steps, loop_s, WARMUP);
    return 0;
}
