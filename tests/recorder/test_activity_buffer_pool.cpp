// ActivityBufferPool: CUPTI is told the buffers it gets are zeroed
// (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER), so a buffer that comes back dirty must be
// handed out again zeroed, and ready buffers must be zeroed too. Without the zeroing the pool
// leaves them as they are (CUPTI zeroes them itself).
#include "recorder/activity_buffer_pool.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <algorithm>
#include <cstring>
#include <vector>

using stallscope::recorder::ActivityBufferPool;

class TestActivityBufferPool : public QObject {
    Q_OBJECT
private slots:
    void bufferPoolHandsOutZeroedBuffers() {
        constexpr size_t kBytes = 4096;
        auto allZero = [](const uint8_t* buffer) {
            return std::all_of(buffer, buffer + kBytes, [](uint8_t b) { return b == 0; });
        };
        ActivityBufferPool zeroing;
        zeroing.configure(kBytes, true);
        uint8_t* buffer = zeroing.take();
        QVERIFY(buffer && allZero(buffer));
        memset(buffer, 0xAB, kBytes);
        zeroing.give(buffer);
        uint8_t* again = zeroing.take();
        QCOMPARE(again, buffer); // reused, not reallocated
        QVERIFY(allZero(again));
        zeroing.give(again);

        ActivityBufferPool leaving;
        leaving.configure(kBytes, false);
        uint8_t* dirty = leaving.take();
        QVERIFY(dirty);
        memset(dirty, 0xAB, kBytes);
        leaving.give(dirty);
        uint8_t* reused = leaving.take();
        QCOMPARE(reused, dirty);
        QCOMPARE(reused[kBytes - 1], uint8_t(0xAB));
        leaving.give(reused);

        // The writer's top-up: ready buffers are zeroed whatever the mode.
        ActivityBufferPool ready;
        ready.configure(kBytes, false);
        ready.keepReady();
        std::vector<uint8_t*> taken;
        for (int i = 0; i < 3; ++i) {
            taken.push_back(ready.take());
            QVERIFY(taken.back() && allZero(taken.back()));
        }
        for (uint8_t* b : taken)
            ready.give(b);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestActivityBufferPool)
#include "test_activity_buffer_pool.moc"
