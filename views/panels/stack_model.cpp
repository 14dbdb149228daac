#include "views/panels/stack_model.h"

#include "format/module_class.h"
#include "model/session/python_frame_name.h"

#include <QFileInfo>
#include <QFont>
#include <QPalette>

namespace stallscope::views {

StackModel::StackModel(QObject* parent) : TitledTableModel(ColumnCount, parent) {}

void StackModel::setStack(std::vector<model::FrameInfo> frames,
                          const std::unordered_map<int64_t, model::ModuleInfo>* modules) {
    beginResetModel();
    m_frames = std::move(frames);
    m_modules = modules ? *modules : std::unordered_map<int64_t, model::ModuleInfo>{};
    m_unfolded = false;
    m_aboveApiCall = 0;
    while (m_aboveApiCall < int(m_frames.size()) &&
           m_frames[size_t(m_aboveApiCall)].kind == format::FrameKind::Native &&
           format::isAboveApiCallModule(moduleName(m_frames[size_t(m_aboveApiCall)]).toStdString()))
        ++m_aboveApiCall;
    if (m_aboveApiCall < 2 || m_aboveApiCall == int(m_frames.size()))
        m_aboveApiCall = 0; // one row for one frame, or nothing else to show: no fold
    endResetModel();
}

void StackModel::unfold() {
    if (m_aboveApiCall == 0 || m_unfolded)
        return;
    beginResetModel(); // every row below the folded one moves
    m_unfolded = true;
    endResetModel();
}

int StackModel::frameIndex(int row) const {
    if (m_aboveApiCall == 0 || m_unfolded)
        return row;
    return row == 0 ? -1 : row - 1 + m_aboveApiCall;
}

void StackModel::clear() {
    setStack({}, nullptr);
}

const model::FrameInfo* StackModel::frame(int row) const {
    const int at = row >= 0 && row < rowCount() ? frameIndex(row) : -1;
    return at >= 0 ? &m_frames[size_t(at)] : nullptr;
}

bool StackModel::hasSource(int row) const {
    const model::FrameInfo* f = frame(row);
    return f && !f->file.empty() && f->line > 0;
}

QString StackModel::moduleName(const model::FrameInfo& frame) const {
    if (frame.kind == format::FrameKind::Python)
        return QStringLiteral("python");
    const auto it = m_modules.find(frame.moduleId);
    return it == m_modules.end() ? QString()
                                 : QFileInfo(QString::fromStdString(it->second.path)).fileName();
}

QString StackModel::functionText(int row) const {
    const model::FrameInfo* f = frame(row);
    if (!f)
        return isFoldRow(row) // only ever two or more
                   ? tr("▸ %1 CUDA frames").arg(m_aboveApiCall)
                   : QString();
    // A function the compiler inlined into the next row's (frame_inlines): both share one PC.
    const size_t at = size_t(frameIndex(row));
    const bool inlined = at + 1 < m_frames.size() && m_frames[at + 1].inlineDepth > f->inlineDepth;
    if (!f->function.empty())
        return inlined ? tr("%1 (inlined)").arg(QString::fromStdString(f->function))
                       : QString::fromStdString(f->function);
    // Unresolved native frame: module+offset is what a symbolizer would need later.
    const auto it = m_modules.find(f->moduleId);
    if (it == m_modules.end())
        return QStringLiteral("0x%1").arg(quint64(f->address), 0, 16);
    return QStringLiteral("%1+0x%2")
        .arg(QFileInfo(QString::fromStdString(it->second.path)).fileName())
        .arg(quint64(f->address - it->second.loadBias), 0, 16);
}

int StackModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid())
        return 0;
    const int folded = m_unfolded || m_aboveApiCall == 0 ? 0 : m_aboveApiCall - 1;
    return int(m_frames.size()) - folded;
}

QVariant StackModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (isFoldRow(index.row())) {
        switch (role) {
        case Qt::DisplayRole:
            return index.column() == FunctionColumn ? functionText(0) : QVariant();
        case Qt::ToolTipRole:
            return tr("The recorder's, CUPTI's and the driver's frames above the CUDA call the "
                      "program made (the same in every recorded stack): click to show them");
        case Qt::ForegroundRole:
            return QPalette().brush(QPalette::PlaceholderText);
        case IsUserRole:
            return false;
        }
        return {};
    }
    const model::FrameInfo& f = m_frames[size_t(frameIndex(index.row()))];
    // Unsymbolized sessions leave is_user unset: judge Python files by their path then.
    const bool isUser = f.isUserCode();
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case IndexColumn:
            return frameIndex(index.row()); // the frame's depth, folded or not
        case FunctionColumn:
            return functionText(index.row());
        case LocationColumn: {
            if (f.file.empty())
                return QString();
            const QString file = QFileInfo(QString::fromStdString(f.file)).fileName();
            if (f.line <= 0)
                return file;
            // A def line is where the function starts, not the executing line: say so.
            return model::isDefLineFrame(f) ? tr("%1:%2 (its def line)").arg(file).arg(f.line)
                                            : QStringLiteral("%1:%2").arg(file).arg(f.line);
        }
        case ModuleColumn:
            return moduleName(f);
        }
        return {};
    case Qt::ToolTipRole:
        if (!f.file.empty() && model::isDefLineFrame(f))
            return tr("%1:%2 is where %3 is defined: torch.profiler records no executing line; "
                      "a Stallscope recording has the exact line")
                .arg(QString::fromStdString(f.file))
                .arg(f.line)
                .arg(functionText(index.row()));
        if (!f.file.empty())
            return QStringLiteral("%1:%2").arg(QString::fromStdString(f.file)).arg(f.line);
        return functionText(index.row());
    case Qt::FontRole:
        if (isUser) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::ForegroundRole:
        // Library and unresolved frames recede; the user's own code reads first.
        if (!isUser)
            return QPalette().brush(QPalette::PlaceholderText);
        return {};
    case FileRole:
        return QString::fromStdString(f.file);
    case LineRole:
        return qlonglong(f.line);
    case IsUserRole:
        return isUser;
    }
    return {};
}

QString StackModel::columnTitle(int section) const {
    static const char* const names[] = {QT_TR_NOOP("#"), QT_TR_NOOP("Function"),
                                        QT_TR_NOOP("Location"), QT_TR_NOOP("Module")};
    return tr(names[section]);
}

} // namespace stallscope::views
