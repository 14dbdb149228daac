#include "model/session/number_format.h"

#include <cstdio>
#include <cstdlib>

namespace stallscope::model {

std::string formatDuration(int64_t ns) {
    char text[64];
    const double v = static_cast<double>(ns);
    const double magnitude = v < 0 ? -v : v;
    // A unit holds what rounds to below 1000 of it in three digits: 999,999 ns is "1 ms", not
    // "1e+03 µs".
    if (magnitude < 1e3)
        std::snprintf(text, sizeof text, "%lld ns", static_cast<long long>(ns));
    else if (magnitude < 999.5e3)
        std::snprintf(text, sizeof text, "%.3g µs", v / 1e3);
    else if (magnitude < 999.5e6)
        std::snprintf(text, sizeof text, "%.3g ms", v / 1e6);
    else
        std::snprintf(text, sizeof text, "%.3f s", v / 1e9);
    return text;
}

std::string formatBytes(int64_t bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        ++unit;
    }
    char text[64];
    if (unit == 0)
        std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
    else
        std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

std::string formatCount(int64_t count) {
    std::string digits = std::to_string(count < 0 ? -count : count);
    std::string grouped;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            grouped += ',';
        grouped += digits[i];
    }
    return count < 0 ? "-" + grouped : grouped;
}

} // namespace stallscope::model
