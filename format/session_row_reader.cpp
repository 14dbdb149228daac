#include "format/session_row_reader.h"

namespace stallscope::format {
namespace {

std::optional<int64_t> optionalInteger(const Statement& row, int column) {
    if (row.isNull(column))
        return std::nullopt;
    return row.integer(column);
}

} // namespace

ProcessRow readProcessRow(const Statement& row) {
    return {
        row.integer(1),         row.text(2), row.text(3), row.integer(4), optionalInteger(row, 5),
        optionalInteger(row, 6)};
}

ThreadRow readThreadRow(const Statement& row) {
    return {row.integer(1), row.integer(2), row.text(3)};
}

DeviceRow readDeviceRow(const Statement& row) {
    return {row.integer(1), row.integer(2), row.text(3),    row.text(4),
            row.integer(5), row.integer(6), row.integer(7), row.integer(8)};
}

StreamRow readStreamRow(const Statement& row) {
    return {row.integer(1), row.integer(2), row.integer(3), row.integer(4) != 0, row.integer(5)};
}

KernelRow readKernelRow(const Statement& row) {
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

CudaEventRow readCudaEventRow(const Statement& row) {
    return {row.integer(1), row.integer(2), row.integer(3), row.integer(4)};
}

ModuleRow readModuleRow(const Statement& row) {
    return {row.integer(1), row.text(2), row.integer(3), row.integer(4),
            row.integer(5), row.text(6), row.integer(7)};
}

SourceRow readSourceRow(const Statement& row) {
    return {row.text(1), row.text(2), row.integer(3), row.integer(4) != 0, row.text(5)};
}

} // namespace stallscope::format
