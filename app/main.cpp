// stallscope: the desktop application and its batch modes (app/command_line.h lists them).
#include "app/command_line.h"

int main(int argc, char** argv) {
    return stallscope::app::runCommandLine(argc, argv);
}
