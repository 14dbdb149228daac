// A writer killed with SIGKILL, which can run no code: what a crashed recorder or a killed
// conversion leaves (header-only test support). The work runs in a forked child that signals when
// it is done and is then killed.
#pragma once

#include "format/session_writer.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

namespace stallscope::testing {

// Runs `work` in a child, kills it once `work` returned true; false when it did not, or the child
// did not die of the signal. Whatever `work` opened stays as the kill left it.
inline bool killAfter(const std::function<bool()>& work) {
    int ready[2];
    if (pipe(ready) != 0)
        return false;
    const pid_t child = fork();
    if (child < 0)
        return false;
    if (child == 0) {
        const char byte = work() ? 1 : 0;
        if (write(ready[1], &byte, 1) != 1)
            _exit(3);
        pause();
        _exit(0);
    }
    char byte = 0;
    const bool worked = read(ready[0], &byte, 1) == 1 && byte == 1;
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    close(ready[0]);
    close(ready[1]);
    return worked && WIFSIGNALED(status);
}

// A session whose writer committed `committed` API calls, added more it never committed, and was
// killed: the committed rows are in its WAL, not yet in the file.
inline bool writeKilledSession(const std::string& path, int committed = 1000) {
    return killAfter([&] {
        std::string error;
        auto writer = format::SessionWriter::create(path, &error);
        if (!writer)
            return false;
        const int64_t process = writer->addProcess({1, "h", "cmd", 0, {}, {}});
        const int64_t thread = writer->addThread({process, 1, "main"});
        const int64_t name = writer->internString("cudaLaunchKernel");
        for (int i = 0; i < committed + committed / 2; ++i) {
            if (i == committed)
                writer->commit(); // the rest is never committed
            writer->addApiCall(
                {thread, format::ApiDomain::Runtime, 1, name, i * 10, i * 10 + 5, i, 0});
        }
        writer.release(); // open until the kill: no destructor may finish the session
        return true;
    });
}

} // namespace stallscope::testing
