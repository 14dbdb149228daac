#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tests/recorder/python_host.h"

#include "recorder/python_frames.h"
#include "recorder/python_runtime.h"
#include "recorder/python_sampler.h"

#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <mutex>

using stallscope::recorder::PythonFrames;
using stallscope::recorder::PythonSampler;

namespace pyhost {

namespace {

std::vector<Capture> g_captures;
SyncHook g_hook = nullptr;
SampleHook g_sampleHook = nullptr;
SamplerRun g_samplerRun;
LineTableCheck g_lineTableCheck;
PythonSampler* g_sampler = nullptr;

// Threads parked in stallprobe.park() until stallprobe.sample_parked() has sampled them.
std::mutex g_parkMutex;
std::condition_variable g_parkChanged;
int g_parked = 0;
bool g_released = false;

void record(const char* label, bool gilHeld) {
    uint64_t words[48];
    int n = PythonFrames::capture(words, 48);
    Capture capture;
    capture.label = label;
    capture.gilHeld = gilHeld;
    for (int i = 0; i < n; ++i) {
        PythonFrames::CodeInfo info = PythonFrames::codeInfo(PythonFrames::codeIdOf(words[i]));
        capture.frames.push_back(Frame{info.file, info.function, PythonFrames::lineOf(words[i]),
                                       PythonFrames::endsActivation(words[i])});
    }
    g_captures.push_back(std::move(capture));
}

PyObject* probeCapture(PyObject*, PyObject* args) {
    const char* label = nullptr;
    if (!PyArg_ParseTuple(args, "s", &label))
        return nullptr;
    record(label, PyGILState_Check() != 0);
    Py_RETURN_NONE;
}

PyObject* probeCaptureNoGil(PyObject*, PyObject* args) {
    const char* label = nullptr;
    if (!PyArg_ParseTuple(args, "s", &label))
        return nullptr;
    std::string copy = label;
    Py_BEGIN_ALLOW_THREADS record(copy.c_str(), PyGILState_Check() != 0);
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

PyObject* probeSync(PyObject*, PyObject* args) {
    unsigned int correlation = 0;
    if (!PyArg_ParseTuple(args, "I", &correlation))
        return nullptr;
    Py_BEGIN_ALLOW_THREADS if (g_hook) g_hook(correlation);
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

PyObject* probePark(PyObject*, PyObject*) {
    Py_BEGIN_ALLOW_THREADS {
        std::unique_lock lock(g_parkMutex);
        ++g_parked;
        g_parkChanged.notify_all();
        g_parkChanged.wait(lock, [] { return g_released; });
        --g_parked;
    }
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

PyObject* probeSampleParked(PyObject*, PyObject* args) {
    int expected = 0;
    if (!PyArg_ParseTuple(args, "i", &expected))
        return nullptr;
    Py_BEGIN_ALLOW_THREADS {
        std::unique_lock lock(g_parkMutex);
        g_released = false;
        g_parkChanged.wait(lock, [expected] { return g_parked >= expected; });
        if (g_sampleHook)
            g_sampleHook();
        g_released = true;
        g_parkChanged.notify_all();
    }
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

PyObject* probeSamplerStart(PyObject*, PyObject* args) {
    int hz = 0;
    if (!PyArg_ParseTuple(args, "i", &hz))
        return nullptr;
    static PythonSampler sampler;
    g_sampler = &sampler;
    g_samplerRun.started = sampler.start(hz);
    return PyBool_FromLong(g_samplerRun.started);
}

PyObject* probeSamplerTicks(PyObject*, PyObject*) {
    return PyLong_FromUnsignedLongLong(g_sampler ? g_sampler->stats().ticks : 0);
}

PyObject* probeSamplerStop(PyObject*, PyObject*) {
    if (g_sampler) {
        Py_BEGIN_ALLOW_THREADS g_sampler->stop();
        Py_END_ALLOW_THREADS g_samplerRun.stoppedCleanly = !g_sampler->running();
        g_samplerRun.ticks = g_sampler->stats().ticks;
        g_samplerRun.samples = g_sampler->stats().samples;
    }
    Py_RETURN_NONE;
}

PyObject* probeCheckLineTable(PyObject*, PyObject* args) {
    PyObject* object = nullptr;
    if (!PyArg_ParseTuple(args, "O!", &PyCode_Type, &object))
        return nullptr;
#if PY_VERSION_HEX >= 0x030B0000
    auto* code = reinterpret_cast<PyCodeObject*>(object);
    const auto* table = reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(code->co_linetable));
    const auto size = size_t(PyBytes_GET_SIZE(code->co_linetable));
    const Py_ssize_t codeBytes = Py_SIZE(code) * Py_ssize_t(sizeof(_Py_CODEUNIT));
    for (int offset = 0; offset < codeBytes; offset += 2) {
        const int expected = PyCode_Addr2Line(code, offset);
        const int decoded =
            PythonSampler::lineFromLocationTable(table, size, code->co_firstlineno, offset);
        ++g_lineTableCheck.offsets;
        if (expected != decoded && g_lineTableCheck.mismatches++ == 0)
            g_lineTableCheck.firstMismatch = PyUnicode_AsUTF8(code->co_name) +
                                             std::string(" at byte ") + std::to_string(offset) +
                                             ": " + std::to_string(decoded) + " instead of " +
                                             std::to_string(expected);
    }
#endif
    Py_RETURN_NONE;
}

PyMethodDef g_methods[] = {
    {"capture", probeCapture, METH_VARARGS, "capture Python frames with the GIL held"},
    {"capture_nogil", probeCaptureNoGil, METH_VARARGS, "capture Python frames without the GIL"},
    {"sync", probeSync, METH_VARARGS, "a fake sync API call through the recorder's callback"},
    {"park", probePark, METH_NOARGS, "wait (GIL released) until sample_parked has sampled"},
    {"sample_parked", probeSampleParked, METH_VARARGS, "sample once n threads are parked"},
    {"sampler_start", probeSamplerStart, METH_VARARGS, "start a sampling thread at hz"},
    {"sampler_ticks", probeSamplerTicks, METH_NOARGS, "the sampling thread's ticks so far"},
    {"sampler_stop", probeSamplerStop, METH_NOARGS, "stop the sampling thread"},
    {"check_line_table", probeCheckLineTable, METH_VARARGS, "decoder vs PyCode_Addr2Line"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef g_module = {PyModuleDef_HEAD_INIT,
                        "stallprobe",
                        nullptr,
                        -1,
                        g_methods,
                        nullptr,
                        nullptr,
                        nullptr,
                        nullptr};

PyObject* initModule() {
    return PyModule_Create(&g_module);
}

} // namespace

bool runScript(const std::string& scriptPath, SyncHook hook, std::string* error) {
    g_hook = hook;
    g_captures.clear();
    if (!Py_IsInitialized()) {
        PyImport_AppendInittab("stallprobe", initModule);
        Py_InitializeEx(0);
    }
    if (!PythonFrames::initialize()) {
        *error = std::string("PythonFrames unavailable: ") + PythonFrames::status();
        return false;
    }
    FILE* file = fopen(scriptPath.c_str(), "r");
    if (!file) {
        *error = "cannot open " + scriptPath;
        return false;
    }
    int rc = PyRun_SimpleFileExFlags(file, scriptPath.c_str(), 1, nullptr);
    if (rc != 0)
        *error = "the script raised (see stderr)";
    return rc == 0;
}

const std::vector<Capture>& captures() {
    return g_captures;
}

void setSampleHook(SampleHook hook) {
    g_sampleHook = hook;
}

const SamplerRun& samplerRun() {
    return g_samplerRun;
}

const LineTableCheck& lineTableCheck() {
    return g_lineTableCheck;
}

std::string layoutMismatches() {
    const stallscope::recorder::PythonRuntime& rt = stallscope::recorder::pythonRuntime();
    std::string text;
    auto expect = [&](const char* field, int recorded, size_t header) {
        if (size_t(recorded) != header)
            text += std::string(field) + " " + std::to_string(recorded) +
                    " (Python.h: " + std::to_string(header) + "); ";
    };
    expect("co_filename", rt.coFilename, offsetof(PyCodeObject, co_filename));
    expect("co_name", rt.coName, offsetof(PyCodeObject, co_name));
    expect("co_firstlineno", rt.coFirstLine, offsetof(PyCodeObject, co_firstlineno));
#if PY_VERSION_HEX >= 0x030B0000
    expect("co_linetable", rt.coLinetable, offsetof(PyCodeObject, co_linetable));
    expect("co_code_adaptive", rt.coCode, offsetof(PyCodeObject, co_code_adaptive));
    expect("native_thread_id", rt.tsNativeThreadId, offsetof(PyThreadState, native_thread_id));
#endif
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030D0000
    expect("cframe", rt.tsFrame, offsetof(PyThreadState, cframe));
#endif
    expect("PyThreadState.next", stallscope::recorder::PythonRuntime::kThreadNextOffset,
           offsetof(PyThreadState, next));
    expect("ob_sval", stallscope::recorder::PythonRuntime::kBytesDataOffset,
           offsetof(PyBytesObject, ob_sval));
    return text;
}

} // namespace pyhost
