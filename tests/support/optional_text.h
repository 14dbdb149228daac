// Lets QCOMPARE print a std::optional (found by argument-dependent lookup through QDebug), for
// helpers that give nothing after a failure (which failed the test, tests/support/test_failure.h):
// `QCOMPARE(stretchKernels(...), std::optional<int64_t>(40))` compares the value and fails on
// nothing, without a separate check (header-only test support).
#pragma once

#include <QDebug>

#include <optional>
#include <string>
#include <type_traits>

#if QT_VERSION < QT_VERSION_CHECK(6, 7, 0) // Qt 6.7 prints std::optional itself
template <typename T> QDebug operator<<(QDebug debug, const std::optional<T>& value) {
    const QDebugStateSaver saver(debug);
    if (!value)
        return debug.nospace() << "nothing";
    if constexpr (std::is_enum_v<T>) // as QTest prints an enum without Q_ENUM: its number
        return debug << static_cast<long long>(*value);
    else if constexpr (std::is_same_v<T, std::string>) // QDebug takes no std::string itself
        return debug << QString::fromStdString(*value);
    else
        return debug << *value;
}
#endif
