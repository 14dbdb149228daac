// All-pairs gravitational N-body simulation, 65536 bodies, leapfrog integration.
//
// Each step is one force kernel (4.3 billion body-body interactions, a few ms on the GPU)
// and one integration kernel, queued on a CUDA stream.
// Pattern: CHECK(cudaStreamSynchronize(stream)) after every step, so that an error in a
// kernel is reported at the step that caused it.
// Fix: check launch errors with cudaGetLastError() in the loop and synchronize once after
// it. The host has nothing else to do and each step is long: after the wait, the next
// step's kernels are queued within microseconds, so the fix should save close to nothing.
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

constexpr int BODIES = 65536;
constexpr int TILE = 256;
constexpr int WARMUP = 10;

__global__ void forces(const float4* pos, float3* acc, int n, float softening) {
    __shared__ float4 tile[TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = pos[i];
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int base = 0; base < n; base += TILE) {
        tile[threadIdx.x] = pos[base + threadIdx.x];
        __syncthreads();
#pragma unroll 8
        for (int j = 0; j < TILE; ++j) {
            float4 q = tile[j];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float inv = rsqrtf(dx * dx + dy * dy + dz * dz + softening);
            float s = q.w * inv * inv * inv;
            a.x += dx * s;
            a.y += dy * s;
            a.z += dz * s;
        }
        __syncthreads();
    }
    acc[i] = a;
}

__global__ void leapfrog(float4* pos, float3* vel, const float3* acc, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float3 v = vel[i];
    v.x += dt * acc[i].x;
    v.y += dt * acc[i].y;
    v.z += dt * acc[i].z;
    vel[i] = v;
    pos[i].x += dt * v.x;
    pos[i].y += dt * v.y;
    pos[i].z += dt * v.z;
}

int main(int argc, char** argv) {
    int steps = 400;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);

    std::mt19937 rng(0);
    std::normal_distribution<float> gauss(0.f, 1.f);
    std::vector<float4> h_pos(BODIES);
    for (auto& p : h_pos)
        p = make_float4(gauss(rng), gauss(rng), gauss(rng), 1.0f / BODIES);

    float4* pos;
    float3 *vel, *acc;
    CHECK(cudaMalloc(&pos, sizeof(float4) * BODIES));
    CHECK(cudaMalloc(&vel, sizeof(float3) * BODIES));
    CHECK(cudaMalloc(&acc, sizeof(float3) * BODIES));
    CHECK(cudaMemcpy(pos, h_pos.data(), sizeof(float4) * BODIES, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(vel, 0, sizeof(float3) * BODIES));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    auto step = [&]() {
        forces<<<BODIES / TILE, TILE, 0, stream>>>(pos, acc, BODIES, 1e-3f);
        leapfrog<<<BODIES / 256, 256, 0, stream>>>(pos, vel, acc, BODIES, 1e-3f);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(stream)); // FIX:
    };

    for (int i = 0; i < WARMUP; ++i)
        step();
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
        step();
    CHECK(cudaDeviceSynchronize());
    double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    CHECK(cudaMemcpy(h_pos.data(), pos, sizeof(float4) * BODIES, cudaMemcpyDeviceToHost));
    fprintf(stderr, "body 0 at (%.4f, %.4f, %.4f)\n", h_pos[0].x, h_pos[0].y, h_pos[0].z);
    printf("CORPUS {\"steps\": %d, \"loop_s\": %.6f, \"warmup\": %d}\n", steps, loop_s, WARMUP);
    return 0;
}
