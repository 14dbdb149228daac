// SQL that names the session's tables and columns through the table descriptors: written with
// each name in braces — "{kernels}" for a table, "{kernels.start_ns}" for one of its columns — and
// checked when the program is compiled, so a query of a renamed or removed column does not build
// (as ColumnOf does for one name). What it runs is the text with the braces taken away:
// "{kernels}" reads "kernels", "{kernels.start_ns}" reads "start_ns" (write "k.{kernels.start_ns}"
// for a qualified name). Readers that aggregate in SQL (model/fleet) write their queries so.
#pragma once

#include "format/session_tables.h"

#include <string>
#include <string_view>

namespace stallscope::format {

namespace checked_sql {

// The index in kTables of the table named `name`, kTables.size() when none is. An index, not a
// pointer: with AddressSanitizer, a global's address does not compare in constant expressions.
constexpr size_t tableNamed(std::string_view name) {
    size_t index = 0;
    while (index < kTables.size() && kTables[index]->name != name)
        ++index;
    return index;
}

// Whether every "{...}" of `sql` names a table of kTables, or "table.column" one of its columns,
// and every brace is closed.
constexpr bool namesAreKnown(std::string_view sql) {
    for (size_t at = 0; at < sql.size(); ++at) {
        if (sql[at] == '}')
            return false;
        if (sql[at] != '{')
            continue;
        const size_t close = sql.find('}', at);
        if (close == std::string_view::npos)
            return false;
        const std::string_view name = sql.substr(at + 1, close - at - 1);
        const size_t dot = name.find('.');
        const size_t table = tableNamed(name.substr(0, dot));
        if (table == kTables.size() ||
            (dot != std::string_view::npos && !hasColumn(*kTables[table], name.substr(dot + 1))))
            return false;
        at = close;
    }
    return true;
}

} // namespace checked_sql

class CheckedSql {
public:
    consteval CheckedSql(const char* sql) : m_text(sql) {
        if (!checked_sql::namesAreKnown(m_text))
            throw "a {name} that is no table or column of session_tables.h"; // a compile error
    }

    // The SQL as SQLite runs it: each "{table}" its name, each "{table.column}" the column's.
    std::string text() const {
        std::string sql;
        sql.reserve(m_text.size());
        for (size_t at = 0; at < m_text.size(); ++at) {
            if (m_text[at] != '{') {
                sql += m_text[at];
                continue;
            }
            const size_t close = m_text.find('}', at);
            const std::string_view name = m_text.substr(at + 1, close - at - 1);
            const size_t dot = name.find('.');
            sql += dot == std::string_view::npos ? name : name.substr(dot + 1);
            at = close;
        }
        return sql;
    }

private:
    std::string_view m_text;
};

} // namespace stallscope::format
