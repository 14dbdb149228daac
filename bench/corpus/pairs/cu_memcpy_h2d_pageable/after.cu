// Radio front end: blocks of 1M complex baseband samples (interleaved float I/Q, 8 MB)
// recorded on the host are streamed to the GPU, mixed down and filtered with a 64-tap FIR
// filter, and the filtered power is accumulated on the GPU. The recording (16 blocks) is
// read from disk into host memory before the run; the loop replays it.
// Pattern: cudaMemcpy host -> device from the malloc'd recording for every block: from
// pageable memory the copy is staged by the driver, blocks the host, and the GPU idles
// while it runs.
// Fix: keep the recording in pinned memory (cudaMallocHost) and use cudaMemcpyAsync on the
// processing stream: the copy of the next block is queued behind this block's kernels.
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

constexpr int SAMPLES = 1 << 20, TAPS = 64, BLOCKS_RECORDED = 16, WARMUP = 10;
constexpr size_t BLOCK_BYTES = sizeof(float2) * SAMPLES;

__constant__ float taps[TAPS];

__global__ void mix_and_filter(const float2* in, float* power, int n, float phase_step,
                               int block_no) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float2 acc = make_float2(0.f, 0.f);
    for (int k = 0; k < TAPS; ++k) {
        int j = max(i - k, 0);
        float s, c;
        __sincosf(phase_step * (j + block_no * n), &s, &c);
        float2 v = in[j];
        acc.x += taps[k] * (v.x * c + v.y * s);
        acc.y += taps[k] * (v.y * c - v.x * s);
    }
    power[i] += acc.x * acc.x + acc.y * acc.y;
}

int main(int argc, char** argv) {
    int steps = 800;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);

    float h_taps[TAPS];
    for (int k = 0; k < TAPS; ++k) {
        float x = k - (TAPS - 1) / 2.0f;
        h_taps[k] = (x == 0 ? 0.25f : sinf(0.25f * M_PI * x) / (M_PI * x)) *
                    (0.54f - 0.46f * cosf(2 * M_PI * k / (TAPS - 1)));
    }
    CHECK(cudaMemcpyToSymbol(taps, h_taps, sizeof(h_taps)));

    float2* recording;
    CHECK(cudaMallocHost(&recording, BLOCK_BYTES * BLOCKS_RECORDED));
    unsigned int seed = 12345;
    for (size_t i = 0; i < static_cast<size_t>(SAMPLES) * BLOCKS_RECORDED; ++i) {
        seed = seed * 1664525u + 1013904223u;
        float noise = ((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
        recording[i] =
            make_float2(cosf(0.3f * (i % 4096)) + noise, sinf(0.3f * (i % 4096)) - noise);
    }

    float2* d_block;
    float* d_power;
    CHECK(cudaMalloc(&d_block, BLOCK_BYTES));
    CHECK(cudaMalloc(&d_power, sizeof(float) * SAMPLES));
    CHECK(cudaMemset(d_power, 0, sizeof(float) * SAMPLES));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    auto process = [&](int block_no) {
        const float2* src = recording + static_cast<size_t>(block_no % BLOCKS_RECORDED) * SAMPLES;
        CHECK(cudaMemcpyAsync(d_block, src, BLOCK_BYTES, cudaMemcpyHostToDevice, stream));
        mix_and_filter<<<SAMPLES / 256, 256, 0, stream>>>(d_block, d_power, SAMPLES, 0.3f,
                                                          block_no);
        CHECK(cudaGetLastError());
    };

    for (int i = 0; i < WARMUP; ++i)
        process(i);
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
        process(WARMUP + i);
    CHECK(cudaDeviceSynchronize());
    double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    float p0;
    CHECK(cudaMemcpy(&p0, d_power + 1000, sizeof(float), cudaMemcpyDeviceToHost));
    fprintf(stderr, "accumulated power at sample 1000: %.3f\n", p0);
    printf("CORPUS {\"steps\": %d, \"loop_s\": %.6f, \"warmup\": %d}\n", steps, loop_s, WARMUP);
    return 0;
}
