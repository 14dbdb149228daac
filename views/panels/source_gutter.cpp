#include "views/panels/source_gutter.h"

#include "views/panels/source_editor.h"

#include <QMouseEvent>

namespace stallscope::views {

SourceGutter::SourceGutter(SourceEditor* editor) : QWidget(editor), m_editor(editor) {
    setObjectName(QStringLiteral("sourceGutter"));
    setMouseTracking(true);
}

QSize SourceGutter::sizeHint() const {
    return {m_editor->gutterWidth(), 0};
}

void SourceGutter::paintEvent(QPaintEvent* event) {
    m_editor->paintGutter(event);
}

void SourceGutter::mouseReleaseEvent(QMouseEvent* event) {
    const int line = m_editor->lineAtGutterY(int(event->position().y()));
    if (event->button() == Qt::LeftButton && m_editor->lineMarks().count(line))
        emit m_editor->lineMarkClicked(line);
}

void SourceGutter::mouseMoveEvent(QMouseEvent* event) {
    const int line = m_editor->lineAtGutterY(int(event->position().y()));
    setCursor(m_editor->lineMarks().count(line) ? Qt::PointingHandCursor : Qt::ArrowCursor);
}

} // namespace stallscope::views
