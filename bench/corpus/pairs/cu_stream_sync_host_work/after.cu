// Heat diffusion on a 2048 x 2048 plate whose left edge follows a temperature schedule.
//
// Each step the host runs a small thermostat model (a stiff ODE integrated with many tiny
// Euler steps, ~0.1 ms of CPU work) to get the edge temperature, then queues ten Jacobi
// sweeps of the plate on a CUDA stream (~0.1 ms of GPU work), passing the temperature as a
// kernel argument.
// Pattern: cudaStreamSynchronize(stream) at the end of every step, to "keep the host and the
// GPU in lockstep": the host's thermostat work for the next step cannot overlap the GPU's
// sweeps for this one.
// Fix: nothing in the step needs the GPU's results, so synchronize once after the loop.
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

constexpr int N = 2048;
constexpr int SWEEPS_PER_STEP = 10;
constexpr int WARMUP = 50;

__global__ void jacobi_sweep(const float* in, float* out, int n, float edge_temp, float alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n)
        return;
    float c = in[y * n + x];
    if (x == 0) {
        out[y * n + x] = edge_temp;
        return;
    }
    float l = in[y * n + x - 1];
    float r = x + 1 < n ? in[y * n + x + 1] : c;
    float u = y > 0 ? in[(y - 1) * n + x] : c;
    float d = y + 1 < n ? in[(y + 1) * n + x] : c;
    out[y * n + x] = c + alpha * (l + r + u + d - 4.0f * c);
}

// The thermostat: a relaxation oscillator integrated with small explicit steps.
struct Thermostat {
    double temp = 20.0, heater = 0.0, t = 0.0;
    float next_edge_temperature() {
        const double dt = 1e-5;
        const double target = 60.0 + 25.0 * std::sin(0.3 * t);
        for (int i = 0; i < 30000; ++i) {
            heater += dt * (50.0 * (target - temp) - 5.0 * heater);
            temp += dt * (heater - 0.1 * (temp - 20.0));
            t += dt;
        }
        return static_cast<float>(temp);
    }
};

int main(int argc, char** argv) {
    int steps = 4000;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);

    float *a, *b;
    CHECK(cudaMalloc(&a, sizeof(float) * N * N));
    CHECK(cudaMalloc(&b, sizeof(float) * N * N));
    CHECK(cudaMemset(a, 0, sizeof(float) * N * N));
    CHECK(cudaMemset(b, 0, sizeof(float) * N * N));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    dim3 block(32, 8), grid(N / 32, N / 8);
    Thermostat thermostat;

    auto step = [&]() {
        float edge = thermostat.next_edge_temperature();
        for (int s = 0; s < SWEEPS_PER_STEP; ++s) {
            jacobi_sweep<<<grid, block, 0, stream>>>(a, b, N, edge, 0.2f);
            std::swap(a, b);
        }
        CHECK(cudaGetLastError());
    };

    for (int i = 0; i < WARMUP; ++i)
        step();
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
        step();
    CHECK(cudaDeviceSynchronize());
    double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    float corner;
    CHECK(cudaMemcpy(&corner, a + (N / 2) * N + 1, sizeof(float), cudaMemcpyDeviceToHost));
    fprintf(stderr, "temperature next to the edge: %.3f\n", corner);
    printf("CORPUS {\"steps\": %d, \"loop_s\": %.6f, \"warmup\": %d}\n", steps, loop_s, WARMUP);
    return 0;
}
