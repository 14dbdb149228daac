// Failing the running test from a helper (header-only test support). QVERIFY and QFAIL return only
// from the function they are written in, and qFatal ends the whole suite, hiding every other
// test's result. A helper records its failure with STALLSCOPE_FAIL instead and returns a value its
// caller checks with QVERIFY (an empty optional, a null pointer, false, or a fixture that is not
// ok()), so only the test that hit the failure fails and the suite goes on with the next one.
#pragma once

#include <QString>
#include <QTest>

#include <cstdarg>

namespace stallscope::testing {

// Records a failure of the running test at `file`:`line`, the message formatted like printf's.
[[gnu::format(printf, 3, 4)]] inline void failTest(const char* file, int line, const char* format,
                                                   ...) {
    va_list arguments;
    va_start(arguments, format);
    const QString message = QString::vasprintf(format, arguments);
    va_end(arguments);
    QTest::qFail(qPrintable(message), file, line);
}

} // namespace stallscope::testing

// Fails the running test where it is written, with a printf-style message; the caller returns
// a value that says so.
#define STALLSCOPE_FAIL(...) ::stallscope::testing::failTest(__FILE__, __LINE__, __VA_ARGS__)
