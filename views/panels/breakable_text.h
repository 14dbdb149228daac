// Text that wraps at any width: a zero-width space after every 16 characters of a run without
// spaces (a C++ template name, a long path), so that a card, a heading or a paragraph never runs
// wider than its box however long a name from the file is (issue 42).
#pragma once

#include <QString>

namespace stallscope::views {

inline QString breakableText(const QString& text) {
    constexpr int kRun = 16;
    QString out;
    out.reserve(text.size() + text.size() / kRun);
    int run = 0;
    for (const QChar c : text) {
        out += c;
        run = c.isSpace() ? 0 : run + 1;
        if (run == kRun) {
            out += QChar(0x200B);
            run = 0;
        }
    }
    return out;
}

} // namespace stallscope::views
