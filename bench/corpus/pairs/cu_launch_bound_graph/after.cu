// Classical RK4 integration of a ring of 8192 coupled Kuramoto-style oscillators.
// Each time step is eight small kernels (four right-hand-side evaluations, three stage
// updates and the final combination) of a few microseconds each, queued on one stream with
// no synchronization; a step takes longer to launch than to run.
// Fix: capture one time step into a CUDA graph (cudaStreamBeginCapture / EndCapture,
// cudaGraphInstantiate) and launch the graph once per step.
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

constexpr int N = 8192, WARMUP = 100;
constexpr float DT = 1e-3f, COUPLING = 2.0f;

__global__ void rhs(const float* theta, const float* omega, float* k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N)
        return;
    float s = 0.f;
    for (int d = -4; d <= 4; ++d)
        s += __sinf(theta[(i + d + N) % N] - theta[i]);
    k[i] = omega[i] + COUPLING / 8.0f * s;
}

__global__ void stage(const float* theta, const float* k, float h, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        out[i] = theta[i] + h * k[i];
}

__global__ void combine(float* theta, const float* k1, const float* k2, const float* k3,
                        const float* k4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        theta[i] += DT / 6.0f * (k1[i] + 2.f * k2[i] + 2.f * k3[i] + k4[i]);
}

int main(int argc, char** argv) {
    int steps = 30000;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);

    float* h = static_cast<float*>(malloc(sizeof(float) * N * 2));
    for (int i = 0; i < N; ++i) {
        h[i] = 6.2831853f * ((i * 7919) % N) / N;
        h[N + i] = 1.0f + 0.1f * sinf(0.37f * i);
    }
    float *theta, *omega, *k1, *k2, *k3, *k4, *tmp;
    for (float** p : {&theta, &omega, &k1, &k2, &k3, &k4, &tmp})
        CHECK(cudaMalloc(p, sizeof(float) * N));
    CHECK(cudaMemcpy(theta, h, sizeof(float) * N, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(omega, h + N, sizeof(float) * N, cudaMemcpyHostToDevice));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    const int threads = 256, blocks = N / threads;

    auto rk4_step = [&]() {
        rhs<<<blocks, threads, 0, stream>>>(theta, omega, k1);
        stage<<<blocks, threads, 0, stream>>>(theta, k1, DT / 2, tmp);
        rhs<<<blocks, threads, 0, stream>>>(tmp, omega, k2);
        stage<<<blocks, threads, 0, stream>>>(theta, k2, DT / 2, tmp);
        rhs<<<blocks, threads, 0, stream>>>(tmp, omega, k3);
        stage<<<blocks, threads, 0, stream>>>(theta, k3, DT, tmp);
        rhs<<<blocks, threads, 0, stream>>>(tmp, omega, k4);
        combine<<<blocks, threads, 0, stream>>>(theta, k1, k2, k3, k4);
    };
    cudaGraph_t graph;
    cudaGraphExec_t graph_exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    rk4_step();
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&graph_exec, graph, 0));
    auto step = [&]() { CHECK(cudaGraphLaunch(graph_exec, stream)); };

    for (int i = 0; i < WARMUP; ++i)
        step();
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i) {
        step();
    }
    CHECK(cudaDeviceSynchronize());
    double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    CHECK(cudaMemcpy(h, theta, sizeof(float) * N, cudaMemcpyDeviceToHost));
    double order_re = 0, order_im = 0;
    for (int i = 0; i < N; ++i)
        order_re += cos(h[i]), order_im += sin(h[i]);
    fprintf(stderr, "order parameter %.4f\n", sqrt(order_re * order_re + order_im * order_im) / N);
    printf("CORPUS {\"steps\": %d, \"loop_s\": %.6f, \"warmup\": %d}\n", steps, loop_s, WARMUP);
    return 0;
}
