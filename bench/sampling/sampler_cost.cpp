// The Python sampler's own cost, CPU only (no GPU, no CUPTI): an embedded interpreter (this
// machine's python3) with 4 threads parked 20 frames deep and the main thread running a timed
// Python loop 20 frames deep. Measures, over ROUNDS interleaved rounds (medians):
//   * the cost of one sample (one thread's stack read through process_vm_readv and resolved),
//     from sampleOnce() over the 5 threads, GIL released;
//   * the main loop's time with no sampling thread, at 200 Hz and at 1000 Hz (its overhead).
//   stallscope-bench-sampler [ROUNDS]
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "recorder/callback_handler.h"
#include "recorder/event_ring.h"
#include "recorder/python_frames.h"
#include "recorder/python_sampler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using stallscope::recorder::CallbackHandler;
using stallscope::recorder::EventRing;
using stallscope::recorder::HostEvent;
using stallscope::recorder::PythonSampler;

namespace {

const char* kSetUp = R"PY(
import threading, time
release = threading.Event()
def deep(n, f):
    if n == 0:
        return f()
    return deep(n - 1, f)
workers = [threading.Thread(target=deep, args=(20, release.wait)) for _ in range(4)]
for w in workers:
    w.start()
def spin():
    total = 0
    for i in range(3_000_000):
        total += i
    return total
def timed():
    t0 = time.perf_counter()
    deep(20, spin)
    return time.perf_counter() - t0
)PY";

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

double timedLoop(PyObject* main) {
    PyObject* result = PyObject_CallMethod(main, "timed", nullptr);
    const double seconds = result ? PyFloat_AsDouble(result) : -1;
    Py_XDECREF(result);
    return seconds;
}

void drainRings() {
    EventRing::forEach([](EventRing* ring, void*) { ring->drain([](const HostEvent&) {}); },
                       nullptr);
}

} // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(5, atoi(argv[1])) : 7;
    Py_InitializeEx(0);
    if (PyRun_SimpleString(kSetUp) != 0)
        return 1;
    if (!PythonSampler::prepare()) {
        std::fprintf(stderr, "sampler unavailable: %s\n", PythonSampler::status());
        return 1;
    }
    PyObject* main = PyImport_AddModule("__main__");
    std::vector<double> perSampleUs, off, at200, at1000;
    for (int round = 0; round < rounds; ++round) {
        // One sample of every thread, 2000 times, GIL released (as on the sampling thread).
        PythonSampler direct;
        int samples = 0;
        Py_BEGIN_ALLOW_THREADS;
        const int64_t start = CallbackHandler::nowNs();
        for (int i = 0; i < 2000; ++i) {
            samples += direct.sampleOnce(CallbackHandler::nowNs(), uint32_t(i));
            if (i % 256 == 0)
                drainRings();
        }
        perSampleUs.push_back(double(CallbackHandler::nowNs() - start) / 1e3 /
                              std::max(samples, 1));
        drainRings();
        Py_END_ALLOW_THREADS;
        // The main loop without and with a sampling thread at each rate, in an order that turns
        // each round, so that no configuration always runs first.
        const std::pair<int, std::vector<double>*> configurations[] = {
            {0, &off}, {200, &at200}, {1000, &at1000}};
        for (int k = 0; k < 3; ++k) {
            const auto& [hz, times] = configurations[(k + round) % 3];
            PythonSampler sampler;
            if (hz > 0)
                sampler.start(hz);
            times->push_back(timedLoop(main));
            Py_BEGIN_ALLOW_THREADS sampler.stop();
            Py_END_ALLOW_THREADS drainRings();
        }
    }
    const double base = median(off);
    std::printf("python %s, %d rounds (medians)\n", stallscope::recorder::PythonFrames::version(),
                rounds);
    std::printf("one sample (a 20+-frame stack of one thread): %.2f us\n", median(perSampleUs));
    std::printf("main loop, no sampling:   %.1f ms\n", base * 1e3);
    std::printf("main loop, 200 Hz:        %.1f ms (%+.2f %%)\n", median(at200) * 1e3,
                100 * (median(at200) / base - 1));
    std::printf("main loop, 1000 Hz:       %.1f ms (%+.2f %%)\n", median(at1000) * 1e3,
                100 * (median(at1000) / base - 1));
    PyRun_SimpleString("release.set()\nfor w in workers: w.join()");
    return 0;
}
