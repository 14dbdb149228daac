// SourceGutter: the strip left of the source text. Painting and hit-testing live in SourceEditor
// (which knows the block geometry); this widget forwards paint and click events to it.
#pragma once

#include <QWidget>

namespace stallscope::views {

class SourceEditor;

class SourceGutter : public QWidget {
    Q_OBJECT
public:
    explicit SourceGutter(SourceEditor* editor);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    SourceEditor* m_editor;
};

} // namespace stallscope::views
