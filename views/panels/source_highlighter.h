// SourceHighlighter: syntax colours for the source view — C/C++/CUDA and Python (keywords,
// types, strings, comments, numbers, preprocessor / decorators). Colours are picked for the
// document's background so both light and dark palettes stay readable.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <vector>

namespace stallscope::views {

class SourceHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    enum class Language { Plain, Cpp, Python };

    explicit SourceHighlighter(QTextDocument* document);

    // From the file name: .py/.pyi → Python; C, C++ and CUDA suffixes → Cpp; else Plain.
    static Language languageFor(const QString& fileName);
    void setLanguage(Language language, bool darkBackground);
    Language language() const { return m_language; }

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    void addRule(const QString& pattern, const QTextCharFormat& format);

    Language m_language = Language::Plain;
    std::vector<Rule> m_rules;
    QTextCharFormat m_comment;
    QTextCharFormat m_string;
    QRegularExpression m_blockCommentStart;
    QRegularExpression m_blockCommentEnd;
    QRegularExpression m_tripleQuote;
};

} // namespace stallscope::views
