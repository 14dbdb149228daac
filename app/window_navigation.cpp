#include "app/window_navigation.h"

#include "views/dialogs/getting_around_overlay.h"
#include "views/panels/analysis_panels.h"
#include "views/timeline/timeline_widget.h"

#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QSettings>
#include <QTextEdit>

namespace stallscope::app {

namespace {

bool isArrow(int key) {
    return key == Qt::Key_Left || key == Qt::Key_Right || key == Qt::Key_Up || key == Qt::Key_Down;
}

// The timeline's pan and zoom keys (Perfetto's W/A/S/D and the arrows).
bool isTimelineKey(int key) {
    return key == Qt::Key_W || key == Qt::Key_A || key == Qt::Key_S || key == Qt::Key_D ||
           isArrow(key);
}

} // namespace

WindowNavigation::WindowNavigation(QMainWindow* window, views::TimelineWidget* timeline,
                                   views::AnalysisPanels* panels, QMenu* edit, QMenu* help)
    : QObject(window), m_window(window), m_timeline(timeline) {
    m_clearSelection =
        edit->addAction(tr("Clear &Selection"), panels, &views::AnalysisPanels::clearSelection);
    m_clearSelection->setShortcut(QKeySequence(Qt::Key_Escape));
    m_clearSelection->setShortcutContext(Qt::WindowShortcut);
    help->addAction(tr("&Getting Around"), this, &WindowNavigation::showGettingAround);
    // The keys reach whichever widget has the focus: only the application sees them all.
    qApp->installEventFilter(this);
}

WindowNavigation::~WindowNavigation() {
    qApp->removeEventFilter(this);
}

views::GettingAroundOverlay* WindowNavigation::gettingAround() const {
    return m_overlay && m_overlay->isVisible() ? m_overlay.data() : nullptr;
}

void WindowNavigation::showGettingAround() {
    if (!m_overlay)
        m_overlay = new views::GettingAroundOverlay(m_window);
    m_overlay->setGeometry(m_window->rect());
    m_overlay->show();
    m_overlay->raise();
    QSettings().setValue(QLatin1String(kGettingAroundShownKey), true);
}

void WindowNavigation::hideGettingAround() {
    if (m_overlay)
        m_overlay->hide();
}

bool WindowNavigation::editsText(const QWidget* widget) {
    if (const auto* line = qobject_cast<const QLineEdit*>(widget))
        return !line->isReadOnly();
    if (const auto* text = qobject_cast<const QTextEdit*>(widget))
        return !text->isReadOnly();
    if (const auto* plain = qobject_cast<const QPlainTextEdit*>(widget))
        return !plain->isReadOnly();
    if (const auto* combo = qobject_cast<const QComboBox*>(widget))
        return combo->isEditable();
    return qobject_cast<const QAbstractSpinBox*>(widget) != nullptr;
}

bool WindowNavigation::eventFilter(QObject* watched, QEvent* event) {
    const QEvent::Type type = event->type();
    if (watched == m_window && type == QEvent::Show && !m_shownOnce) {
        m_shownOnce = true;
        if (!QSettings().value(QLatin1String(kGettingAroundShownKey)).toBool())
            showGettingAround();
    } else if (watched == m_window && type == QEvent::Resize && m_overlay) {
        m_overlay->setGeometry(m_window->rect());
    }
    if (type != QEvent::KeyPress && type != QEvent::MouseButtonPress)
        return false;
    auto* receiver = qobject_cast<QWidget*>(watched);
    if (!receiver || receiver->window() != m_window)
        return false; // another window, a dialog of this one
    if (gettingAround())
        hideGettingAround(); // and the click or key goes on
    if (type == QEvent::KeyPress && leaveMenuBar(receiver, *static_cast<QKeyEvent*>(event)))
        return true;
    return type == QEvent::KeyPress && forwardToTimeline(receiver, *static_cast<QKeyEvent*>(event));
}

bool WindowNavigation::leaveMenuBar(QWidget* receiver, const QKeyEvent& key) {
    // A menu closed with Esc leaves the menu bar focused, waiting for a mnemonic: a plain letter
    // would open a menu (F: File) where the user meant the timeline's key.
    if (!qobject_cast<QMenuBar*>(receiver) || QApplication::activePopupWidget() ||
        (key.modifiers() & ~Qt::KeypadModifier) || key.text().isEmpty() ||
        !key.text().front().isLetterOrNumber() || !m_timeline->isVisible())
        return false;
    m_timeline->setFocus(Qt::OtherFocusReason); // the menu bar leaves its keyboard mode
    QKeyEvent forwarded(QEvent::KeyPress, key.key(), key.modifiers(), key.text(),
                        key.isAutoRepeat(), ushort(key.count()));
    QCoreApplication::sendEvent(m_timeline, &forwarded);
    return true;
}

bool WindowNavigation::forwardToTimeline(QWidget* receiver, const QKeyEvent& key) {
    if (!isTimelineKey(key.key()) || (key.modifiers() & ~Qt::KeypadModifier) ||
        !m_timeline->session() || !m_timeline->isVisible())
        return false;
    if (receiver == m_timeline || m_timeline->isAncestorOf(receiver))
        return false; // the timeline's own keys
    const QWidget* focus = QApplication::focusWidget();
    if (editsText(receiver) || editsText(focus))
        return false;
    if (isArrow(key.key()) && (qobject_cast<const QAbstractItemView*>(receiver) ||
                               qobject_cast<const QAbstractItemView*>(focus)))
        return false; // a table's rows
    QKeyEvent forwarded(QEvent::KeyPress, key.key(), key.modifiers(), key.text(),
                        key.isAutoRepeat(), ushort(key.count()));
    QCoreApplication::sendEvent(m_timeline, &forwarded);
    return true;
}

} // namespace stallscope::app
