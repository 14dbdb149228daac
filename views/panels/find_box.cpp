#include "views/panels/find_box.h"

#include <QKeyEvent>

namespace stallscope::views {

FindBox::FindBox(QWidget* parent) : QLineEdit(parent) {
    setObjectName(QStringLiteral("findBox"));
    setPlaceholderText(tr("Find kernel or function (Ctrl+F)"));
    setClearButtonEnabled(true);
    setMaximumWidth(320);
    connect(this, &QLineEdit::returnPressed, this, [this] { emit findRequested(text()); });
    connect(this, &QLineEdit::textChanged, this, [this](const QString& text) {
        setToolTip({});
        if (text.isEmpty())
            emit cleared();
    });
}

void FindBox::setResultCount(qint64 count) {
    setToolTip(count == 0 ? tr("No match") : tr("%n event(s) found", nullptr, int(count)));
    // Red text for "nothing found", as browsers do; the palette colour otherwise.
    setStyleSheet(count == 0 && !text().isEmpty() ? QStringLiteral("QLineEdit { color: #D32F2F; }")
                                                  : QString());
}

bool FindBox::event(QEvent* event) {
    if (event->type() == QEvent::ShortcutOverride &&
        static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape) {
        event->accept(); // delivered as a key press to keyPressEvent, not as the shortcut
        return true;
    }
    return QLineEdit::event(event);
}

void FindBox::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape) {
        clear();
        emit cleared();
        return;
    }
    QLineEdit::keyPressEvent(event);
}

} // namespace stallscope::views
