// Adaptive time stepping for a 2-D wave simulation (4096 x 4096 grid): each step runs 16
// leapfrog sweeps (~1 ms of GPU work) and a maximum-speed estimate; the host reads it
// (copied into pinned memory, an event marks its arrival) to choose the next step's dt.
// The host needs that value before it can queue the next step.
// Pattern: the host blocks in cudaEventSynchronize(estimate_ready).
// Fix tried: poll with cudaEventQuery(estimate_ready) in a spin loop instead of blocking,
// to react as soon as the estimate lands. The host has nothing else to do and the next step
// depends on the value, so either way it waits for the same GPU work: the fix should save
// close to nothing.
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

constexpr int N = 4096, SWEEPS = 16, WARMUP = 10;

__global__ void leapfrog(const float* prev, const float* cur, float* next, float c2dt2) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x == 0 || y == 0 || x >= N - 1 || y >= N - 1)
        return;
    int i = y * N + x;
    float lap = cur[i - 1] + cur[i + 1] + cur[i - N] + cur[i + N] - 4.f * cur[i];
    next[i] = 2.f * cur[i] - prev[i] + c2dt2 * lap;
}

__global__ void max_speed(const float* prev, const float* cur, float dt, float* out) {
    __shared__ float partial[256];
    float m = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N * N; i += gridDim.x * blockDim.x)
        m = fmaxf(m, fabsf(cur[i] - prev[i]) / dt);
    partial[threadIdx.x] = m;
    __syncthreads();
    for (int k = 128; k > 0; k /= 2) {
        if (threadIdx.x < k)
            partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicMax(reinterpret_cast<int*>(out), __float_as_int(partial[0]));
}

__global__ void pulse(float* u) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    float dx = (x - N / 2) / 40.f, dy = (y - N / 2) / 40.f;
    u[y * N + x] = expf(-(dx * dx + dy * dy));
}

int main(int argc, char** argv) {
    int steps = 1000;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);

    size_t bytes = sizeof(float) * N * N;
    float *a, *b, *c, *d_speed, *h_speed;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&c, bytes));
    CHECK(cudaMalloc(&d_speed, sizeof(float)));
    CHECK(cudaMallocHost(&h_speed, sizeof(float)));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    cudaEvent_t estimate_ready;
    CHECK(cudaEventCreateWithFlags(&estimate_ready, cudaEventDisableTiming));
    dim3 block(32, 8), grid(N / 32, N / 8);
    pulse<<<grid, block, 0, stream>>>(a);
    pulse<<<grid, block, 0, stream>>>(b);
    CHECK(cudaMemsetAsync(c, 0, bytes, stream));

    float dt = 0.2f;
    double simulated = 0.0;
    auto step = [&]() {
        for (int s = 0; s < SWEEPS; ++s) {
            leapfrog<<<grid, block, 0, stream>>>(a, b, c, dt * dt);
            float* t = a;
            a = b;
            b = c;
            c = t;
        }
        CHECK(cudaMemsetAsync(d_speed, 0, sizeof(float), stream));
        max_speed<<<528, 256, 0, stream>>>(a, b, dt, d_speed);
        CHECK(cudaMemcpyAsync(h_speed, d_speed, sizeof(float), cudaMemcpyDeviceToHost, stream));
        CHECK(cudaEventRecord(estimate_ready, stream));
        CHECK(cudaGetLastError());
        cudaError_t state;
        while ((state = cudaEventQuery(estimate_ready)) == cudaErrorNotReady) {
        }
        CHECK(state);
        simulated += SWEEPS * dt;
        float speed = *h_speed;
        dt = speed > 5.0f ? fmaxf(dt * 0.9f, 0.05f) : fminf(dt * 1.05f, 0.5f);
    };

    for (int i = 0; i < WARMUP; ++i)
        step();
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
        step();
    CHECK(cudaDeviceSynchronize());
    double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    fprintf(stderr, "simulated time %.2f, last dt %.3f\n", simulated, dt);
    printf("CORPUS {\"steps\": %d, \"loop_s\": %.6f, \"warmup\": %d}\n", steps, loop_s, WARMUP);
    return 0;
}
