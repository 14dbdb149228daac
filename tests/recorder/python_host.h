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
// Called (GIL released) by stallprobe.sample_parked(n) once n threads wait in stallprobe.park():
// what the test samples while they are parked.
using SampleHook = void (*)();
void setSampleHook(SampleHook hook);

// The sampler that stallprobe.sampler_start(hz) / sampler_ticks() / sampler_stop() drive.
struct SamplerRun {
    bool started = false, stoppedCleanly = false;
    uint64_t ticks = 0, samples = 0;
};
const SamplerRun& samplerRun();

// stallprobe.check_line_table(code): the sampler's line-table decoder against PyCode_Addr2Line
// at every instruction offset of the code objects the script passed.
struct LineTableCheck {
    int64_t offsets = 0, mismatches = 0;
    std::string firstMismatch;
};
const LineTableCheck& lineTableCheck();

// Where this machine's Python.h puts the fields the recorder reads, against PythonRuntime: ""
// when all agree, else the fields that differ.
std::string layoutMismatches();

// Runs `scriptPath` in a fresh interpreter with the `stallprobe` module; false and *error on
// failure.
bool runScript(const std::string& scriptPath, SyncHook hook, std::string* error);
const std::vector<Capture>& captures();

} // namespace pyhost
