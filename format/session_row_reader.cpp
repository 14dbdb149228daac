#include "format/session_row_reader.h"

namespace stallscope::format {

namespace {

std::string_view valueTypeName(Statement::ValueType type) {
    switch (type) {
    case Statement::ValueType::Integer:
        return "an integer";
    case Statement::ValueType::Real:
        return "a real";
    case Statement::ValueType::Text:
        return "text";
    case Statement::ValueType::Blob:
        return "a blob";
    case Statement::ValueType::Null:
        return "NULL";
    }
    return "a value of unknown type";
}

// "column start_ns holds text, not an integer", "column end_ns is NULL".
std::string mismatchText(const std::string& name, Statement::ValueType found,
                         Statement::ValueType wanted) {
    const std::string column = "column " + name;
    if (found == Statement::ValueType::Null)
        return column + " is NULL";
    return column + " holds " + std::string(valueTypeName(found)) + ", not " +
           std::string(valueTypeName(wanted));
}

// A CUDA event row's fields, however its values were read.
template <typename Values> CudaEventRow cudaEventRowOf(const Values& row) {
    return {row.integer(1), row.integer(2), row.integer(3), row.integer(4)};
}

} // namespace

std::optional<int64_t> RowValues::optionalInteger(int column) const {
    if (!expect(column, Statement::ValueType::Integer, true) || m_row.isNull(column))
        return std::nullopt;
    return m_row.integer(column);
}

std::string RowValues::text(int column) const {
    return expect(column, Statement::ValueType::Text, false) ? m_row.text(column) : std::string();
}

std::optional<std::string> RowValues::optionalText(int column) const {
    if (!expect(column, Statement::ValueType::Text, true) || m_row.isNull(column))
        return std::nullopt;
    return m_row.text(column);
}

std::string RowValues::problem() const {
    if (ok())
        return {};
    return mismatchText(m_row.columnName(m_badColumn), m_row.type(m_badColumn), m_wanted);
}

std::string TypedValues::problem() const {
    if (ok())
        return {};
    return mismatchText(m_names[size_t(m_badColumn)], m_values[m_badColumn].type,
                        Statement::ValueType::Integer);
}

ProcessRow readProcessRow(const RowValues& row) {
    return {row.integer(1),         row.text(2),           row.text(3), row.integer(4),
            row.optionalInteger(5), row.optionalInteger(6)};
}

ProcessRankRow readProcessRankRow(const RowValues& row) {
    return {row.integer(1),         row.integer(2), row.optionalInteger(3),
            row.optionalInteger(4), row.text(5),    row.integer(6)};
}

ThreadRow readThreadRow(const RowValues& row) {
    return {row.integer(1), row.integer(2), row.text(3)};
}

DeviceRow readDeviceRow(const RowValues& row) {
    return {row.integer(1), row.integer(2), row.text(3),    row.text(4),
            row.integer(5), row.integer(6), row.integer(7), row.integer(8)};
}

StreamRow readStreamRow(const RowValues& row) {
    return {row.integer(1), row.integer(2), row.integer(3), row.integer(4) != 0, row.integer(5)};
}

KernelRow readKernelRow(const RowValues& row) {
    KernelRow kernel{row.integer(1), row.integer(2), row.integer(3), row.integer(4),
                     row.integer(5)};
    for (int axis = 0; axis < 3; ++axis) {
        kernel.grid[axis] = static_cast<int32_t>(row.integer(6 + axis));
        kernel.block[axis] = static_cast<int32_t>(row.integer(9 + axis));
    }
    kernel.registersPerThread = static_cast<int32_t>(row.integer(12));
    kernel.staticSharedBytes = static_cast<int32_t>(row.integer(13));
    kernel.dynamicSharedBytes = static_cast<int32_t>(row.integer(14));
    return kernel;
}

CudaEventRow readCudaEventRow(const RowValues& row) {
    return cudaEventRowOf(row);
}

CudaEventRow readCudaEventRow(const TypedValues& row) {
    return cudaEventRowOf(row);
}

ModuleRow readModuleRow(const RowValues& row) {
    return {row.integer(1), row.text(2), row.integer(3), row.integer(4),
            row.integer(5), row.text(6), row.integer(7)};
}

SourceRow readSourceRow(const RowValues& row) {
    return {row.text(1), row.text(2), row.integer(3), row.integer(4) != 0, row.text(5)};
}

CaptureIntervalRow readCaptureIntervalRow(const RowValues& row) {
    return {row.integer(1), row.integer(2), row.optionalInteger(3), row.text(4), row.text(5)};
}

} // namespace stallscope::format
