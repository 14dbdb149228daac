// The main of every test executable (tests/support/test_suite.h): runs the suite named by the
// first argument, or the only suite of an executable that has one, as Qt's QTEST_*MAIN would.
//
//     build/test/tests/model/model_tests test_sync_sites [Qt Test options and test functions]
//     build/test/tests/model/model_tests --list
#include "tests/support/test_suite.h"

#include <QCoreApplication>
#include <QTest>
#if defined(QT_WIDGETS_LIB)
#include <QApplication>
#endif

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace stallscope::testing {
namespace {

struct Suite {
    std::string name;
    const char* sourceFile;
    SuiteApplication application;
    SuiteFactory create;
};

// A function's static: suites register from other units' static initializers, in any order.
std::vector<Suite>& suites() {
    static std::vector<Suite> registered;
    return registered;
}

std::string baseName(const char* path) {
    std::string name = path;
    if (const auto slash = name.rfind('/'); slash != std::string::npos)
        name.erase(0, slash + 1);
    if (const auto dot = name.rfind('.'); dot != std::string::npos)
        name.erase(dot);
    return name;
}

const Suite* findSuite(const char* name) {
    for (const Suite& suite : suites())
        if (suite.name == name)
            return &suite;
    return nullptr;
}

int runSuite(const Suite& suite, int argc, char** argv) {
    std::optional<QCoreApplication> core;
#if defined(QT_WIDGETS_LIB)
    std::optional<QApplication> gui;
#endif
    switch (suite.application) {
    case SuiteApplication::Default:
#if defined(QT_WIDGETS_LIB)
        gui.emplace(argc, argv);
        gui->setAttribute(Qt::AA_Use96Dpi, true);
        break;
#endif
    case SuiteApplication::Core:
        core.emplace(argc, argv);
        core->setAttribute(Qt::AA_Use96Dpi, true);
        break;
    case SuiteApplication::None:
        break;
    }
    const std::unique_ptr<QObject> testObject = suite.create();
#ifdef QT_TESTCASE_BUILDDIR
    QTest::setMainSourcePath(suite.sourceFile, QT_TESTCASE_BUILDDIR);
#else
    QTest::setMainSourcePath(suite.sourceFile);
#endif
    return QTest::qExec(testObject.get(), argc, argv);
}

int usage(const char* program) {
    std::fprintf(stderr, "usage: %s SUITE [Qt Test options] [test functions]\nsuites:\n", program);
    for (const Suite& suite : suites())
        std::fprintf(stderr, "  %s\n", suite.name.c_str());
    return 2;
}

} // namespace

bool registerSuite(const char* sourceFile, SuiteApplication application, SuiteFactory create) {
    suites().push_back(Suite{baseName(sourceFile), sourceFile, application, create});
    return true;
}

} // namespace stallscope::testing

int main(int argc, char** argv) {
    using namespace stallscope::testing;
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        for (const Suite& suite : suites())
            std::printf("%s\n", suite.name.c_str());
        return 0;
    }
    // The suite's name is not Qt Test's argument: the suite sees the rest as QTEST_MAIN's would.
    std::vector<char*> arguments(argv, argv + argc);
    const Suite* suite = argc > 1 ? findSuite(argv[1]) : nullptr;
    if (suite)
        arguments.erase(arguments.begin() + 1);
    else if (suites().size() == 1)
        suite = &suites().front();
    else
        return usage(argv[0]);
    int count = static_cast<int>(arguments.size());
    arguments.push_back(nullptr);
    return runSuite(*suite, count, arguments.data());
}
