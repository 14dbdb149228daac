// SourceView: the source dock. Shows a file of the session (embedded copy, else the disk with
// path remapping) with syntax colours, the selected line marked and centred, and per-line
// blocked time / sync count in the gutter for lines that issued syncs. A file that cannot be
// found shows an inline banner with a "Remap paths…" button (never a modal: nothing blocks).
#pragma once

#include "model/analysis/insight.h"
#include "views/panels/source_resolver.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QPushButton;
class QFrame;

namespace stallscope::views {

class SourceEditor;
class SourceHighlighter;

class SourceView : public QWidget {
    Q_OBJECT
public:
    explicit SourceView(QWidget* parent = nullptr);

    SourceResolver& resolver() { return m_resolver; }
    // The per-site statistics of the insight report (gutter marks); empty clears them.
    void setSites(std::vector<model::SyncSiteStats> sites);
    // Opens `recordedPath` (as named in the session) at a 1-based line (0: top). Returns
    // whether the text was found; when not, the banner explains and offers remapping.
    // `lineIsDefinition`: the line is a function's def line (torch.profiler traces name
    // functions, not lines): the whole function is highlighted and the header says so.
    bool showLocation(const QString& recordedPath, int line, bool lineIsDefinition = false);
    // The last line of the Python block that starts at `defLine` (its indented body), or
    // `defLine` itself when the text has no body below it.
    static int pythonBlockEnd(const SourceEditor& editor, int defLine);
    // Looks the current file up again (after the remapping rules changed).
    bool reload();
    void clear();

    QString currentFile() const { return m_file; }
    int currentLine() const { return m_line; }
    bool isSourceMissing() const;
    QString bannerText() const;
    QString headerText() const;
    QPushButton* remapButton() const { return m_remapButton; }
    SourceEditor* editor() const { return m_editor; }
    // The marked line's text (empty when no line is marked).
    QString selectedLineText() const;

signals:
    void remapRequested(const QString& recordedPath);
    // A gutter mark was clicked: the syncs of the site at recordedPath:line.
    void siteActivated(const stallscope::model::SyncSiteStats& site);

private:
    void updateMarks();
    bool isDarkBackground() const;

    SourceResolver m_resolver;
    std::vector<model::SyncSiteStats> m_sites;
    QString m_file;
    int m_line = 0;
    bool m_lineIsDefinition = false;
    QLabel* m_header = nullptr;
    QFrame* m_banner = nullptr;
    QLabel* m_bannerLabel = nullptr;
    QPushButton* m_remapButton = nullptr;
    SourceEditor* m_editor = nullptr;
    SourceHighlighter* m_highlighter = nullptr;
};

} // namespace stallscope::views
