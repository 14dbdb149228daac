#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tests/recorder/python_host.h"

#include "recorder/python_frames.h"

#include <cstdio>

using stallscope::recorder::PythonFrames;

namespace pyhost {

namespace {

std::vector<Capture> g_captures;
SyncHook g_hook = nullptr;

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

PyMethodDef g_methods[] = {
    {"capture", probeCapture, METH_VARARGS, "capture Python frames with the GIL held"},
    {"capture_nogil", probeCaptureNoGil, METH_VARARGS, "capture Python frames without the GIL"},
    {"sync", probeSync, METH_VARARGS, "a fake sync API call through the recorder's callback"},
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

} // namespace pyhost
