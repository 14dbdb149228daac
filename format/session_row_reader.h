// Reading rows back: each function takes a statement stepped onto a row of selectSql(table) —
// the row id in column 0, the row struct's fields after it, in descriptor order — and returns
// the row struct the writer took. The reverse of SessionWriter's add*, kept beside it.
#pragma once

#include "format/session_rows.h"
#include "format/sqlite_database.h"

namespace stallscope::format {

ProcessRow readProcessRow(const Statement& row);
ThreadRow readThreadRow(const Statement& row);
DeviceRow readDeviceRow(const Statement& row);
StreamRow readStreamRow(const Statement& row);
KernelRow readKernelRow(const Statement& row);
CudaEventRow readCudaEventRow(const Statement& row);
ModuleRow readModuleRow(const Statement& row);
SourceRow readSourceRow(const Statement& row);

} // namespace stallscope::format
