// Opaque rectangles written straight into an RGB32 image. The timeline paints its lanes this way
// (into an image of the canvas, drawn in one blit): at full zoom-out of a run they are ~70 k
// rectangles a pixel or two wide, and QPainter spends ~70 ns on each (span list, clip, blend
// dispatch) where writing a few opaque pixels costs a few.
#pragma once

#include <QImage>
#include <QRect>
#include <QRgb>

namespace stallscope::views {

// Fills `rect` (clipped to the image) with `color`, opaque; `image` is Format_RGB32.
void fillOpaque(QImage& image, const QRect& rect, QRgb color);

} // namespace stallscope::views
