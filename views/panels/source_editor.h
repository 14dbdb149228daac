// SourceEditor: the read-only text of the source view with a gutter showing line numbers and,
// for lines that issued syncs, the blocked time and sync count. The selected line is marked across
// the full width and centred when set. The gutter (SourceGutter, in source_editor.cpp) is a strip
// that hands its paint and mouse events to the editor, which knows the block geometry.
#pragma once

#include <QPlainTextEdit>

#include <cstdint>
#include <map>

namespace stallscope::views {

class SourceGutter;

// A line's syncs: their blocked time and the calls the user made there (SyncSiteStats::calls,
// the count the card, the sites table and the text give).
struct SourceLineMark {
    int64_t blockedNs = 0;
    int64_t calls = 0;
};

class SourceEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit SourceEditor(QWidget* parent = nullptr);

    // Replaces the text; clears the selected line. Marks are kept (set them per file).
    void setSourceText(const QString& text);
    void setLineMarks(std::map<int, SourceLineMark> marks);
    const std::map<int, SourceLineMark>& lineMarks() const { return m_marks; }
    // Lines first..last highlighted (1-based; a whole function, or one line), first scrolled to
    // the middle; 0 clears.
    void setSelectedLines(int first, int last);
    int selectedLine() const { return m_selectedLine; }
    int selectedLastLine() const { return m_selectedLast; }
    QString lineText(int line) const;

    QWidget* gutter() const;
    int gutterWidth() const;
    // The gutter rectangle of a line, in gutter coordinates (empty when the line is not shown).
    QRect gutterLineRect(int line) const;
    // The line at a gutter y, or 0.
    int lineAtGutterY(int y) const;
    // Colours of the mark column (light/dark aware); public for the gutter.
    QColor markColor() const;

signals:
    void lineMarkClicked(int line);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    friend class SourceGutter;
    void updateGutterWidth();
    void updateGutter(const QRect& rect, int dy);
    void updateSelections();
    void paintGutter(QPaintEvent* event);
    int markColumnWidth() const;

    SourceGutter* m_gutter = nullptr;
    std::map<int, SourceLineMark> m_marks;
    int m_selectedLine = 0;
    int m_selectedLast = 0;
};

} // namespace stallscope::views
