// Display names of the session's enumerations and kernels, shared by EventRef::name and the views.
#pragma once

#include <QString>

#include <string>

// Their own namespace: model/interop has a const char* syncKindName of its own.
namespace stallscope::model::display {

// A kernel name as people read it: CUPTI records Itanium-mangled names ("_ZN7cutlass..."); they
// are demangled, anything else is returned as is.
QString kernelDisplayName(const std::string& name);
// "stream synchronize", "device synchronize", … (format::SyncKind values).
QString syncKindName(int kind);
// "HtoD", "DtoH", … (format::CopyKind values); "" when unknown.
QString copyKindName(int kind);
// "pageable", "pinned", "device", … (format::MemoryKind values).
QString memoryKindName(int kind);

} // namespace stallscope::model::display
