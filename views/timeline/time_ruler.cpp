#include "views/timeline/time_ruler.h"

#include <algorithm>
#include <cmath>

namespace stallscope::views {

double TimeRuler::stepFor(double nsPerPixel, double minSpacingPx) {
    const double wanted = std::max(nsPerPixel * minSpacingPx, 1.0);
    double decade = std::pow(10.0, std::floor(std::log10(wanted)));
    for (;;) {
        for (double mantissa : {1.0, 2.0, 5.0}) {
            if (mantissa * decade >= wanted * (1.0 - 1e-9))
                return mantissa * decade;
        }
        decade *= 10.0;
    }
}

QString TimeRuler::label(double offsetNs, double stepNs, double magnitudeNs) {
    struct Unit {
        double ns;
        const char* name;
    };
    static constexpr Unit kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1.0, "ns"}};
    // Seconds and milliseconds already from a tenth of the unit ("1.5 s" reads better than
    // "1500 ms"); microseconds and nanoseconds only from a whole unit ("300 ns", not "0.3 µs").
    Unit unit = kUnits[3];
    for (const Unit& candidate : kUnits) {
        const double threshold = candidate.ns >= 1e6 ? candidate.ns / 10.0 : candidate.ns;
        if (stepNs >= threshold * (1.0 - 1e-9)) {
            unit = candidate;
            break;
        }
    }
    // Deep zoom far into a long session: "4.23462 s" reads better than "4234620 µs". Moves to a
    // larger unit while the value would need more than five integer digits.
    const double magnitude = std::max(std::abs(offsetNs), std::abs(magnitudeNs));
    for (int i = 3; i > 0; --i)
        if (kUnits[i].ns == unit.ns && magnitude / unit.ns >= 1e5)
            unit = kUnits[i - 1];
    // Decimals so the step itself is exact in that unit: 0.2 ms -> 1, 0.05 s -> 2.
    const double stepInUnit = stepNs / unit.ns;
    int decimals = 0;
    while (decimals < 9 && std::abs(stepInUnit * std::pow(10.0, decimals) -
                                    std::round(stepInUnit * std::pow(10.0, decimals))) > 1e-6)
        ++decimals;
    double value = offsetNs / unit.ns;
    if (std::abs(value) < 0.5 * std::pow(10.0, -decimals))
        value = 0.0; // no "-0"
    QString number = QString::number(value, 'f', decimals);
    if (number.contains(QLatin1Char('.'))) { // "1.0 s" -> "1 s", "1.50 ms" -> "1.5 ms"
        while (number.endsWith(QLatin1Char('0')))
            number.chop(1);
        if (number.endsWith(QLatin1Char('.')))
            number.chop(1);
    }
    return number + QLatin1Char(' ') + QString::fromUtf8(unit.name);
}

std::vector<RulerTick> TimeRuler::ticks(const TimelineViewport& viewport, double minSpacingPx) {
    std::vector<RulerTick> result;
    const double step = stepFor(viewport.nsPerPixel(), minSpacingPx);
    const double first = std::ceil(viewport.offsetForX(0) / step) * step;
    const double last = viewport.offsetForX(viewport.width());
    // Multiply rather than accumulate, so labels do not drift; the cap guards degenerate input.
    for (int k = 0; k < 1000; ++k) {
        const double offset = first + k * step;
        if (offset > last)
            break;
        const double x = (offset - viewport.offsetForX(0)) / viewport.nsPerPixel();
        // One unit for the whole ruler: the largest offset shown decides it.
        result.push_back({x, label(offset, step, std::max(std::abs(first), std::abs(last)))});
    }
    return result;
}

} // namespace stallscope::views
