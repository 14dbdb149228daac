#pragma once

// The argument walk every stallscope command-line tool (stallscope-record, stallscope-symbolize,
// stallscope-gen) does. It lives in format because that is the one library all of them link.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::format {

class CommandLine {
public:
    // `program` prefixes the error messages ("stallscope-gen: --seed needs a value").
    CommandLine(const char* program, int argc, char** argv)
        : m_program(program), m_argc(argc), m_argv(argv) {}

    // Moves to the next argument; false when there is none left.
    bool next() { return ++m_index < m_argc; }
    std::string_view argument() const { return m_argv[m_index]; }

    // The argument after the current option, which it consumes. A missing value is a usage error:
    // says so, naming the option `option`, and exits with status 2.
    const char* value(const char* option) {
        if (m_index + 1 >= m_argc) {
            std::fprintf(stderr, "%s: %s needs a value\n", m_program, option);
            std::exit(2);
        }
        return m_argv[++m_index];
    }

    // The current argument and all after it, consumed.
    std::vector<std::string> rest() {
        std::vector<std::string> arguments(m_argv + m_index, m_argv + m_argc);
        m_index = m_argc;
        return arguments;
    }

private:
    const char* m_program;
    int m_argc;
    char** m_argv;
    int m_index = 0;
};

} // namespace stallscope::format
