#include "model/session/event_names.h"

#include "format/session_enums.h"
#include "model/session/session_summary.h"

namespace stallscope::model::display {

QString kernelDisplayName(const std::string& name) {
    return QString::fromStdString(model::readableKernelName(name));
}

QString syncKindName(int kind) {
    return QString::fromUtf8(format::syncKindName(kind));
}

QString copyKindName(int kind) {
    return QString::fromUtf8(format::copyKindName(kind));
}

QString memoryKindName(int kind) {
    return QString::fromUtf8(format::memoryKindName(kind));
}

} // namespace stallscope::model::display
