// CHECK(call): the GPU test programs' CUDA error check; a failed call ends the program with status
// 2 and says which call, where, and why.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e));      \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)
