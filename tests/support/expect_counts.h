// Comparing a loaded session's event counts, kind by kind (header-only test support).
#pragma once

#include "model/session/session.h"

#include <QTest>

namespace stallscope::testing {

// Fails the calling test at the first kind whose count differs from `expected`'s.
inline void expectCounts(const model::EventCounts& actual, const model::EventCounts& expected) {
    QCOMPARE(actual.apiCalls, expected.apiCalls);
    QCOMPARE(actual.syncs, expected.syncs);
    QCOMPARE(actual.kernels, expected.kernels);
    QCOMPARE(actual.memcpys, expected.memcpys);
    QCOMPARE(actual.memsets, expected.memsets);
    QCOMPARE(actual.ranges, expected.ranges);
}

} // namespace stallscope::testing
