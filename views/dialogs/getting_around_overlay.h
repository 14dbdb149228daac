// GettingAroundOverlay: the short "getting around" card laid over the main window on first run —
// the timeline keys, clicks, Esc and the panel shortcuts. It takes no mouse input, so the click
// that dismisses it also does what it was meant to; when it shows and hides is the window's
// business (app/window_navigation.h).
#pragma once

#include <QWidget>

class QLabel;

namespace stallscope::views {

class GettingAroundOverlay : public QWidget {
    Q_OBJECT
public:
    explicit GettingAroundOverlay(QWidget* parent);

    // The card's text, as plain text (tests).
    QString text() const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QLabel* m_card = nullptr;
};

} // namespace stallscope::views
