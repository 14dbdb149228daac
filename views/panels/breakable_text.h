// Text from a file, laid out in a box of any width (issue 42): names that break anywhere, titles
// cut to a line or two, and the size policy of a label that wraps to its panel instead of widening
// it. Shared by the insight cards and the report.
#pragma once

#include <QLabel>
#include <QSizePolicy>
#include <QString>

namespace stallscope::views {

// A zero-width space after every 16 characters of a run without spaces (a C++ template name, a
// long path), so that a card, a heading or a paragraph never runs wider than its box.
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

// A title (a card's, a report's heading) is a line or two, however long a name in it is.
inline constexpr int kShownTitleChars = 300;

// `text` cut to `maxChars`, ending in "…" when cut.
inline QString elidedText(const QString& text, int maxChars) {
    return text.size() > maxChars ? text.left(maxChars - 1) + QChar(0x2026) : text;
}

// Word wrap at the width the layout gives: the label's own width (its longest unbreakable word)
// never widens its panel, and its height follows its width.
inline void wrapToWidth(QLabel* label) {
    label->setWordWrap(true);
    QSizePolicy policy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    policy.setHeightForWidth(true); // as word wrap had it
    label->setSizePolicy(policy);
}

} // namespace stallscope::views
