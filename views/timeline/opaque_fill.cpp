#include "views/timeline/opaque_fill.h"

#include <algorithm>

namespace stallscope::views {

void fillOpaque(QImage& image, const QRect& rect, QRgb color) {
    const QRect clipped = rect & image.rect();
    if (clipped.isEmpty())
        return;
    const QRgb pixel = color | 0xff000000u; // RGB32 keeps the alpha byte at 0xff
    const int width = clipped.width();
    const qsizetype stride = image.bytesPerLine();
    uchar* line = image.bits() + clipped.top() * stride; // bits(), not scanLine(): one detach
    if (width <= 4) { // most blocks at low zoom: a plain loop, not a fill call per row
        for (int y = clipped.top(); y <= clipped.bottom(); ++y, line += stride) {
            QRgb* row = reinterpret_cast<QRgb*>(line) + clipped.left();
            for (int x = 0; x < width; ++x)
                row[x] = pixel;
        }
        return;
    }
    for (int y = clipped.top(); y <= clipped.bottom(); ++y, line += stride)
        std::fill_n(reinterpret_cast<QRgb*>(line) + clipped.left(), width, pixel);
}

} // namespace stallscope::views
