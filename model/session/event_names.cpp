#include "model/session/event_names.h"

#include "format/session_schema.h"
#include "model/session/session_summary.h"

namespace stallscope::model::display {

QString kernelDisplayName(const std::string& name) {
    return QString::fromStdString(model::readableKernelName(name));
}

QString syncKindName(int kind) {
    switch (static_cast<format::SyncKind>(kind)) {
    case format::SyncKind::Stream:
        return QStringLiteral("stream synchronize");
    case format::SyncKind::Device:
        return QStringLiteral("device synchronize");
    case format::SyncKind::Event:
        return QStringLiteral("event synchronize");
    case format::SyncKind::StreamWaitEvent:
        return QStringLiteral("stream wait event");
    case format::SyncKind::PageableCopy:
        return QStringLiteral("blocking copy to pageable memory");
    case format::SyncKind::BlockingCopy:
        return QStringLiteral("blocking copy");
    case format::SyncKind::BlockingMemset:
        return QStringLiteral("blocking memset");
    case format::SyncKind::BlockingAlloc:
        return QStringLiteral("blocking alloc/free");
    }
    return QStringLiteral("sync");
}

QString copyKindName(int kind) {
    static const char* names[] = {"",     "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                  "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
    return kind >= 0 && kind <= 10 ? QString::fromLatin1(names[kind]) : QString();
}

QString memoryKindName(int kind) {
    static const char* names[] = {"unknown", "pageable", "pinned",          "device",
                                  "array",   "managed",  "device (static)", "managed (static)"};
    return kind >= 0 && kind <= 7 ? QString::fromLatin1(names[kind]) : QStringLiteral("unknown");
}

} // namespace stallscope::model::display
