// Reading rows back: each function takes a statement stepped onto a row of selectSql(table) —
// the row id in column 0, the row struct's fields after it, in descriptor order — and returns
// the row struct the writer took. The reverse of SessionWriter's add*, kept beside it.
#pragma once

#include "format/session_rows.h"
#include "format/sqlite_database.h"

#include <optional>
#include <string>
#include <vector>

namespace stallscope::format {

// The values of the row a statement stands on, read with their storage class checked: SQLite
// keeps what it cannot convert to a column's declared type, so in a crafted file an INTEGER NOT
// NULL column may hold text, a real (±Inf, NaN) or NULL. integer() wants an integer,
// optionalInteger() an integer or NULL, text() text, optionalText() text or NULL. The first
// mismatch is kept for problem(); a mismatched value reads as 0 or "". Cheap enough for the
// loader's per-row loops: an integer is read with its class in one call.
class RowValues {
public:
    // Implicit, so that a reader that does not look at problem() (the symbolizer's module list)
    // passes its statement as before.
    RowValues(const Statement& row) : m_row(row) {}

    int64_t integer(int column) const {
        const Statement::TypedInteger read = m_row.typedInteger(column);
        if (read.type != Statement::ValueType::Integer)
            mismatch(column, Statement::ValueType::Integer);
        return read.value;
    }
    std::optional<int64_t> optionalInteger(int column) const;
    std::string text(int column) const;
    std::optional<std::string> optionalText(int column) const;

    bool isNull(int column) const { return m_row.isNull(column); }
    bool ok() const { return m_badColumn < 0; }
    // The first mismatch, e.g. "column start_ns holds text, not an integer"; "" when ok().
    std::string problem() const;
    const Statement& statement() const { return m_row; }
    std::string columnName(int column) const { return m_row.columnName(column); }

private:
    // True when the value has the wanted class (or is NULL and `nullable`); else notes it.
    bool expect(int column, Statement::ValueType wanted, bool nullable) const {
        const Statement::ValueType type = m_row.type(column);
        if (type == wanted || (nullable && type == Statement::ValueType::Null))
            return true;
        mismatch(column, wanted);
        return false;
    }
    // Notes the first column whose value is not of the `wanted` class.
    void mismatch(int column, Statement::ValueType wanted) const {
        if (ok()) {
            m_badColumn = column;
            m_wanted = wanted;
        }
    }

    const Statement& m_row;
    mutable int m_badColumn = -1;
    mutable Statement::ValueType m_wanted = Statement::ValueType::Integer;
};

// A row's integer columns as already read, each with its storage class (from a statement, or from
// a table's pages: btree_scanner.h), checked as RowValues checks them: the loader's event tables,
// whose columns are all integers.
class TypedValues {
public:
    TypedValues(const Statement::TypedInteger* values, const std::vector<std::string>& names)
        : m_values(values), m_names(names) {}

    int64_t integer(int column) const {
        if (m_values[column].type != Statement::ValueType::Integer && ok())
            m_badColumn = column;
        return m_values[column].value;
    }
    bool isNull(int column) const { return m_values[column].type == Statement::ValueType::Null; }
    bool ok() const { return m_badColumn < 0; }
    // As RowValues::problem().
    std::string problem() const;
    const std::string& columnName(int column) const { return m_names[size_t(column)]; }

private:
    const Statement::TypedInteger* m_values;
    const std::vector<std::string>& m_names;
    mutable int m_badColumn = -1;
};

ProcessRow readProcessRow(const RowValues& row);
ProcessRankRow readProcessRankRow(const RowValues& row);
ThreadRow readThreadRow(const RowValues& row);
DeviceRow readDeviceRow(const RowValues& row);
StreamRow readStreamRow(const RowValues& row);
KernelRow readKernelRow(const RowValues& row);
CudaEventRow readCudaEventRow(const RowValues& row);
CudaEventRow readCudaEventRow(const TypedValues& row); // from the table's pages
ModuleRow readModuleRow(const RowValues& row);
SourceRow readSourceRow(const RowValues& row);
CaptureIntervalRow readCaptureIntervalRow(const RowValues& row);

} // namespace stallscope::format
