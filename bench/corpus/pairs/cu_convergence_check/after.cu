// Jacobi solver for the 2-D Poisson equation on a 2048 x 2048 grid, iterated until the
// update norm falls below a tolerance (or an iteration budget, --steps, runs out).
// Each iteration is one sweep kernel that also accumulates the squared update into a
// device scalar, plus a memset of that scalar: ~10 us of GPU work.
// Pattern: the norm is copied back with cudaMemcpy after every sweep to test convergence,
// so the host waits for each sweep before it can queue the next one.
// Fix: test convergence every 20 sweeps; at worst 19 extra sweeps are run past the point of
// convergence, and the GPU always has the next sweeps queued.
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

constexpr int N = 2048, WARMUP = 200;
constexpr double TOLERANCE = 1e-9;

__global__ void sweep(const float* u, float* u_new, const float* f, float h2, float* norm2) {
    __shared__ float partial[256];
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    float d = 0.f;
    if (x > 0 && y > 0 && x < N - 1 && y < N - 1) {
        int i = y * N + x;
        float v = 0.25f * (u[i - 1] + u[i + 1] + u[i - N] + u[i + N] - h2 * f[i]);
        d = v - u[i];
        u_new[i] = v;
    }
    partial[t] = d * d;
    __syncthreads();
    for (int k = 128; k > 0; k /= 2) {
        if (t < k)
            partial[t] += partial[t + k];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(norm2, partial[0]);
}

__global__ void source(float* f) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    float dx = (x - N / 3) / float(N), dy = (y - N / 2) / float(N);
    f[y * N + x] = 100.0f * expf(-200.0f * (dx * dx + dy * dy));
}

int main(int argc, char** argv) {
    int max_iters = 20000;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--steps"))
            max_iters = atoi(argv[i + 1]);

    float *u, *u_new, *f, *d_norm2;
    size_t bytes = sizeof(float) * N * N;
    CHECK(cudaMalloc(&u, bytes));
    CHECK(cudaMalloc(&u_new, bytes));
    CHECK(cudaMalloc(&f, bytes));
    CHECK(cudaMalloc(&d_norm2, sizeof(float)));
    CHECK(cudaMemset(u, 0, bytes));
    CHECK(cudaMemset(u_new, 0, bytes));
    dim3 block(32, 8), grid(N / 32, N / 8);
    source<<<grid, block>>>(f);
    CHECK(cudaGetLastError());
    const float h2 = 1.0f / ((N - 1.0f) * (N - 1.0f));

    // Runs sweeps until converged or max_iters; returns the number of sweeps run.
    auto solve = [&](int max_sweeps) {
        int it = 0;
        while (it < max_sweeps) {
            CHECK(cudaMemsetAsync(d_norm2, 0, sizeof(float)));
            sweep<<<grid, block>>>(u, u_new, f, h2, d_norm2);
            CHECK(cudaGetLastError());
            std::swap(u, u_new);
            ++it;
            if (it % 20 == 0) {
                float norm2;
                CHECK(cudaMemcpy(&norm2, d_norm2, sizeof(float), cudaMemcpyDeviceToHost));
                if (std::sqrt(norm2) < TOLERANCE)
                    break;
            }
        }
        return it;
    };

    solve(WARMUP);
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    int sweeps = solve(max_iters);
    CHECK(cudaDeviceSynchronize());
    double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    fprintf(stderr, "%d sweeps\n", sweeps);
    printf("CORPUS {\"steps\": %d, \"loop_s\": %.6f, \"warmup\": %d}\n", sweeps, loop_s, WARMUP);
    return 0;
}
