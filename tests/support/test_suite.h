// A Qt Test suite's entry point when several suites share one executable (tests/CMakeLists.txt:
// the suites of a test folder are linked together, as Orbit links a module's tests, so that CI
// compiles them a few at a time as one unit instead of ~130 times over). Each suite ends with
// STALLSCOPE_TEST_MAIN, _GUILESS_ or _APPLESS_ in place of Qt's QTEST_*MAIN; the executable's main
// (tests/support/test_main.cpp) runs the suite its first argument names — the suite's file name,
// which is also its CTest name — with the application object Qt's macro of the same name creates.
#pragma once

#include <QObject>

#include <memory>

namespace stallscope::testing {

// The application object a suite runs under, as QTEST_MAIN, QTEST_GUILESS_MAIN and
// QTEST_APPLESS_MAIN choose it.
enum class SuiteApplication { Default, Core, None };

using SuiteFactory = std::unique_ptr<QObject> (*)();

// Adds the suite declared in `sourceFile` (its name: the file's base name); returns true so that
// a namespace-scope constant can call it.
bool registerSuite(const char* sourceFile, SuiteApplication application, SuiteFactory create);

} // namespace stallscope::testing

#define STALLSCOPE_REGISTER_SUITE(TestObject, application)                                         \
    namespace {                                                                                    \
    [[maybe_unused]] const bool stallscopeSuiteRegistered##TestObject =                            \
        ::stallscope::testing::registerSuite(                                                      \
            __FILE__, application,                                                                 \
            []() -> std::unique_ptr<QObject> { return std::make_unique<TestObject>(); });          \
    }

// QTEST_MAIN: QApplication when the executable links Qt Widgets (stallscope_test_main_widgets),
// else a QCoreApplication.
#define STALLSCOPE_TEST_MAIN(TestObject)                                                           \
    STALLSCOPE_REGISTER_SUITE(TestObject, ::stallscope::testing::SuiteApplication::Default)
// QTEST_GUILESS_MAIN: a QCoreApplication.
#define STALLSCOPE_TEST_GUILESS_MAIN(TestObject)                                                   \
    STALLSCOPE_REGISTER_SUITE(TestObject, ::stallscope::testing::SuiteApplication::Core)
// QTEST_APPLESS_MAIN: no application object.
#define STALLSCOPE_TEST_APPLESS_MAIN(TestObject)                                                   \
    STALLSCOPE_REGISTER_SUITE(TestObject, ::stallscope::testing::SuiteApplication::None)
