#include "format/session_schema_check.h"

#include "format/session_schema.h"
#include "format/sqlite_database.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace stallscope::format {

namespace {

// One row of sqlite_schema.
struct SchemaObject {
    std::string type; // table, index, view, trigger
    std::string name;
    std::string table;
    std::string sql; // normalizedSql(); empty for the indexes SQLite makes for keys
};

bool isTight(char c) {
    return c == '(' || c == ')' || c == ',';
}

// The CREATE statement with every run of whitespace made one space, and none next to brackets
// and commas: the v1 writer laid its statements out on several lines, the current one on one.
std::string normalizedSql(std::string_view sql) {
    std::string out;
    bool space = false;
    for (const char c : sql) {
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            space = true;
            continue;
        }
        if (space && !out.empty() && !isTight(out.back()) && !isTight(c))
            out.push_back(' ');
        space = false;
        out.push_back(c);
    }
    return out;
}

// A name read from the file, for a message: printable ASCII, at most 64 characters.
std::string quoted(std::string_view name) {
    std::string out = "'";
    for (const char c : name.substr(0, 64)) {
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out.push_back(c);
        } else {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(c));
            out += escaped;
        }
    }
    return out + (name.size() > 64 ? "…'" : "'");
}

bool listObjects(const Database& db, std::vector<SchemaObject>* objects, std::string* error) {
    Statement rows = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema");
    while (rows.step())
        objects->push_back({rows.text(0), rows.text(1), rows.text(2), normalizedSql(rows.text(3))});
    if (rows.failed() || !rows.prepared()) {
        *error = "cannot read the schema: " + db.lastMessage();
        return false;
    }
    return true;
}

// Stallscope's own schema, as SQLite stores it: made once in an in-memory database from the
// descriptors, so that session_tables.h stays the one place that defines it.
const std::vector<SchemaObject>& referenceSchema() {
    static const std::vector<SchemaObject> objects = [] {
        Database db;
        std::vector<SchemaObject> listed;
        std::string error;
        if (db.open(":memory:", Database::Mode::Create, &error) && db.exec(schemaSql(), &error) &&
            db.exec(kIndexSql, &error) && db.exec(kFormerIndexSql, &error))
            listObjects(db, &listed, &error);
        return listed;
    }();
    return objects;
}

const SchemaObject* findObject(const std::vector<SchemaObject>& objects, std::string_view type,
                               std::string_view name) {
    const auto found = std::find_if(objects.begin(), objects.end(), [&](const SchemaObject& o) {
        return o.type == type && o.name == name;
    });
    return found == objects.end() ? nullptr : &*found;
}

// What makes the file's definition of `table` differ from ours, by column where it can tell.
std::string describeTableDifference(const Database& db, const Table& table) {
    std::vector<std::string> problems;
    std::vector<std::string> present;
    Statement columns = db.prepare("SELECT name, hidden FROM pragma_table_xinfo(?)");
    columns.bind(1, table.name);
    while (columns.step()) {
        present.push_back(columns.text(0));
        if (columns.integer(1) != 0)
            problems.push_back("a generated column " + quoted(present.back()));
        else if (!hasColumn(table, present.back()))
            problems.push_back("an unknown column " + quoted(present.back()));
    }
    for (const Column& column : table.columns)
        if (std::find(present.begin(), present.end(), column.name) == present.end())
            problems.push_back("no column '" + std::string(column.name) + "'");
    if (problems.empty())
        return "table '" + std::string(table.name) + "' is defined differently";
    std::string text = "table '" + std::string(table.name) + "' has ";
    for (size_t i = 0; i < problems.size(); ++i)
        text += (i ? ", " : "") + problems[i];
    return text;
}

// Empty when the file's `object` (a table of kTables) is defined as ours.
std::string tableProblem(const Database& db, const SchemaObject& object, const Table& table) {
    const SchemaObject* ours = findObject(referenceSchema(), "table", table.name);
    if (ours && ours->sql == object.sql)
        return {};
    return describeTableDifference(db, table);
}

const Table* ourTable(std::string_view name) {
    for (const Table* table : kTables)
        if (table->name == name)
            return table;
    return nullptr;
}

// Empty when `object` is one of ours, else what it is, for the "foreign schema" list.
std::string foreignObject(const Database& db, const SchemaObject& object) {
    if (object.type == "table") {
        const Table* table = ourTable(object.name);
        return table ? tableProblem(db, object, *table) : "an unknown table " + quoted(object.name);
    }
    if (object.type == "index") {
        const SchemaObject* ours = findObject(referenceSchema(), "index", object.name);
        if (ours && ours->table == object.table && ours->sql == object.sql)
            return {};
        return "an unknown index " + quoted(object.name) + " on " + quoted(object.table);
    }
    if (object.type == "trigger")
        return "a trigger " + quoted(object.name) + " on " + quoted(object.table);
    if (object.type == "view")
        return "a view " + quoted(object.name);
    return "a schema entry " + quoted(object.name) + " of type " + quoted(object.type);
}

} // namespace

std::string checkTableSchema(const Database& db, const Table& table) {
    std::vector<SchemaObject> objects;
    std::string error;
    if (!listObjects(db, &objects, &error))
        return error;
    const SchemaObject* object = findObject(objects, "table", table.name);
    if (!object)
        return "missing table '" + std::string(table.name) + "'";
    return tableProblem(db, *object, table);
}

std::string checkSessionSchema(const Database& db) {
    std::vector<SchemaObject> objects;
    std::string error;
    if (!listObjects(db, &objects, &error))
        return "corrupt session: " + error;
    constexpr size_t kListed = 5; // a crafted file may hold thousands: name the first few
    std::vector<std::string> foreign;
    for (const SchemaObject& object : objects)
        if (std::string problem = foreignObject(db, object); !problem.empty())
            foreign.push_back(std::move(problem));
    if (!foreign.empty()) {
        std::string text = "foreign schema: ";
        for (size_t i = 0; i < std::min(foreign.size(), kListed); ++i)
            text += (i ? "; " : "") + foreign[i];
        if (foreign.size() > kListed)
            text += "; and " + std::to_string(foreign.size() - kListed) + " more";
        return text + " (a Stallscope session holds only its own tables and indexes: this file was "
                      "altered, so it is not read)";
    }
    for (const Table* table : kTables)
        if (table->sinceVersion == 1 && !findObject(objects, "table", table->name))
            return "corrupt session: missing table '" + std::string(table->name) + "'";
    return {};
}

bool hasTable(const Database& db, std::string_view name) {
    Statement found = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    found.bind(1, name);
    return found.step();
}

bool openSession(Database& db, const std::string& path, std::string* error) {
    if (!db.open(path, Database::Mode::ReadOnly, error))
        return false;
    if (std::string problem = checkSessionSchema(db); !problem.empty()) {
        db.close();
        if (error)
            *error = std::move(problem);
        return false;
    }
    return true;
}

} // namespace stallscope::format
