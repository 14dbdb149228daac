#include "model/session/session_opener.h"

#include <algorithm>

namespace stallscope::model {

SessionOpener::SessionOpener() {
    m_importers.push_back(SessionImporter{"Stallscope session",
                                          [](const std::string&) { return true; },
                                          [](const std::string& path, const LoadOptions& options) {
                                              return SessionLoader::load(path, options);
                                          }});
}

void SessionOpener::add(SessionImporter importer) {
    m_importers.push_back(std::move(importer));
}

const SessionImporter& SessionOpener::importerFor(const std::string& path) const {
    for (auto it = m_importers.rbegin(); it != m_importers.rend(); ++it)
        if (it->canOpen(path))
            return *it;
    return m_importers.front();
}

std::vector<std::string> SessionOpener::inputsOf(const std::string& path) const {
    const SessionImporter& importer = importerFor(path);
    std::vector<std::string> inputs =
        importer.otherInputs ? importer.otherInputs(path) : std::vector<std::string>{};
    if (std::find(inputs.begin(), inputs.end(), path) == inputs.end())
        inputs.push_back(path); // a single trace file stands for itself
    return inputs;
}

LoadResult SessionOpener::open(const std::string& path, const LoadOptions& options) const {
    return importerFor(path).open(path, options);
}

} // namespace stallscope::model
