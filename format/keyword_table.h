#pragma once

// A keyword table: the words a parser accepts and what each one means, as data, searched by one
// function instead of a chain of string comparisons. Qt-free and allocation-free, so both the
// recorder and the importers may use it.

#include <cstddef>
#include <iterator>
#include <string_view>
#include <utility>

namespace stallscope::format {

template <class Value> struct Keyword {
    std::string_view word;
    Value value;
};

namespace detail {

template <const auto& table, class Value, size_t... index>
constexpr Value lookupKeyword(std::string_view word, Value otherwise,
                              std::index_sequence<index...>) {
    Value value = otherwise;
    ((table[index].word == word ? (value = table[index].value, true) : false) || ...);
    return value;
}

} // namespace detail

// The value of `word` in `table` (a constexpr array of Keyword<Value>), or `otherwise` when the
// table does not name it. The table is a template argument so that the comparisons unroll into
// tests against constant words, as fast as a hand-written chain: the Kineto parser looks up
// every key of a trace.
template <const auto& table, class Value>
constexpr Value lookupKeyword(std::string_view word, Value otherwise) {
    return detail::lookupKeyword<table>(word, otherwise,
                                        std::make_index_sequence<std::size(table)>());
}

} // namespace stallscope::format
