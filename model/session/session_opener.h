// SessionOpener: turns a path the user gave (a session file, a torch.profiler trace, a folder of
// per-rank traces, ...) into a loaded Session by asking registered importers, in order, which one
// can open it. The session layer knows only its own file format; other layers (model/interop)
// register their formats, and the app composes the opener it uses (app/session_openers.h), so
// no edge runs from the session layer up to the importers.
#pragma once

#include "model/session/session_loader.h"

#include <functional>
#include <string>
#include <vector>

namespace stallscope::model {

struct SessionImporter {
    std::string name; // "Stallscope session", "torch.profiler trace", ... (for messages)
    std::function<bool(const std::string& path)> canOpen;
    std::function<LoadResult(const std::string& path, const LoadOptions& options)> open;
    // The files other than `path` that opening it reads (a folder's traces, a run's rank files);
    // none when unset.
    std::function<std::vector<std::string>(const std::string& path)> otherInputs;
};

class SessionOpener {
public:
    // An opener that reads session files only (SessionLoader).
    SessionOpener();

    // Importers added later are asked first; the session-file importer is the fallback.
    void add(SessionImporter importer);
    LoadResult open(const std::string& path, const LoadOptions& options = {}) const;
    // The importer that would open `path` (never null: the session-file importer at worst).
    const SessionImporter& importerFor(const std::string& path) const;
    // Every file opening `path` reads, `path` last and once: what an output must never replace.
    std::vector<std::string> inputsOf(const std::string& path) const;

private:
    std::vector<SessionImporter> m_importers; // asked from the back
};

} // namespace stallscope::model
