// GPU test program with known sync sites. Each site is its own exported, non-inlined function, so
// the checker can demand that the stack captured at each sync contains a return address inside it.
// Expected syncs (kinds as in format/session_schema.h):
//   site_stream_sync_loop   10 x cudaStreamSynchronize      (Stream=1) on stream A
//   site_event_sync          3 x cudaEventSynchronize       (Event=3)
//   site_device_sync         2 x cudaDeviceSynchronize      (Device=2)
//   site_pageable_copy       2 x cudaMemcpy D->H pageable   (PageableCopy=5)
//   site_stream_wait_event   2 x cudaStreamWaitEvent        (StreamWaitEvent=4) stream B waits on A
//   site_two_streams         2 x cudaStreamSynchronize      (Stream=1), once per stream A and B
#include "tests/recorder/gpu/cuda_check.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define SITE extern "C" __attribute__((noinline, used, visibility("default")))

__global__ void spin(float* data, int n, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = data[i];
        for (int r = 0; r < rounds; ++r)
            v = v * 0.999f + 0.001f;
        data[i] = v;
    }
}

static void launch(float* d, int n, cudaStream_t s, int rounds = 2000) {
    spin<<<(n + 255) / 256, 256, 0, s>>>(d, n, rounds);
}

SITE void site_stream_sync_loop(float* d, int n, cudaStream_t a) {
    for (int i = 0; i < 10; ++i) {
        for (int k = 0; k < 4; ++k)
            launch(d, n, a);
        CHECK(cudaStreamSynchronize(a));
    }
}

SITE void site_event_sync(float* d, int n, cudaStream_t a) {
    cudaEvent_t event;
    CHECK(cudaEventCreate(&event));
    for (int i = 0; i < 3; ++i) {
        launch(d, n, a);
        CHECK(cudaEventRecord(event, a));
        CHECK(cudaEventSynchronize(event));
    }
    CHECK(cudaEventDestroy(event));
}

SITE void site_device_sync(float* d, int n, cudaStream_t a) {
    for (int i = 0; i < 2; ++i) {
        launch(d, n, a);
        CHECK(cudaDeviceSynchronize());
    }
}

SITE void site_pageable_copy(float* d, int n, std::vector<float>* host) {
    for (int i = 0; i < 2; ++i) {
        launch(d, n, 0);
        CHECK(cudaMemcpy(host->data(), d, size_t(n) * sizeof(float), cudaMemcpyDeviceToHost));
    }
}

SITE void site_stream_wait_event(float* d, float* d2, int n, cudaStream_t a, cudaStream_t b) {
    cudaEvent_t event;
    CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    for (int i = 0; i < 2; ++i) {
        launch(d, n, a);
        CHECK(cudaEventRecord(event, a));
        CHECK(cudaStreamWaitEvent(b, event, 0));
        launch(d2, n, b);
    }
    CHECK(cudaEventDestroy(event));
}

SITE void site_two_streams(float* d, float* d2, int n, cudaStream_t a, cudaStream_t b) {
    launch(d, n, a);
    launch(d2, n, b);
    CHECK(cudaStreamSynchronize(a));
    CHECK(cudaStreamSynchronize(b));
}

int main() {
    const int n = 1 << 20;
    float *d = nullptr, *d2 = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMalloc(&d2, n * sizeof(float)));
    CHECK(cudaMemset(d, 0, n * sizeof(float)));
    CHECK(cudaMemset(d2, 0, n * sizeof(float)));
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    std::vector<float> host(n);
    CHECK(cudaDeviceSynchronize()); // setup: not one of the sites (checker ignores it by stack)

    site_stream_sync_loop(d, n, a);
    site_event_sync(d, n, a);
    site_device_sync(d, n, a);
    site_pageable_copy(d, n, &host);
    site_stream_wait_event(d, d2, n, a, b);
    site_two_streams(d, d2, n, a, b);

    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    CHECK(cudaFree(d));
    CHECK(cudaFree(d2));
    printf("sync_sites: done (value %f)\n", double(host[0]));
    return 0;
}
