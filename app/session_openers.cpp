#include "app/session_openers.h"

#include "model/interop/kineto_importer.h"

namespace stallscope::app {

model::SessionOpener standardSessionOpener() {
    model::SessionOpener opener;
    model::registerKinetoImporter(opener);
    return opener;
}

} // namespace stallscope::app
