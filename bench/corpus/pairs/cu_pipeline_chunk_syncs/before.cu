// Batched scoring pipeline on two CUDA streams: a stream of 4 MB chunks of feature rows
// (pinned host memory) is copied to the GPU, scored by a small dense layer kernel, and the
// scores copied back, alternating between two streams so that one chunk's copies can
// overlap the other chunk's kernel.
// Pattern: cudaStreamSynchronize(stream) right after queuing each chunk: the pipeline never
// holds more than one chunk, so copies and kernels run one after another.
// Fix: queue all chunks without waiting (each stream reuses its own device buffers in
// order, and every chunk has its own host slot) and synchronize both streams once after the
// loop.
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

constexpr int ROWS = 16384, COLS = 64, OUTS = 64, HOST_SLOTS = 32, WARMUP = 20;
constexpr size_t IN_BYTES = sizeof(float) * ROWS * COLS, OUT_BYTES = sizeof(float) * ROWS * OUTS;

__constant__ float weights[COLS * OUTS];

// scores[r][o] = tanh(sum_c rows[r][c] * weights[c][o]), repeated 8 times as a small MLP-like tower
__global__ void score(const float* rows, float* scores) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= ROWS)
        return;
    float x[COLS];
    for (int c = 0; c < COLS; ++c)
        x[c] = rows[r * COLS + c];
    for (int layer = 0; layer < 8; ++layer) {
        float y[OUTS];
        for (int o = 0; o < OUTS; ++o) {
            float s = 0.f;
            for (int c = 0; c < COLS; ++c)
                s += x[c] * weights[c * OUTS + o];
            y[o] = tanhf(s);
        }
        for (int c = 0; c < COLS; ++c)
            x[c] = y[c];
    }
    for (int o = 0; o < OUTS; ++o)
        scores[r * OUTS + o] = x[o];
}

int main(int argc, char** argv) {
    int steps = 1500;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);

    float h_w[COLS * OUTS];
    for (int i = 0; i < COLS * OUTS; ++i)
        h_w[i] = ((i * 7919) % 1000) / 1000.0f * 0.25f - 0.125f;
    CHECK(cudaMemcpyToSymbol(weights, h_w, sizeof(h_w)));

    float *h_in, *h_out;
    CHECK(cudaMallocHost(&h_in, IN_BYTES * HOST_SLOTS));
    CHECK(cudaMallocHost(&h_out, OUT_BYTES * HOST_SLOTS));
    for (size_t i = 0; i < static_cast<size_t>(ROWS) * COLS * HOST_SLOTS; ++i)
        h_in[i] = ((i * 2654435761u) % 2000) / 1000.0f - 1.0f;

    cudaStream_t streams[2];
    float *d_in[2], *d_out[2];
    for (int s = 0; s < 2; ++s) {
        CHECK(cudaStreamCreate(&streams[s]));
        CHECK(cudaMalloc(&d_in[s], IN_BYTES));
        CHECK(cudaMalloc(&d_out[s], OUT_BYTES));
    }

    auto run_chunk = [&](int chunk) {
        int s = chunk % 2, slot = chunk % HOST_SLOTS;
        cudaStream_t stream = streams[s];
        CHECK(cudaMemcpyAsync(d_in[s], h_in + static_cast<size_t>(slot) * ROWS * COLS, IN_BYTES,
                              cudaMemcpyHostToDevice, stream));
        score<<<ROWS / 128, 128, 0, stream>>>(d_in[s], d_out[s]);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_out + static_cast<size_t>(slot) * ROWS * OUTS, d_out[s], OUT_BYTES,
                              cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream)); // FIX:
    };

    for (int i = 0; i < WARMUP; ++i)
        run_chunk(i);
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
        run_chunk(WARMUP + i);
    for (cudaStream_t stream : streams)
        CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaDeviceSynchronize());
    double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    fprintf(stderr, "score[0][0] = %.5f\n", h_out[0]);
    printf("CORPUS {\"steps\": %d, \"loop_s\": %.6f, \"warmup\": %d}\n", steps, loop_s, WARMUP);
    return 0;
}
