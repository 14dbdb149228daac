// Video post-processing: each 1024 x 512 float frame is generated, denoised with three
// passes of a 5 x 5 box filter and tone-mapped on the GPU, and every result is copied back
// into a host-side archive (a ring of the last 64 frames, 2 MB each) for an encoder thread.
// Pattern: cudaMemcpy device -> host into the malloc'd archive every frame: a blocking copy
// into pageable memory, which waits for the frame's kernels, then stages 2 MB through a
// driver buffer while the GPU has nothing queued.
// Fix: allocate the archive with cudaMallocHost (pinned), copy with cudaMemcpyAsync on the
// processing stream, and synchronize once after the loop.
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

constexpr int W = 1024, H = 512, RING = 64, WARMUP = 20;
constexpr size_t FRAME_BYTES = sizeof(float) * W * H;

__global__ void render(float* frame, int frame_no) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H)
        return;
    unsigned int h = (x * 73856093u) ^ (y * 19349663u) ^ (frame_no * 83492791u);
    h ^= h >> 13;
    h *= 0x5bd1e995;
    h ^= h >> 15;
    frame[y * W + x] =
        __sinf(0.01f * (x + 3 * frame_no)) * __cosf(0.013f * y) + (h & 0xff) / 512.0f;
}

__global__ void box5(const float* in, float* out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H)
        return;
    float s = 0.f;
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
            int xx = min(max(x + dx, 0), W - 1), yy = min(max(y + dy, 0), H - 1);
            s += in[yy * W + xx];
        }
    out[y * W + x] = s * (1.0f / 25.0f);
}

__global__ void tonemap(float* frame) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H)
        return;
    float v = frame[y * W + x];
    frame[y * W + x] = v / (1.0f + fabsf(v));
}

int main(int argc, char** argv) {
    int steps = 2000;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);

    float *a, *b;
    CHECK(cudaMalloc(&a, FRAME_BYTES));
    CHECK(cudaMalloc(&b, FRAME_BYTES));
    float* archive;
    CHECK(cudaMallocHost(&archive, FRAME_BYTES * RING));
    memset(archive, 0, FRAME_BYTES * RING);
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    dim3 block(32, 8), grid(W / 32, H / 8);

    auto process = [&](int frame_no) {
        render<<<grid, block, 0, stream>>>(a, frame_no);
        box5<<<grid, block, 0, stream>>>(a, b);
        box5<<<grid, block, 0, stream>>>(b, a);
        box5<<<grid, block, 0, stream>>>(a, b);
        tonemap<<<grid, block, 0, stream>>>(b);
        CHECK(cudaGetLastError());
        float* slot = archive + static_cast<size_t>(frame_no % RING) * W * H;
        CHECK(cudaMemcpyAsync(slot, b, FRAME_BYTES, cudaMemcpyDeviceToHost, stream));
    };

    for (int i = 0; i < WARMUP; ++i)
        process(i);
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
        process(WARMUP + i);
    CHECK(cudaDeviceSynchronize());
    double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    double checksum = 0;
    for (int i = 0; i < W * H; ++i)
        checksum += archive[i];
    fprintf(stderr, "checksum of archive slot 0: %.3f\n", checksum);
    printf("CORPUS {\"steps\": %d, \"loop_s\": %.6f, \"warmup\": %d}\n", steps, loop_s, WARMUP);
    return 0;
}
