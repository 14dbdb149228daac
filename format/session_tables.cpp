#include "format/session_tables.h"

namespace stallscope::format {

namespace {

// Columns joined by ", ", each written by `write(out, column)`.
template <typename Write> std::string joinColumns(std::span<const Column> columns, Write write) {
    std::string out;
    for (const Column& column : columns) {
        if (!out.empty())
            out += ", ";
        write(out, column);
    }
    return out;
}

} // namespace

std::string createTableSql(const Table& table) {
    std::string sql = "CREATE TABLE " + std::string(table.name) + " (";
    sql += joinColumns(table.columns, [](std::string& out, const Column& column) {
        out.append(column.name).append(" ").append(column.declaration);
    });
    if (!table.tableConstraint.empty())
        sql.append(", ").append(table.tableConstraint);
    sql += ")";
    if (table.withoutRowid)
        sql += " WITHOUT ROWID";
    return sql + ";";
}

std::string schemaSql() {
    std::string sql;
    for (const Table* table : kTables)
        sql += createTableSql(*table) + "\n";
    return sql;
}

std::string insertSql(const Table& table, std::string_view verb) {
    const auto written = table.insertedColumns();
    std::string sql = std::string(verb) + " INTO " + std::string(table.name) + "(";
    sql += joinColumns(written,
                       [](std::string& out, const Column& column) { out.append(column.name); });
    sql += ") VALUES (";
    sql += joinColumns(written, [](std::string& out, const Column&) { out += "?"; });
    return sql + ")";
}

std::string selectSql(const Table& table) {
    return "SELECT " +
           joinColumns(table.columns,
                       [](std::string& out, const Column& column) { out.append(column.name); }) +
           " FROM " + std::string(table.name);
}

std::string selectColumnsSql(const Table& table, std::span<const std::string_view> names) {
    std::string sql = "SELECT ";
    for (size_t i = 0; i < names.size(); ++i)
        sql.append(i ? ", " : "").append(names[i]);
    return sql + " FROM " + std::string(table.name);
}

} // namespace stallscope::format
