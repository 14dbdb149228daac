// Logistic regression trained with mini-batch SGD, hand-written in CUDA: 1M examples of
// 512 features live on the GPU; each step computes the logits of a 4096-example batch, the
// gradient, and updates the weights.
// Pattern: the step's scratch buffers (logits, errors, gradient) are cudaMalloc'ed at the
// start of each step and cudaFree'd at its end. cudaFree waits for the whole device to go
// idle, and cudaMalloc/cudaFree are slow driver calls in their own right.
// Fix: allocate the scratch buffers once before the loop and free them after it.
#include <cuda_runtime.h>

#include <chrono>
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

constexpr int EXAMPLES = 1 << 20, FEATURES = 512, BATCH = 4096, WARMUP = 50;

__global__ void make_data(float* x, float* y, int n, int d) {
    size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i >= static_cast<size_t>(n) * d)
        return;
    unsigned int h = static_cast<unsigned int>(i) * 2654435761u;
    h ^= h >> 15;
    h *= 0x2c1b3c6d;
    h ^= h >> 12;
    x[i] = (h & 0xffff) / 32768.0f - 1.0f;
    if (i % d == 0) {
        int row = i / d;
        y[row] = ((row * 2654435761u) >> 7) % 3 == 0 ? 1.0f : 0.0f;
    }
}

// errors[b] = sigmoid(x[row_b] . w) - y[row_b], one warp per example
__global__ void forward(const float* x, const float* y, const float* w, int first_row,
                        float* errors) {
    int b = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (b >= BATCH)
        return;
    int row = (first_row + b) % EXAMPLES;
    float dot = 0.f;
    for (int k = lane; k < FEATURES; k += 32)
        dot += x[static_cast<size_t>(row) * FEATURES + k] * w[k];
    for (int off = 16; off > 0; off /= 2)
        dot += __shfl_down_sync(0xffffffff, dot, off);
    if (lane == 0)
        errors[b] = 1.0f / (1.0f + __expf(-dot)) - y[row];
}

// grad[k] = mean over the batch of errors[b] * x[row_b][k]
__global__ void gradient(const float* x, const float* errors, int first_row, float* grad) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= FEATURES)
        return;
    float g = 0.f;
    for (int b = blockIdx.y; b < BATCH; b += gridDim.y)
        g += errors[b] * x[static_cast<size_t>((first_row + b) % EXAMPLES) * FEATURES + k];
    atomicAdd(&grad[k], g / BATCH);
}

__global__ void sgd_update(float* w, const float* grad, float lr) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < FEATURES)
        w[k] -= lr * grad[k];
}

int main(int argc, char** argv) {
    int steps = 8000;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);

    float *x, *y, *w;
    CHECK(cudaMalloc(&x, sizeof(float) * EXAMPLES * FEATURES));
    CHECK(cudaMalloc(&y, sizeof(float) * EXAMPLES));
    CHECK(cudaMalloc(&w, sizeof(float) * FEATURES));
    CHECK(cudaMemset(w, 0, sizeof(float) * FEATURES));
    make_data<<<(EXAMPLES * FEATURES + 255) / 256, 256>>>(x, y, EXAMPLES, FEATURES);
    CHECK(cudaGetLastError());
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    auto train_step = [&](int step) {
        float *errors, *grad;
        CHECK(cudaMalloc(&errors, sizeof(float) * BATCH));
        CHECK(cudaMalloc(&grad, sizeof(float) * FEATURES));
        int first_row = (step * BATCH) % EXAMPLES;
        CHECK(cudaMemsetAsync(grad, 0, sizeof(float) * FEATURES, stream));
        forward<<<BATCH / 8, 256, 0, stream>>>(x, y, w, first_row, errors);
        gradient<<<dim3(FEATURES / 128, 64), 128, 0, stream>>>(x, errors, first_row, grad);
        sgd_update<<<FEATURES / 128, 128, 0, stream>>>(w, grad, 0.5f);
        CHECK(cudaGetLastError());
        CHECK(cudaFree(errors)); // FIX:
        CHECK(cudaFree(grad));
    };

    for (int i = 0; i < WARMUP; ++i)
        train_step(i);
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
        train_step(WARMUP + i);
    CHECK(cudaDeviceSynchronize());
    double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    float w0;
    CHECK(cudaMemcpy(&w0, w, sizeof(float), cudaMemcpyDeviceToHost));
    fprintf(stderr, "w[0] = %.5f\n", w0);
    printf("CORPUS {\"steps\": %d, \"loop_s\": %.6f, \"warmup\": %d}\n", steps, loop_s, WARMUP);
    return 0;
}
