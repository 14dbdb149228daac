// Light and dark palettes that follow the desktop. Qt 6.5+ reports the desktop's scheme through
// QStyleHints::colorScheme; on 6.4 we read the platform palette's window lightness instead. A dark
// desktop gets the Fusion style with a dark palette (the stock styles do not all draw dark well).
#pragma once

#include <QPalette>

#include <optional>

class QApplication;

namespace stallscope::app {

enum class ColorScheme { Light, Dark };

// What the desktop asks for.
ColorScheme desktopColorScheme();
// True when the palette's window colour is dark.
bool isDarkPalette(const QPalette& palette);
QPalette darkPalette();
// Applies `forced` or the desktop's scheme; call after the QApplication exists (and again on a
// theme change: installColorSchemeFollower does that).
void applyColorScheme(QApplication& app, std::optional<ColorScheme> forced = std::nullopt);
void installColorSchemeFollower(QApplication& app);

} // namespace stallscope::app
