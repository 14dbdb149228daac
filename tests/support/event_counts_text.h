// Lets QCOMPARE print both sides of an EventCounts comparison (found by argument-dependent
// lookup), so one comparison of all counts still says which count differs.
#pragma once

#include "format/session_rows.h"

#include <QString>
#include <QTest>

namespace stallscope::format {

inline char* toString(const EventCounts& counts) {
    return QTest::toString(
        QStringLiteral("api calls %1, syncs %2, kernels %3, memcpys %4, memsets %5, ranges %6")
            .arg(counts.apiCalls)
            .arg(counts.syncs)
            .arg(counts.kernels)
            .arg(counts.memcpys)
            .arg(counts.memsets)
            .arg(counts.ranges));
}

} // namespace stallscope::format
