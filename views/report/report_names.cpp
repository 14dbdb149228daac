#include "views/report/report_names.h"

namespace stallscope::views {

namespace {

const QString kEllipsis = QStringLiteral("…");

const QString kAnonymousNamespace = QStringLiteral("(anonymous namespace)");

// The position of the '(' that opens the top-level parameter list, or -1. "(anonymous
// namespace)" and a lambda's "{lambda(…)#1}" are part of the name, not its parameters (issue 42:
// every at::native::(anonymous namespace)::… kernel read "at::native::(…)").
int parameterListStart(const QString& name) {
    int depth = 0;
    for (int i = 0; i < name.size(); ++i) {
        const QChar c = name[i];
        if (c == u'<' || c == u'{')
            ++depth;
        else if ((c == u'>' || c == u'}') && depth > 0)
            --depth;
        else if (c == u'(' && depth == 0 && i > 0) {
            if (QStringView(name).mid(i).startsWith(kAnonymousNamespace)) {
                i += int(kAnonymousNamespace.size()) - 1;
                continue;
            }
            return i;
        }
    }
    return -1;
}

// The first top-level '<' (the template arguments of the function), or -1.
int templateStart(const QString& name) {
    const int at = name.indexOf(u'<');
    return at > 0 ? at : -1;
}

} // namespace

QString elideTemplateName(const QString& name, const std::function<bool(const QString&)>& fits) {
    if (fits(name))
        return name;
    QString shorter = name;
    if (shorter.startsWith(QStringLiteral("void "))) // every kernel returns void
        shorter = shorter.mid(5);
    const int parameters = parameterListStart(shorter);
    QString tail;
    if (parameters > 0) {
        tail = QStringLiteral("(") + kEllipsis + QStringLiteral(")");
        shorter = shorter.left(parameters);
    }
    if (fits(shorter + tail))
        return shorter + tail;
    const int open = templateStart(shorter);
    if (open > 0) {
        // Keep the function name and as many of its first template arguments as fit.
        const QString closing = kEllipsis + QStringLiteral(">") + tail;
        int low = open + 1, high = int(shorter.size()) - 1; // prefix lengths to try
        QString best;
        while (low <= high) {
            const int mid = (low + high) / 2;
            const QString candidate = shorter.left(mid).trimmed() + closing;
            if (fits(candidate)) {
                best = candidate;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        if (!best.isEmpty())
            return best;
    }
    // Not even the bare name fits: cut at the end.
    int low = 0, high = int(shorter.size());
    while (low < high) {
        const int mid = (low + high + 1) / 2;
        if (fits(shorter.left(mid) + kEllipsis))
            low = mid;
        else
            high = mid - 1;
    }
    return shorter.left(low) + kEllipsis;
}

QString elideTemplateName(const QString& name, int maxChars) {
    return elideTemplateName(name,
                             [maxChars](const QString& text) { return text.size() <= maxChars; });
}

} // namespace stallscope::views
