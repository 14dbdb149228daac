#include "views/panels/source_editor.h"

#include "model/session/session_summary.h"

#include <QFontDatabase>
#include <QMouseEvent>
#include <QPainter>
#include <QTextBlock>

#include <algorithm>

namespace stallscope::views {

namespace {
constexpr int kGutterPadding = 6;

bool isDark(const QPalette& palette) {
    return palette.color(QPalette::Base).lightness() < 128;
}

QString markLabel(const SourceLineMark& mark) {
    return QStringLiteral("%1 ×%2")
        .arg(QString::fromStdString(model::formatDuration(mark.blockedNs)))
        .arg(mark.calls);
}
} // namespace

// The strip left of the text: the editor paints it and answers its clicks.
class SourceGutter : public QWidget {
public:
    explicit SourceGutter(SourceEditor* editor) : QWidget(editor), m_editor(editor) {
        setObjectName(QStringLiteral("sourceGutter"));
        setMouseTracking(true);
    }
    QSize sizeHint() const override { return {m_editor->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_editor->paintGutter(event); }
    void mouseReleaseEvent(QMouseEvent* event) override {
        const int line = m_editor->lineAtGutterY(int(event->position().y()));
        if (event->button() == Qt::LeftButton && m_editor->lineMarks().count(line))
            emit m_editor->lineMarkClicked(line);
    }
    void mouseMoveEvent(QMouseEvent* event) override {
        const int line = m_editor->lineAtGutterY(int(event->position().y()));
        setCursor(m_editor->lineMarks().count(line) ? Qt::PointingHandCursor : Qt::ArrowCursor);
    }

private:
    SourceEditor* m_editor;
};

QWidget* SourceEditor::gutter() const {
    return m_gutter;
}

SourceEditor::SourceEditor(QWidget* parent) : QPlainTextEdit(parent) {
    setObjectName(QStringLiteral("sourceEditor"));
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    // The gutter first: setFont() below already calls changeEvent(), which lays it out.
    m_gutter = new SourceGutter(this);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    connect(this, &QPlainTextEdit::blockCountChanged, this, &SourceEditor::updateGutterWidth);
    connect(this, &QPlainTextEdit::updateRequest, this, &SourceEditor::updateGutter);
    updateGutterWidth();
}

void SourceEditor::setSourceText(const QString& text) {
    m_selectedLine = 0;
    setPlainText(text);
    updateSelections();
}

void SourceEditor::setLineMarks(std::map<int, SourceLineMark> marks) {
    m_marks = std::move(marks);
    updateGutterWidth();
    m_gutter->update();
}

QString SourceEditor::lineText(int line) const {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    return block.isValid() ? block.text() : QString();
}

void SourceEditor::setSelectedLines(int first, int last) {
    const QTextBlock block = document()->findBlockByNumber(first - 1);
    m_selectedLine = block.isValid() ? first : 0;
    m_selectedLast = block.isValid() ? std::clamp(last, first, document()->blockCount()) : 0;
    updateSelections();
    if (!block.isValid())
        return;
    QTextCursor cursor(block);
    setTextCursor(cursor);
    centerCursor();
}

void SourceEditor::updateSelections() {
    if (!m_gutter)
        return;
    QList<QTextEdit::ExtraSelection> selections;
    for (int line = m_selectedLine; line > 0 && line <= m_selectedLast; ++line) {
        QTextEdit::ExtraSelection selection;
        QColor colour = palette().color(QPalette::Highlight);
        colour.setAlpha(isDark(palette()) ? 90 : 60);
        selection.format.setBackground(colour);
        selection.format.setProperty(QTextFormat::FullWidthSelection, true);
        selection.cursor = QTextCursor(document()->findBlockByNumber(line - 1));
        selection.cursor.clearSelection();
        selections << selection;
    }
    setExtraSelections(selections);
    m_gutter->update();
}

int SourceEditor::markColumnWidth() const {
    if (m_marks.empty())
        return 0;
    int widest = 0;
    for (const auto& [line, mark] : m_marks)
        widest = std::max(widest, fontMetrics().horizontalAdvance(markLabel(mark)));
    return widest + 2 * kGutterPadding;
}

int SourceEditor::gutterWidth() const {
    const int digits = QString::number(std::max(1, blockCount())).size();
    const int numbers = fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
    return markColumnWidth() + numbers + 2 * kGutterPadding;
}

void SourceEditor::updateGutterWidth() {
    if (!m_gutter)
        return;
    setViewportMargins(gutterWidth(), 0, 0, 0);
    const QRect cr = contentsRect();
    m_gutter->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
}

void SourceEditor::updateGutter(const QRect& rect, int dy) {
    if (dy)
        m_gutter->scroll(0, dy);
    else
        m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
}

void SourceEditor::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    updateGutterWidth();
}

void SourceEditor::changeEvent(QEvent* event) {
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        updateGutterWidth();
        updateSelections();
    }
}

QColor SourceEditor::markColor() const {
    return isDark(palette()) ? QColor(0xFF, 0x6E, 0x6A) : QColor(0xC6, 0x28, 0x28);
}

QRect SourceEditor::gutterLineRect(int line) const {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (!block.isValid() || !block.isVisible())
        return {};
    const QRectF geometry = blockBoundingGeometry(block).translated(contentOffset());
    const QRect rect(0, int(geometry.top()), m_gutter->width(), int(geometry.height()));
    return rect.intersects(m_gutter->rect()) ? rect : QRect();
}

int SourceEditor::lineAtGutterY(int y) const {
    QTextBlock block = firstVisibleBlock();
    qreal top = blockBoundingGeometry(block).translated(contentOffset()).top();
    while (block.isValid()) {
        const qreal bottom = top + blockBoundingRect(block).height();
        if (y >= top && y < bottom)
            return block.blockNumber() + 1;
        if (top > y)
            break;
        top = bottom;
        block = block.next();
    }
    return 0;
}

void SourceEditor::paintGutter(QPaintEvent* event) {
    QPainter painter(m_gutter);
    const QPalette& pal = palette();
    const QColor background = pal.color(QPalette::AlternateBase);
    painter.fillRect(event->rect(), background);
    const int markWidth = markColumnWidth();
    const QColor mark = markColor();
    QColor markFill = mark;
    markFill.setAlpha(isDark(pal) ? 70 : 40);
    const QColor number = pal.color(QPalette::PlaceholderText);
    painter.setFont(font());

    QTextBlock block = firstVisibleBlock();
    qreal top = blockBoundingGeometry(block).translated(contentOffset()).top();
    const int height = fontMetrics().height();
    while (block.isValid() && top <= event->rect().bottom()) {
        const qreal blockHeight = blockBoundingRect(block).height();
        if (block.isVisible() && top + blockHeight >= event->rect().top()) {
            const int line = block.blockNumber() + 1;
            const int y = int(top);
            if (auto it = m_marks.find(line); it != m_marks.end()) {
                painter.fillRect(QRect(0, y, markWidth, int(blockHeight)), markFill);
                painter.fillRect(QRect(0, y, 3, int(blockHeight)), mark);
                painter.setPen(mark);
                painter.drawText(QRect(kGutterPadding, y, markWidth - kGutterPadding, height),
                                 Qt::AlignRight | Qt::AlignVCenter, markLabel(it->second));
            }
            if (line == m_selectedLine) {
                QColor selected = pal.color(QPalette::Highlight);
                selected.setAlpha(isDark(pal) ? 90 : 60);
                painter.fillRect(
                    QRect(markWidth, y, m_gutter->width() - markWidth, int(blockHeight)), selected);
            }
            QFont font = painter.font();
            font.setBold(line == m_selectedLine);
            painter.setFont(font);
            painter.setPen(line == m_selectedLine ? pal.color(QPalette::Text) : number);
            painter.drawText(
                QRect(markWidth, y, m_gutter->width() - markWidth - kGutterPadding, height),
                Qt::AlignRight | Qt::AlignVCenter, QString::number(line));
        }
        top += blockHeight;
        block = block.next();
    }
}

} // namespace stallscope::views
