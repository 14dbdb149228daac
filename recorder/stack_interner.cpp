#include "recorder/stack_interner.h"

#include "recorder/python_frames.h"
#include "recorder/row_id_cache.h"

#include <algorithm>
#include <vector>

namespace stallscope::recorder {

StackInterner::StackInterner(format::SessionWriter* writer,
                             std::function<int64_t(uintptr_t)> moduleRowFor)
    : m_writer(writer), m_moduleRowFor(std::move(moduleRowFor)) {}

int StackInterner::merge(const uintptr_t* pcs, int depth, const uint64_t* python, int pythonDepth,
                         bool (*isEvalLoop)(uintptr_t), Entry* out, int max) {
    int n = 0, p = 0;
    auto emitActivation = [&] {
        while (p < pythonDepth && n < max) {
            uint64_t word = python[p++];
            out[n++] = Entry{true, 0, word};
            if (PythonFrames::endsActivation(word))
                break;
        }
    };
    for (int i = 0; i < depth && n < max; ++i) {
        if (p < pythonDepth && isEvalLoop && isEvalLoop(pcs[i])) {
            emitActivation();
            continue;
        }
        out[n++] = Entry{false, pcs[i], 0};
    }
    while (p < pythonDepth && n < max)
        out[n++] = Entry{true, 0, python[p++]};
    return n;
}

int64_t StackInterner::nativeFrame(uintptr_t pc) {
    return rowIdFor(m_nativeFrames, pc, [&] {
        format::FrameRow row;
        row.kind = format::FrameKind::Native;
        row.address = int64_t(pc);
        int64_t module = m_moduleRowFor ? m_moduleRowFor(pc) : -1;
        if (module >= 0)
            row.moduleId = module;
        return m_writer->addFrame(row);
    });
}

int64_t StackInterner::pythonFrame(uint64_t word) {
    uint64_t key = word & ~(uint64_t(1) << 63);
    auto known = m_pythonWords.find(key);
    if (known != m_pythonWords.end())
        return known->second;
    PythonFrames::CodeInfo info = PythonFrames::codeInfo(PythonFrames::codeIdOf(word));
    int line = PythonFrames::lineOf(word);
    std::string text = std::string(info.file) + '\0' + info.function + '\0' + std::to_string(line);
    auto same = m_pythonFrames.find(text);
    int64_t id;
    if (same != m_pythonFrames.end()) {
        id = same->second;
    } else {
        format::FrameRow row;
        row.kind = format::FrameKind::Python;
        row.file = info.file;
        row.function = info.function;
        row.line = line;
        id = m_writer->addFrame(row);
        m_pythonFrames.emplace(std::move(text), id);
    }
    m_pythonWords.emplace(key, id);
    return id;
}

int64_t StackInterner::stackRow(const HostEvent& event) {
    int depth = std::clamp(event.depth, 0, kMaxStackFrames);
    int pythonDepth = std::clamp(int(event.pythonDepth), 0, kMaxPythonFrames);
    if (event.stackHash == 0 || depth + pythonDepth == 0)
        return -1;
    auto it = m_stacks.find(event.stackHash);
    if (it != m_stacks.end())
        return it->second;
    Entry merged[kMaxStackFrames + kMaxPythonFrames];
    int n = merge(event.pcs, depth, event.python, pythonDepth, PythonFrames::isEvalLoopPc, merged,
                  kMaxStackFrames + kMaxPythonFrames);
    std::vector<int64_t> frameIds;
    frameIds.reserve(size_t(n));
    for (int i = 0; i < n; ++i)
        frameIds.push_back(merged[i].python ? pythonFrame(merged[i].word)
                                            : nativeFrame(merged[i].pc));
    int64_t id = m_writer->addStack(event.stackHash, frameIds);
    m_stacks.emplace(event.stackHash, id);
    ++m_written;
    return id;
}

} // namespace stallscope::recorder
