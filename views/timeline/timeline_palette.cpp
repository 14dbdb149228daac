#include "views/timeline/timeline_palette.h"

namespace stallscope::views {

uint32_t TimelinePalette::stableHash(std::string_view text) {
    uint32_t hash = 2166136261u; // FNV-1a
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 16777619u;
    }
    return hash;
}

QRgb TimelinePalette::kernel(std::string_view name) {
    // Hues 95..275 (green, teal, blue, violet): far from the stall reds and the copy ambers.
    const uint32_t hash = stableHash(name);
    const int hue = 95 + static_cast<int>(hash % 181);
    const int saturation = 110 + static_cast<int>((hash >> 8) % 80);
    const int value = 170 + static_cast<int>((hash >> 16) % 60);
    return QColor::fromHsv(hue, saturation, value).rgb();
}

QRgb TimelinePalette::memcpy(int copyKind) {
    switch (copyKind) {
    case 1: // HtoD
        return qRgb(0xE0, 0xB8, 0x3C);
    case 2: // DtoH
        return qRgb(0xB0, 0x86, 0x1E);
    case 8: // DtoD
        return qRgb(0xC9, 0xA9, 0x6E);
    case 10: // PtoP
        return qRgb(0x8D, 0x6E, 0x3F);
    default:
        return qRgb(0xC8, 0xA2, 0x50);
    }
}

QRgb TimelinePalette::range(int depth) {
    static constexpr QRgb kShades[] = {qRgb(0x7F, 0xB8, 0x9A), qRgb(0x9C, 0xC9, 0xB0),
                                       qRgb(0xB6, 0xD8, 0xC4), qRgb(0x8A, 0xB5, 0xC4)};
    return kShades[static_cast<unsigned>(depth) % 4];
}

QColor TimelinePalette::textOn(QRgb background) {
    const int luminance =
        (qRed(background) * 299 + qGreen(background) * 587 + qBlue(background) * 114) / 1000;
    return luminance > 140 ? QColor(Qt::black) : QColor(Qt::white);
}

} // namespace stallscope::views
