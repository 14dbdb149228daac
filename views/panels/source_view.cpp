#include "views/panels/source_view.h"

#include "views/panels/panel_widgets.h"
#include "views/panels/source_editor.h"
#include "views/panels/source_highlighter.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

namespace stallscope::views {

SourceView::SourceView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("sourceView"));
    QVBoxLayout* layout = flushColumn(this, 0);

    m_header = new QLabel(this);
    m_header->setObjectName(QStringLiteral("sourceHeader"));
    m_header->setContentsMargins(6, 3, 6, 3);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setText(tr("No source open. Click a source chip, a stack frame or a table row."));
    layout->addWidget(m_header);

    m_banner = new QFrame(this);
    m_banner->setObjectName(QStringLiteral("sourceMissingBanner"));
    // Amber with dark text: readable on light and dark themes alike (as the session banner).
    m_banner->setStyleSheet(QStringLiteral(
        "QFrame#sourceMissingBanner { background: #FFE08A; border: 1px solid #E0B000; }"
        "QFrame#sourceMissingBanner QLabel { color: #3D2E00; }"));
    auto* bannerLayout = new QHBoxLayout(m_banner);
    bannerLayout->setContentsMargins(8, 5, 8, 5);
    m_bannerLabel = new QLabel(m_banner);
    m_bannerLabel->setWordWrap(true);
    m_bannerLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bannerLayout->addWidget(m_bannerLabel, 1);
    m_remapButton = new QPushButton(tr("Remap Paths…"), m_banner);
    m_remapButton->setObjectName(QStringLiteral("remapButton"));
    connect(m_remapButton, &QPushButton::clicked, this, [this] { emit remapRequested(m_file); });
    bannerLayout->addWidget(m_remapButton);
    m_banner->hide();
    layout->addWidget(m_banner);

    m_editor = new SourceEditor(this);
    m_highlighter = new SourceHighlighter(m_editor->document());
    connect(m_editor, &SourceEditor::lineMarkClicked, this, [this](int line) {
        for (const model::SyncSiteStats& site : m_sites)
            if (QString::fromStdString(site.site.file) == m_file &&
                (site.site.line == line || site.joinsLine(line))) {
                emit siteActivated(site);
                return;
            }
    });
    layout->addWidget(m_editor, 1);
}

bool SourceView::isDarkBackground() const {
    return m_editor->palette().color(QPalette::Base).lightness() < 128;
}

void SourceView::setSites(std::vector<model::SyncSiteStats> sites) {
    m_sites = std::move(sites);
    updateMarks();
}

void SourceView::updateMarks() {
    std::map<int, SourceLineMark> marks;
    for (const model::SyncSiteStats& site : m_sites) {
        if (!site.site.hasLocation() || QString::fromStdString(site.site.file) != m_file)
            continue;
        // Several sites on one line (different functions of one name) add up; the lines joined
        // to a site (one fix, the next statements) keep their own part, their share of its syncs
        // of its calls.
        SourceLineMark& mark = marks[int(site.site.line)];
        mark.blockedNs += site.blockedNs;
        mark.calls += site.calls;
        for (const model::SyncSiteStats::JoinedLine& joined : site.joinedLines) {
            const int64_t calls =
                site.count > 0
                    ? std::llround(double(joined.count) * double(site.calls) / double(site.count))
                    : 0;
            mark.blockedNs -= joined.blockedNs;
            mark.calls -= calls;
            SourceLineMark& own = marks[int(joined.line)];
            own.blockedNs += joined.blockedNs;
            own.calls += calls;
        }
    }
    m_editor->setLineMarks(std::move(marks));
}

bool SourceView::showLocation(const QString& recordedPath, int line, bool lineIsDefinition) {
    m_file = recordedPath;
    m_line = line;
    m_lineIsDefinition = lineIsDefinition && line > 0;
    return reload();
}

int SourceView::pythonBlockEnd(const SourceEditor& editor, int defLine) {
    auto indent = [](const QString& text) {
        int n = 0;
        while (n < text.size() && (text[n] == QLatin1Char(' ') || text[n] == QLatin1Char('\t')))
            ++n;
        return n;
    };
    const QString def = editor.lineText(defLine);
    const int defIndent = indent(def);
    int last = defLine;
    const int lines = editor.document()->blockCount();
    // Decorators and a signature over several lines end at the first line ending with ':'.
    int line = defLine;
    while (line < lines && !editor.lineText(line).trimmed().endsWith(QLatin1Char(':')))
        ++line;
    last = line;
    for (++line; line <= lines; ++line) {
        const QString text = editor.lineText(line);
        if (text.trimmed().isEmpty() || text.trimmed().startsWith(QLatin1Char('#')))
            continue;
        if (indent(text) <= defIndent)
            break;
        last = line;
    }
    return last;
}

bool SourceView::reload() {
    if (m_file.isEmpty())
        return false;
    const SourceLookup lookup = m_resolver.find(m_file);
    updateMarks();
    if (!lookup.found()) {
        m_editor->setSourceText({});
        m_highlighter->setLanguage(SourceHighlighter::Language::Plain, isDarkBackground());
        m_header->setText(tr("<b>%1</b>").arg(m_file.toHtmlEscaped()));
        // A local file is read only through the user's own rules, never where the session says.
        QString tried = lookup.tried.isEmpty()
                            ? tr("It is not embedded in the session, and none of your path "
                                 "remapping rules covers it.")
                            : tr("It is not embedded in the session and not at %1.")
                                  .arg(lookup.tried.join(QStringLiteral(", ")).toHtmlEscaped());
        m_bannerLabel->setText(
            tr("<b>Source not found:</b> %1<br>%2 Map the recorded directory to where the "
               "sources are on this machine.")
                .arg(m_file.toHtmlEscaped(), tried));
        m_banner->show();
        return false;
    }
    m_banner->hide();
    m_highlighter->setLanguage(SourceHighlighter::languageFor(m_file), isDarkBackground());
    m_editor->setSourceText(lookup.text);
    QString origin = lookup.origin == SourceLookup::Origin::Embedded
                         ? tr("embedded in the session")
                         : tr("local file %1 via your remap %2 → %3")
                               .arg(lookup.shownPath.toHtmlEscaped(),
                                    QString::fromStdString(lookup.rule.from).toHtmlEscaped(),
                                    QString::fromStdString(lookup.rule.to).toHtmlEscaped());
    if (lookup.truncated)
        origin += tr(", truncated");
    QString header = tr("<b>%1</b> &nbsp;<span style='color:gray'>(%2)</span>")
                         .arg(QFileInfo(m_file).fileName().toHtmlEscaped(), origin);
    if (m_line > 0 && m_lineIsDefinition)
        header += tr(" &nbsp;line %1 is the function's def line: the trace names functions, "
                     "not lines; a Stallscope recording has the exact line")
                      .arg(m_line);
    else if (m_line > 0)
        header += tr(" &nbsp;line %1").arg(m_line);
    m_header->setText(header);
    m_header->setToolTip(m_file);
    m_editor->setSelectedLines(m_line,
                               m_lineIsDefinition ? pythonBlockEnd(*m_editor, m_line) : m_line);
    return true;
}

void SourceView::clear() {
    m_file.clear();
    m_line = 0;
    m_lineIsDefinition = false;
    m_sites.clear();
    m_editor->setLineMarks({});
    m_editor->setSourceText({});
    m_banner->hide();
    m_header->setText(tr("No source open. Click a source chip, a stack frame or a table row."));
}

bool SourceView::isSourceMissing() const {
    return m_banner->isVisibleTo(this);
}

QString SourceView::bannerText() const {
    return isSourceMissing() ? m_bannerLabel->text() : QString();
}

QString SourceView::headerText() const {
    return m_header->text();
}

QString SourceView::selectedLineText() const {
    return m_editor->lineText(m_editor->selectedLine());
}

} // namespace stallscope::views
