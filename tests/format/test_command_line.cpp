// format/command_line.h: the argument walk of the command-line tools — options with values, the
// rest of the line as a command, and a missing value ending the program with status 2.
#include "format/command_line.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

using stallscope::format::CommandLine;

class TestCommandLine : public QObject {
    Q_OBJECT
private slots:
    void walksOptionsValuesAndTheRest() {
        char* argv[] = {const_cast<char*>("tool"),           const_cast<char*>("-o"),
                        const_cast<char*>("out.stallscope"), const_cast<char*>("--quiet"),
                        const_cast<char*>("python3"),        const_cast<char*>("train.py")};
        CommandLine arguments("tool", 6, argv);
        QVERIFY(arguments.next());
        QCOMPARE(arguments.argument(), std::string_view("-o"));
        QCOMPARE(std::string(arguments.value("--output")), std::string("out.stallscope"));
        QVERIFY(arguments.next());
        QCOMPARE(arguments.argument(), std::string_view("--quiet"));
        QVERIFY(arguments.next());
        // rest() takes the current argument and everything after it.
        QCOMPARE(arguments.rest(), (std::vector<std::string>{"python3", "train.py"}));
        QVERIFY(!arguments.next());
    }

    void restPastTheEndIsEmpty() {
        char* argv[] = {const_cast<char*>("tool"), const_cast<char*>("--")};
        CommandLine arguments("tool", 2, argv);
        QVERIFY(arguments.next());
        QVERIFY(!arguments.next()); // nothing after "--"
        QVERIFY(arguments.rest().empty());
    }

    void noArgumentsAtAll() {
        char* argv[] = {const_cast<char*>("tool")};
        CommandLine arguments("tool", 1, argv);
        QVERIFY(!arguments.next());
    }

    void missingValueExitsWithStatus2() {
        std::fflush(nullptr); // else the child's exit() writes the parent's buffered log again
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            char* argv[] = {const_cast<char*>("tool"), const_cast<char*>("--seed")};
            CommandLine arguments("tool", 2, argv);
            arguments.next();
            arguments.value("--seed"); // exits
            _exit(0);
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 2);
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestCommandLine)
#include "test_command_line.moc"
