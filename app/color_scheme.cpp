#include "app/color_scheme.h"

#include <QApplication>
#include <QGuiApplication>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleHints>

namespace stallscope::app {

namespace {
// The platform's own palette, taken before we replace the application palette, so following
// the desktop keeps working after we installed a dark one.
QPalette& platformPalette() {
    static QPalette palette;
    return palette;
}
bool g_platformPaletteTaken = false;
bool g_forced = false;
} // namespace

bool isDarkPalette(const QPalette& palette) {
    const QColor window = palette.color(QPalette::Window);
    const QColor text = palette.color(QPalette::WindowText);
    return window.lightness() < text.lightness();
}

ColorScheme desktopColorScheme() {
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    const Qt::ColorScheme scheme = QGuiApplication::styleHints()->colorScheme();
    if (scheme != Qt::ColorScheme::Unknown)
        return scheme == Qt::ColorScheme::Dark ? ColorScheme::Dark : ColorScheme::Light;
#endif
    if (!g_platformPaletteTaken) {
        platformPalette() = QGuiApplication::palette();
        g_platformPaletteTaken = true;
    }
    return isDarkPalette(platformPalette()) ? ColorScheme::Dark : ColorScheme::Light;
}

QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2B, 0x2D, 0x31);
    const QColor base(0x1E, 0x1F, 0x22);
    const QColor text(0xE6, 0xE6, 0xE6);
    const QColor disabled(0x80, 0x80, 0x80);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2C));
    p.setColor(QPalette::ToolTipBase, QColor(0x3A, 0x3D, 0x42));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9A, 0x9A, 0x9A));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3C));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xFF, 0x6E, 0x6A));
    p.setColor(QPalette::Light, QColor(0x4A, 0x4D, 0x52));
    p.setColor(QPalette::Midlight, QColor(0x3E, 0x41, 0x46));
    p.setColor(QPalette::Mid, QColor(0x55, 0x58, 0x5E));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1B));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, QColor(0x3D, 0x7E, 0xD8));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6A, 0xAE, 0xFF));
    p.setColor(QPalette::LinkVisited, QColor(0xB0, 0x8C, 0xFF));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

void applyColorScheme(QApplication& app, std::optional<ColorScheme> forced) {
    if (!g_platformPaletteTaken) {
        platformPalette() = QGuiApplication::palette();
        g_platformPaletteTaken = true;
    }
    if (forced)
        g_forced = true;
    const ColorScheme scheme = forced.value_or(desktopColorScheme());
    if (scheme == ColorScheme::Dark) {
        // Fusion honours every palette role; native styles may keep light pieces.
        if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion")))
            app.setStyle(fusion);
        app.setPalette(darkPalette());
    } else if (forced) {
        if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion")))
            app.setStyle(fusion);
        app.setPalette(app.style()->standardPalette());
    } else {
        app.setPalette(platformPalette());
    }
}

void installColorSchemeFollower(QApplication& app) {
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    QObject::connect(QGuiApplication::styleHints(), &QStyleHints::colorSchemeChanged, &app, [&app] {
        if (!g_forced)
            applyColorScheme(app);
    });
#else
    Q_UNUSED(app);
    // Qt 6.4 has no scheme signal; the platform theme updates the palette itself on desktops
    // that switch (KDE, GNOME with a platform theme), which keeps the light/dark split right.
#endif
}

} // namespace stallscope::app
