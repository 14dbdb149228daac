#include "views/panels/source_highlighter.h"

#include <QFileInfo>

namespace stallscope::views {

namespace {

// States carried from block to block (QSyntaxHighlighter::currentBlockState).
constexpr int kNormal = 0;
constexpr int kInBlockComment = 1; // C++ /* ... */
constexpr int kInTripleQuote = 2;  // Python """ ... """ or ''' ... '''

QTextCharFormat charFormat(const QColor& colour, bool bold = false, bool italic = false) {
    QTextCharFormat f;
    f.setForeground(colour);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}

QString wordList(const char* const* words, size_t count) {
    QStringList list;
    for (size_t i = 0; i < count; ++i)
        list << QString::fromLatin1(words[i]);
    return QStringLiteral("\\b(?:%1)\\b").arg(list.join(QLatin1Char('|')));
}

constexpr const char* kCppKeywords[] = {"alignas",       "auto",
                                        "break",         "case",
                                        "catch",         "class",
                                        "const",         "consteval",
                                        "constexpr",     "constinit",
                                        "continue",      "co_await",
                                        "co_return",     "co_yield",
                                        "decltype",      "default",
                                        "delete",        "do",
                                        "else",          "enum",
                                        "explicit",      "export",
                                        "extern",        "false",
                                        "for",           "friend",
                                        "goto",          "if",
                                        "inline",        "mutable",
                                        "namespace",     "new",
                                        "noexcept",      "nullptr",
                                        "operator",      "override",
                                        "private",       "protected",
                                        "public",        "return",
                                        "sizeof",        "static",
                                        "static_assert", "static_cast",
                                        "dynamic_cast",  "reinterpret_cast",
                                        "const_cast",    "struct",
                                        "switch",        "template",
                                        "this",          "throw",
                                        "true",          "try",
                                        "typedef",       "typename",
                                        "union",         "using",
                                        "virtual",       "volatile",
                                        "while",         "__global__",
                                        "__device__",    "__host__",
                                        "__shared__",    "__constant__",
                                        "__restrict__",  "__syncthreads"};
constexpr const char* kCppTypes[] = {
    "bool",        "char",        "double",   "float",    "int",      "long",    "short",
    "signed",      "unsigned",    "void",     "size_t",   "int8_t",   "int16_t", "int32_t",
    "int64_t",     "uint8_t",     "uint16_t", "uint32_t", "uint64_t", "dim3",    "cudaStream_t",
    "cudaEvent_t", "cudaError_t", "half",     "float2",   "float4",   "std"};
constexpr const char* kPythonKeywords[] = {
    "and",    "as",   "assert", "async",  "await",  "break",   "class",    "continue",
    "def",    "del",  "elif",   "else",   "except", "finally", "for",      "from",
    "global", "if",   "import", "in",     "is",     "lambda",  "nonlocal", "not",
    "or",     "pass", "raise",  "return", "try",    "while",   "with",     "yield"};
constexpr const char* kPythonConstants[] = {"None", "True", "False", "self", "cls"};

} // namespace

SourceHighlighter::SourceHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
    m_blockCommentStart.setPattern(QStringLiteral("/\\*"));
    m_blockCommentEnd.setPattern(QStringLiteral("\\*/"));
    m_tripleQuote.setPattern(QStringLiteral("\"\"\"|'''"));
}

SourceHighlighter::Language SourceHighlighter::languageFor(const QString& fileName) {
    const QString suffix = QFileInfo(fileName).suffix().toLower();
    if (suffix == QLatin1String("py") || suffix == QLatin1String("pyi"))
        return Language::Python;
    static const QStringList cpp = {
        QStringLiteral("c"),  QStringLiteral("cc"),  QStringLiteral("cpp"), QStringLiteral("cxx"),
        QStringLiteral("h"),  QStringLiteral("hh"),  QStringLiteral("hpp"), QStringLiteral("hxx"),
        QStringLiteral("cu"), QStringLiteral("cuh"), QStringLiteral("inl")};
    return cpp.contains(suffix) ? Language::Cpp : Language::Plain;
}

void SourceHighlighter::addRule(const QString& pattern, const QTextCharFormat& format) {
    m_rules.push_back({QRegularExpression(pattern), format});
}

void SourceHighlighter::setLanguage(Language language, bool darkBackground) {
    m_language = language;
    m_rules.clear();
    const QColor keyword = darkBackground ? QColor(0xC6, 0x92, 0xF0) : QColor(0x7A, 0x1F, 0xA2);
    const QColor type = darkBackground ? QColor(0x4E, 0xC9, 0xB0) : QColor(0x00, 0x6E, 0x7A);
    const QColor number = darkBackground ? QColor(0xB5, 0xCE, 0xA8) : QColor(0x09, 0x86, 0x58);
    const QColor preprocessor =
        darkBackground ? QColor(0xE0, 0x9F, 0x5B) : QColor(0x9A, 0x50, 0x00);
    const QColor function = darkBackground ? QColor(0xDC, 0xDC, 0xAA) : QColor(0x79, 0x5E, 0x26);
    m_string = charFormat(darkBackground ? QColor(0xCE, 0x91, 0x78) : QColor(0xA3, 0x15, 0x15));
    m_comment = charFormat(darkBackground ? QColor(0x6A, 0x99, 0x55) : QColor(0x3B, 0x7A, 0x3B),
                           false, true);
    if (language == Language::Cpp) {
        addRule(QStringLiteral("\\b[A-Za-z_]\\w*(?=\\s*(?:<<<|\\())"), charFormat(function));
        addRule(wordList(kCppTypes, std::size(kCppTypes)), charFormat(type));
        addRule(wordList(kCppKeywords, std::size(kCppKeywords)), charFormat(keyword, true));
        addRule(QStringLiteral("\\b(?:0x[0-9A-Fa-f']+|\\d[\\d']*(?:\\.\\d*)?(?:[eE][-+]?\\d+)?)"
                               "[uUlLfF]*\\b"),
                charFormat(number));
        addRule(QStringLiteral("^\\s*#\\s*\\w+"), charFormat(preprocessor));
        addRule(QStringLiteral("\"(?:\\\\.|[^\"\\\\])*\"|'(?:\\\\.|[^'\\\\])'"), m_string);
        addRule(QStringLiteral("//.*$"), m_comment);
    } else if (language == Language::Python) {
        addRule(QStringLiteral("\\b[A-Za-z_]\\w*(?=\\s*\\()"), charFormat(function));
        addRule(wordList(kPythonConstants, std::size(kPythonConstants)), charFormat(type));
        addRule(wordList(kPythonKeywords, std::size(kPythonKeywords)), charFormat(keyword, true));
        addRule(QStringLiteral("\\b\\d[\\d_]*(?:\\.\\d*)?(?:[eE][-+]?\\d+)?j?\\b"),
                charFormat(number));
        addRule(QStringLiteral("^\\s*@[\\w.]+"), charFormat(preprocessor));
        addRule(QStringLiteral("[rbfRBF]?\"(?:\\\\.|[^\"\\\\])*\"|[rbfRBF]?'(?:\\\\.|[^'\\\\])*'"),
                m_string);
        addRule(QStringLiteral("#.*$"), m_comment);
    }
    rehighlight();
}

void SourceHighlighter::highlightBlock(const QString& text) {
    setCurrentBlockState(kNormal);
    if (m_language == Language::Plain)
        return;
    // Later rules win: strings and comments come last so keywords inside them are overdrawn.
    for (const Rule& rule : m_rules) {
        auto it = rule.pattern.globalMatch(text);
        while (it.hasNext()) {
            const QRegularExpressionMatch match = it.next();
            setFormat(int(match.capturedStart()), int(match.capturedLength()), rule.format);
        }
    }
    // Multi-line comments (C++) and triple-quoted strings (Python) span blocks.
    const bool cpp = m_language == Language::Cpp;
    const QRegularExpression& open = cpp ? m_blockCommentStart : m_tripleQuote;
    const QTextCharFormat& spanFormat = cpp ? m_comment : m_string;
    const int spanState = cpp ? kInBlockComment : kInTripleQuote;
    const QRegularExpression& close = cpp ? m_blockCommentEnd : m_tripleQuote;
    const qsizetype openerLength = cpp ? 2 : 3;
    // Continuing a span from the previous block: it "opens" at 0 with no opener to skip.
    bool continuing = previousBlockState() == spanState;
    qsizetype start = 0;
    if (!continuing) {
        const QRegularExpressionMatch first = open.match(text);
        start = first.hasMatch() ? first.capturedStart() : -1;
    }
    while (start >= 0) {
        // An opener inside a line comment or a string is not one.
        if (!continuing && format(int(start)) != QTextCharFormat() &&
            format(int(start)) != spanFormat) {
            const QRegularExpressionMatch next = open.match(text, start + openerLength);
            start = next.hasMatch() ? next.capturedStart() : -1;
            continue;
        }
        const QRegularExpressionMatch end =
            close.match(text, continuing ? start : start + openerLength);
        continuing = false;
        qsizetype length;
        if (!end.hasMatch()) {
            setCurrentBlockState(spanState);
            length = text.size() - start;
        } else {
            length = end.capturedEnd() - start;
        }
        setFormat(int(start), int(length), spanFormat);
        if (!end.hasMatch())
            break;
        const QRegularExpressionMatch next = open.match(text, start + length);
        start = next.hasMatch() ? next.capturedStart() : -1;
    }
}

} // namespace stallscope::views
