// TimelinePalette: the colours of the timeline. Stalls own the red/orange hues; nothing else uses
// them, so a blocked host stands out at any zoom. Kernel colours are a pure function of the name
// (a fixed hash, not qHash, which is seeded per process) so a kernel keeps its colour across runs.
#pragma once

#include <QColor>
#include <QRgb>

#include <cstdint>
#include <string_view>

namespace stallscope::views {

class TimelinePalette {
public:
    static QRgb stall() { return qRgb(0xE5, 0x39, 0x35); }
    static QRgb apiCall() { return qRgb(0x90, 0x9C, 0xAE); }
    static QRgb range(int depth);
    static QRgb kernel(std::string_view name);
    // Memcpys: amber/brown family by direction (format::CopyKind values).
    static QRgb memcpy(int copyKind);
    // Memsets: magenta family.
    static QRgb memset() { return qRgb(0xAD, 0x4F, 0xC9); }
    // The GPU-busy track's bars.
    static QRgb gpuBusy() { return qRgb(0x43, 0x6E, 0xA8); }
    // Selection outline and the ruler's range selection.
    static QRgb selection() { return qRgb(0x1E, 0x88, 0xE5); }
    // The link from a selected sync's launch call to the work it waited for.
    static QRgb launchLink() { return qRgb(0x37, 0x47, 0x4F); }
    // The "after fix" ghosts: where a finding's fix would move the GPU work (green: sooner).
    static QRgb afterFix() { return qRgb(0x12, 0x9E, 0x5B); }

    // Black or white, whichever reads better on the background.
    static QColor textOn(QRgb background);

    static uint32_t stableHash(std::string_view text);
};

} // namespace stallscope::views
