// StackUnwinder: a capture finds its caller, and a walk that takes its rules from the previous
// walk (in step, or a few frames away) gives exactly the stack the rule table gives.
#include "recorder/stack_unwinder.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>

using stallscope::recorder::StackUnwinder;

namespace {

// A chain of distinct frames (one per N), ending in a capture directly (path 0) or through four
// more frames (path 1).
template <int N> __attribute__((noinline)) int extraFrames(uintptr_t* out) {
    int depth;
    if constexpr (N == 0)
        depth = StackUnwinder::capture(out, 64);
    else
        depth = extraFrames<N - 1>(out);
    asm volatile("" ::: "memory"); // no tail call
    return depth;
}
template <int N> __attribute__((noinline)) int nestedCapture(int path, uintptr_t* out) {
    int depth;
    if constexpr (N == 0)
        depth = path == 0 ? StackUnwinder::capture(out, 64) : extraFrames<3>(out);
    else
        depth = nestedCapture<N - 1>(path, out);
    asm volatile("" ::: "memory");
    return depth;
}

} // namespace

class TestStackUnwinder : public QObject {
    Q_OBJECT
private slots:
    // The previous walk's rules, found in order or a few frames away, give the same stack as the
    // rule table: A, then B (A's outer frames four positions further out), then A twice.
    void unwinderReusesThePreviousWalk() {
        uintptr_t stacks[4][64];
        int depths[4];
        uint64_t hits[4];
        const int paths[4] = {0, 1, 0, 0};
        volatile int captures = 4; // one call site: no unrolled copies with their own addresses
        for (int i = 0; i < captures; ++i) {
            const uint64_t before = StackUnwinder::previousWalkHits();
            depths[i] = nestedCapture<10>(paths[i], stacks[i]);
            hits[i] = StackUnwinder::previousWalkHits() - before;
        }
        const int n = depths[0];
        QVERIFY(n > 12);
        QCOMPARE(depths[1], n + 4);
        // B: capture()'s own frame, the ten frames of A's chain and the frames around the test
        // (all but A's innermost chain frame and the extra ones) come from A's walk.
        QVERIFY(std::equal(stacks[0] + 2, stacks[0] + n, stacks[1] + 6));
        QVERIFY2(hits[1] >= uint64_t(n - 1), qPrintable(QString::number(hits[1])));
        QCOMPARE(depths[2], n);
        QVERIFY(std::equal(stacks[0], stacks[0] + n, stacks[2]));
        QVERIFY(hits[2] >= uint64_t(n - 1));
        QCOMPARE(depths[3], n);
        QVERIFY(std::equal(stacks[0], stacks[0] + n, stacks[3]));
        QVERIFY(hits[3] >= uint64_t(n)); // the same stack again: every frame
    }

    void unwinderFindsCaller() {
        uintptr_t pcs[64];
        int n = StackUnwinder::capture(pcs, 64);
        QVERIFY(n >= 3); // this test function, Qt's invoker, ..., main
        // The first frame is inside this function: within a few KiB after its entry.
        Dl_info info;
        QVERIFY(dladdr(reinterpret_cast<void*>(pcs[0]), &info));
        int again = StackUnwinder::capture(pcs, 64);
        QVERIFY(again >= n - 1);
        QCOMPARE(StackUnwinder::hash(pcs, 3), StackUnwinder::hash(pcs, 3));
        QVERIFY(StackUnwinder::hash(pcs, 3) != StackUnwinder::hash(pcs, 2));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestStackUnwinder)
#include "test_stack_unwinder.moc"
