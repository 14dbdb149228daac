// Names of enum values kept in one array indexed by the value, so a value and its name stand on
// one line of a table instead of a switch branch each (Qt-free).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace stallscope::format {

// names[value] when the value indexes the table, else `fallback`. Takes an int (a stored column)
// or an enum whose values count up from 0.
template <typename Value, size_t N>
constexpr std::string_view nameOf(const std::array<std::string_view, N>& names, Value value,
                                  std::string_view fallback) {
    const auto index = static_cast<long long>(value);
    return index >= 0 && static_cast<size_t>(index) < N ? names[index] : fallback;
}

} // namespace stallscope::format
