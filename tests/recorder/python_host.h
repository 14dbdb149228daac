// Embedded CPython for tst_recorder_python (kept apart from Qt: Python.h and Qt both use `slots`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pyhost {

struct Frame {
    std::string file, function;
    int line = 0;
    bool activationEnd = false;
};
struct Capture {
    std::string label;
    bool gilHeld = false;
    std::vector<Frame> frames; // innermost first
};

// Called (GIL released) by stallprobe.sync(n).
using SyncHook = void (*)(uint32_t correlation);

// Runs `scriptPath` in a fresh interpreter with the `stallprobe` module; false and *error on
// failure.
bool runScript(const std::string& scriptPath, SyncHook hook, std::string* error);
const std::vector<Capture>& captures();

} // namespace pyhost
