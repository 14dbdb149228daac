#include "recorder/stack_unwinder.h"

#include <pthread.h>

#include <cstdlib>
#include <cstring>

namespace stallscope::recorder {

namespace {

constexpr int kCacheSize = 1 << 13; // per thread: 8192 PCs, 128 KiB
constexpr int kProbeLimit = 8;

struct CacheEntry {
    uintptr_t pc;
    StackUnwinder::Rule rule;
};

// The previous capture's frames in walk order. A loop syncs from the same few stacks, and once its
// work has swept the caches, each frame's hash probe into the rule cache is a miss of its own (~5
// µs for a 64-frame PyTorch stack measured on an H200): read in order, the previous walk's rules
// come from a few sequential cache lines instead.
constexpr int kMemoFrames = 128; // more than any capture asks for (kMaxStackFrames)
// How far a frame may have moved in the previous walk: a stack that shares the outer frames with
// the previous one but has a different number of frames above them still finds them.
constexpr int kMemoWindow = 8;

struct WalkMemo {
    uintptr_t pcs[2][kMemoFrames];
    StackUnwinder::Rule rules[2][kMemoFrames];
    int counts[2] = {0, 0};
    int previous = 0; // which half holds the previous walk
};

struct ThreadState {
    CacheEntry* cache = nullptr;
    WalkMemo* memo = nullptr;
    uintptr_t stackLow = 0;
    uintptr_t stackHigh = 0;
    uint64_t misses = 0;
    uint64_t previousWalkHits = 0;
    bool initialized = false;
};

thread_local ThreadState t_state;

bool initThread(ThreadState& state) {
    state.initialized = true;
    state.cache = static_cast<CacheEntry*>(calloc(kCacheSize, sizeof(CacheEntry)));
    state.memo = static_cast<WalkMemo*>(calloc(1, sizeof(WalkMemo)));
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void* address = nullptr;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &address, &size) == 0) {
            state.stackLow = reinterpret_cast<uintptr_t>(address);
            state.stackHigh = state.stackLow + size;
        }
        pthread_attr_destroy(&attr);
    }
    return state.cache != nullptr && state.memo != nullptr && state.stackHigh > state.stackLow;
}

// The rule of `pc` from the previous walk, near position `*at`; advances `*at` past it.
const StackUnwinder::Rule* fromPreviousWalk(const WalkMemo& memo, uintptr_t pc, int* at) {
    const uintptr_t* pcs = memo.pcs[memo.previous];
    const int count = memo.counts[memo.previous];
    if (*at < count && pcs[*at] == pc) // in step with the previous walk
        return &memo.rules[memo.previous][(*at)++];
    const int low = *at > kMemoWindow ? *at - kMemoWindow : 0;
    const int high = *at + kMemoWindow < count ? *at + kMemoWindow : count - 1;
    for (int i = low; i <= high; ++i) {
        if (pcs[i] == pc) {
            *at = i + 1;
            return &memo.rules[memo.previous][i];
        }
    }
    return nullptr;
}

inline size_t slotOf(uintptr_t pc) {
    return size_t((pc * 0x9E3779B97F4A7C15ull) >> 51) & (kCacheSize - 1);
}

// The rule of `pc` from the thread's rule table, computed and cached on a miss; when its probe
// window is full, computed into `uncached` instead.
const StackUnwinder::Rule* tableRule(ThreadState& state, uintptr_t pc, bool returnAddress,
                                     StackUnwinder::Rule* uncached) {
    const size_t slot = slotOf(pc);
    for (int probe = 0; probe < kProbeLimit; ++probe) {
        CacheEntry& entry = state.cache[(slot + probe) & (kCacheSize - 1)];
        if (entry.pc == pc)
            return &entry.rule;
        if (entry.pc == 0) {
            ++state.misses;
            entry.rule = cfiRuleAt(pc, returnAddress);
            entry.pc = pc;
            return &entry.rule;
        }
    }
    ++state.misses;
    *uncached = cfiRuleAt(pc, returnAddress);
    return uncached;
}

} // namespace

__attribute__((noinline)) int StackUnwinder::capture(uintptr_t* out, int maxFrames) {
    ThreadState& state = t_state;
    if (!state.initialized)
        initThread(state);
    if (!state.cache || !state.memo || maxFrames <= 0)
        return 0;
    WalkMemo& memo = *state.memo;
    const int current = 1 - memo.previous;
    int memoAt = 0;
    uintptr_t pc, sp, bp;
    // One asm block, so pc, rsp and rbp describe the same instant inside this function.
    asm volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
                 : "=r"(pc), "=r"(sp), "=r"(bp));
    const uintptr_t low = state.stackLow, high = state.stackHigh;
    int count = 0;
    bool returnAddress = false;
    // The first step leaves capture() itself; every return address found is reported.
    int walked = 0;
    while (count < maxFrames) {
        const Rule* rule = fromPreviousWalk(memo, pc, &memoAt);
        state.previousWalkHits += rule != nullptr;
        Rule computed;
        if (!rule)
            rule = tableRule(state, pc, returnAddress, &computed);
        if (walked < kMemoFrames) {
            memo.pcs[current][walked] = pc;
            memo.rules[current][walked] = *rule;
            ++walked;
        }
        uintptr_t cfa;
        if (rule->valid) {
            cfa = (rule->cfaIsRbp ? bp : sp) + rule->cfaOffset;
        } else {
            // No CFI (JIT code, hand-written asm): try the frame-pointer convention once.
            if (bp < sp || bp + 16 > high || (bp & 7))
                break;
            cfa = bp + 16;
            Rule fp;
            fp.rbpSaved = 1;
            fp.rbpOffset = -16;
            fp.raOffset = -8;
            computed = fp;
            rule = &computed;
        }
        uintptr_t raSlot = cfa + rule->raOffset;
        if (cfa <= sp || raSlot < low || raSlot + 8 > high || cfa > high)
            break;
        uintptr_t ra = *reinterpret_cast<const uintptr_t*>(raSlot);
        if (rule->rbpSaved) {
            uintptr_t bpSlot = cfa + rule->rbpOffset;
            if (bpSlot < low || bpSlot + 8 > high)
                break;
            bp = *reinterpret_cast<const uintptr_t*>(bpSlot);
        }
        if (ra < 4096)
            break;
        if (count >= maxFrames)
            break;
        out[count++] = ra;
        sp = cfa;
        pc = ra;
        returnAddress = true;
    }
    memo.counts[current] = walked;
    memo.previous = current;
    return count;
}

void StackUnwinder::prepareThread() {
    if (!t_state.initialized)
        initThread(t_state);
}

uint64_t StackUnwinder::previousWalkHits() {
    return t_state.previousWalkHits;
}

uint64_t StackUnwinder::cacheMisses() {
    return t_state.misses;
}

uint64_t StackUnwinder::hash(const uintptr_t* pcs, int count) {
    uint64_t h = 0xcbf29ce484222325ull ^ uint64_t(count);
    for (int i = 0; i < count; ++i) {
        h ^= pcs[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h ? h : 1;
}

} // namespace stallscope::recorder
