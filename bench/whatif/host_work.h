// The what-if C++ programs' deterministic host work (cuda_stream_sync.cu, queue_gaps.cu).
#pragma once

#include <cstdint>

// A dependent multiply-add chain, seeded per loop iteration so that the compiler can neither fold
// it nor hoist it out of the loop: ~50 us for 40,000 steps at ~4 cycles per step.
inline uint64_t hostWork(int iterations, uint64_t seed) {
    uint64_t state = 88172645463325252ull ^ seed;
    for (int i = 0; i < iterations; ++i)
        state = state * 6364136223846793005ull + 1442695040888963407ull + (state >> 29);
    return state;
}
