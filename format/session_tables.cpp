#include "format/session_tables.h"

#include <map>

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

const Table* referencedTable(const Table& table, const Column& column) {
    static const std::map<std::string_view, const Table*> kKeys = {
        {"process_id", &tables::kProcesses}, {"thread_id", &tables::kThreads},
        {"device_id", &tables::kDevices},    {"stream_id", &tables::kStreams},
        {"name_id", &tables::kStrings},      {"module_id", &tables::kModules},
        {"frame_id", &tables::kFrames},      {"stack_id", &tables::kStacks}};
    if (table.name == tables::kStreams.name && column.name == "stream_id")
        return nullptr;
    const auto found = kKeys.find(column.name);
    return found == kKeys.end() ? nullptr : found->second;
}

std::string movedSelectSql(const Table& table, const RowMoves& moves, std::string_view alias) {
    const std::string prefix = alias.empty() ? std::string() : std::string(alias) + ".";
    auto moved = [&](std::string& out, const Column& column) {
        const std::string name = prefix + std::string(column.name);
        const Table* target = referencedTable(table, column);
        if (&column == &table.columns.front() && table.firstColumnIsRowId()) {
            out += moves.offset(table) ? name + " + " + std::to_string(moves.offset(table)) : name;
        } else if (target && target->name != tables::kStrings.name) {
            const int64_t last = moves.last(*target);
            if (last == INT64_MAX && moves.offset(*target) == 0)
                out += name;
            else
                out += "CASE WHEN " + name + " BETWEEN 1 AND " + std::to_string(last) + " THEN " +
                       name + " + " + std::to_string(moves.offset(*target)) + " END";
        } else if (isTimeColumn(column) && moves.shiftNs != 0) {
            out += name + " + " + std::to_string(moves.shiftNs);
        } else {
            out += name;
        }
    };
    return "SELECT " + joinColumns(table.columns, moved) + " FROM " + std::string(table.name) +
           (alias.empty() ? std::string() : " " + std::string(alias));
}

} // namespace stallscope::format
