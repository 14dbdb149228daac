#include "views/panels/selection_hub.h"

#include <utility>

namespace stallscope::views {

SelectionHub::SelectionHub(QObject* parent) : QObject(parent) {}

void SelectionHub::select(Selection selection) {
    if (selection.isEmpty())
        return clear();
    m_current = std::move(selection);
    emit changed(m_current);
}

void SelectionHub::clear() {
    if (m_current.isEmpty())
        return;
    m_current = {};
    emit changed(m_current);
    emit cleared();
}

} // namespace stallscope::views
