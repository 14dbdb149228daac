// format/module_class.h: both sides of every rule — module classes by name and by path, the
// CUDA/C-runtime prefixes of sync stacks, and which Python files are user code.
#include "format/module_class.h"
#include "tests/support/test_suite.h"

#include <QTest>

using namespace stallscope::format;

class TestModuleClass : public QObject {
    Q_OBJECT
private slots:
    void classifiesModules_data();
    void classifiesModules();
    void classifiesPythonFiles_data();
    void classifiesPythonFiles();
    void labelsLibraryFiles_data();
    void labelsLibraryFiles();
    void syncStackModules_data();
    void syncStackModules();
    void namesClasses();
};

void TestModuleClass::classifiesModules_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("expected");
    const int user = int(ModuleClass::User), cuda = int(ModuleClass::CudaRuntime),
              system = int(ModuleClass::System), framework = int(ModuleClass::Framework),
              interpreter = int(ModuleClass::Interpreter);
    QTest::newRow("libcuda") << "/usr/lib/x86_64-linux-gnu/libcuda.so.1" << cuda;
    QTest::newRow("libcudart") << "/usr/local/cuda/lib64/libcudart.so.13.0.88" << cuda;
    QTest::newRow("libcupti") << "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcupti.so.13"
                              << cuda;
    QTest::newRow("recorder") << "/opt/stallscope/lib/libstallscope_recorder.so" << cuda;
    QTest::newRow("cublasLt") << "/x/libcublasLt.so.12" << cuda;
    QTest::newRow("nvidia wheel")
        << "/venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn_graph.so.9" << cuda;
    QTest::newRow("libtorch_cuda")
        << "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so" << framework;
    QTest::newRow("libtorch_cpu elsewhere") << "/opt/libtorch/lib/libtorch_cpu.so" << framework;
    QTest::newRow("libc10_cuda") << "/opt/libtorch/lib/libc10_cuda.so" << framework;
    QTest::newRow("torch _C")
        << "/venv/lib/python3.12/site-packages/torch/_C.cpython-312-x86_64-linux-gnu.so"
        << framework;
    QTest::newRow("libc") << "/lib/x86_64-linux-gnu/libc.so.6" << system;
    QTest::newRow("libstdc++") << "/lib/x86_64-linux-gnu/libstdc++.so.6" << system;
    QTest::newRow("libgcc_s") << "/lib/x86_64-linux-gnu/libgcc_s.so.1" << system;
    QTest::newRow("ld-linux") << "/lib64/ld-linux-x86-64.so.2" << system;
    QTest::newRow("vdso") << "linux-vdso.so.1" << system;
    QTest::newRow("python3.12") << "/usr/bin/python3.12" << interpreter;
    QTest::newRow("python") << "/venv/bin/python" << interpreter;
    QTest::newRow("libpython") << "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0" << interpreter;
    QTest::newRow("lib-dynload")
        << "/usr/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so" << interpreter;
    QTest::newRow("user exe") << "/home/me/build/train_app" << user;
    QTest::newRow("user lib with lib-c prefix") << "/home/me/build/libcustom_ops.so" << user;
    QTest::newRow("libcudaops is not libcuda") << "/home/me/build/libcudaops.so" << user;
    QTest::newRow("package in a wheel")
        << "/venv/lib/python3.12/site-packages/numpy.libs/libscipy_openblas64_-61654e39.so"
        << framework;
    QTest::newRow("cudart bundled in torch")
        << "/venv/lib/python3.12/site-packages/torch/lib/libcudart-9335f6a2.so.12" << cuda;
    QTest::newRow("distribution library") << "/lib/x86_64-linux-gnu/libcrypto.so.3" << system;
    QTest::newRow("user lib in /usr/local") << "/usr/local/lib/libmyops.so" << user;
    QTest::newRow("user extension built in place")
        << "/home/me/proj/myext/_ops.cpython-312-x86_64-linux-gnu.so" << user;
    QTest::newRow("pythonic user exe") << "/home/me/pytorch_bench" << user;
}

void TestModuleClass::classifiesModules() {
    QFETCH(QString, path);
    QFETCH(int, expected);
    QCOMPARE(int(classifyModule(path.toStdString())), expected);
}

void TestModuleClass::classifiesPythonFiles_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("user");
    QTest::newRow("script") << "/home/me/train.py" << true;
    QTest::newRow("relative script") << "train.py" << true;
    QTest::newRow("stdin") << "<stdin>" << true;
    QTest::newRow("torch in site-packages")
        << "/venv/lib/python3.12/site-packages/torch/_tensor.py" << false;
    QTest::newRow("torch in dist-packages")
        << "/usr/lib/python3/dist-packages/torch/cuda/__init__.py" << false;
    QTest::newRow("stdlib") << "/usr/lib/python3.12/threading.py" << false;
    QTest::newRow("stdlib lib64") << "/usr/lib64/python3.11/contextlib.py" << false;
    QTest::newRow("stdlib of a pyenv prefix")
        << "/home/me/.pyenv/versions/3.11.4/lib/python3.11/threading.py" << false;
    QTest::newRow("conda site-packages")
        << "/opt/conda/lib/python3.10/site-packages/lightning_fabric/utilities/apply_func.py"
        << false;
    QTest::newRow("zipped stdlib") << "/usr/lib/python312.zip/json/decoder.py" << false;
    QTest::newRow("pypy stdlib") << "/opt/pypy/lib/pypy3.10/threading.py" << false;
    QTest::newRow("user folder named lib/python_tools")
        << "/home/me/lib/python_tools/train.py" << true;
    QTest::newRow("user folder named lib/python") << "/home/me/lib/python/train.py" << true;
    QTest::newRow("user folder named lib/python3_scripts")
        << "/home/me/lib/python3_scripts/train.py" << true;
    QTest::newRow("free-threaded stdlib") << "/usr/lib/python3.13t/threading.py" << false;
    QTest::newRow("debian python3 dist-packages")
        << "/usr/lib/python3/dist-packages/numpy/core/numeric.py" << false;
    QTest::newRow("user folder named site-packages-notes")
        << "/home/me/site-packages-notes/train.py" << true;
    QTest::newRow("inductor generated code")
        << "/tmp/torchinductor_me/ab/cabcdef0123456789.py" << false;
    QTest::newRow("user file named like inductor") << "/home/me/torchinductor.py" << true;
    QTest::newRow("frozen") << "<frozen importlib._bootstrap>" << false;
    QTest::newRow("empty") << "" << false;
    QTest::newRow("exec'd or generated text") << "<string>" << false;
    QTest::newRow("fx graph") << "<eval_with_key>.3" << false;
    QTest::newRow("other pseudo file") << "<module>" << false;
    QTest::newRow("ipython cell") << "<ipython-input-3-1a2b3c>" << true;
    // Kineto's paths relative to their sys.path entry.
    QTest::newRow("relative torch") << "torch/nn/modules/module.py" << false;
    QTest::newRow("relative stdlib module") << "typing.py" << false;
    QTest::newRow("relative stdlib package") << "concurrent/futures/thread.py" << false;
    QTest::newRow("relative user package") << "models/net.py" << true;
    QTest::newRow("user module named like a prefix of one") << "typing_extras.py" << true;
}

void TestModuleClass::classifiesPythonFiles() {
    QFETCH(QString, file);
    QFETCH(bool, user);
    QCOMPARE(isUserPythonFile(file.toStdString()), user);
}

void TestModuleClass::labelsLibraryFiles_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("label");
    QTest::newRow("site-packages")
        << "/venv/lib/python3.12/site-packages/lightning_fabric/utilities/apply_func.py"
        << "lightning_fabric/utilities/apply_func.py";
    QTest::newRow("dist-packages") << "/usr/lib/python3/dist-packages/torch/cuda/__init__.py"
                                   << "torch/cuda/__init__.py";
    QTest::newRow("stdlib") << "/usr/lib/python3.12/concurrent/futures/thread.py"
                            << "concurrent/futures/thread.py";
    QTest::newRow("nested site-packages: the last one")
        << "/a/site-packages/vendored/site-packages/pkg/m.py"
        << "pkg/m.py";
    QTest::newRow("other absolute path: file name") << "/tmp/torchinductor_me/ab/cx.py"
                                                    << "cx.py";
    QTest::newRow("pseudo file") << "<frozen runpy>"
                                 << "<frozen runpy>";
    QTest::newRow("relative") << "torch/_tensor.py"
                              << "torch/_tensor.py";
    QTest::newRow("empty") << ""
                           << "";
}

void TestModuleClass::labelsLibraryFiles() {
    QFETCH(QString, file);
    QFETCH(QString, label);
    const std::string path = file.toStdString();
    QCOMPARE(QString::fromStdString(std::string(libraryFileLabel(path))), label);
}

void TestModuleClass::syncStackModules_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("aboveApiCall");
    QTest::addColumn<bool>("syncEntry");
    QTest::addColumn<bool>("cRuntime");
    QTest::newRow("recorder") << "libstallscope_recorder.so" << true << true << false;
    QTest::newRow("cupti") << "libcupti.so.13" << true << true << false;
    QTest::newRow("driver") << "libcuda.so.1" << true << true << false;
    QTest::newRow("runtime: the API call itself") << "libcudart.so.13" << false << true << false;
    QTest::newRow("libcudaops is not the driver") << "libcudaops.so" << false << false << false;
    QTest::newRow("cublas") << "libcublas.so.12" << false << false << false;
    QTest::newRow("libc") << "libc.so.6" << false << false << true;
    QTest::newRow("old glibc") << "libc-2.31.so" << false << false << true;
    QTest::newRow("libcrypto is not libc") << "libcrypto.so.3" << false << false << false;
    QTest::newRow("pthread") << "libpthread.so.0" << false << false << true;
    QTest::newRow("loader") << "ld-linux-x86-64.so.2" << false << false << true;
    QTest::newRow("libstdc++") << "libstdc++.so.6" << false << false << true;
    QTest::newRow("libgcc_s") << "libgcc_s.so.1" << false << false << true;
    QTest::newRow("libdl") << "libdl.so.2" << false << false << true;
    QTest::newRow("libdlfoo is not libdl") << "libdlfoo.so" << false << false << false;
    QTest::newRow("libm") << "libm.so.6" << false << false << true;
    QTest::newRow("libmyops is not libm") << "libmyops.so" << false << false << false;
    QTest::newRow("user") << "train_app" << false << false << false;
}

void TestModuleClass::syncStackModules() {
    QFETCH(QString, name);
    QFETCH(bool, aboveApiCall);
    QFETCH(bool, syncEntry);
    QFETCH(bool, cRuntime);
    const std::string module = name.toStdString();
    QCOMPARE(isAboveApiCallModule(module), aboveApiCall);
    QCOMPARE(isSyncEntryModule(module), syncEntry);
    QCOMPARE(isCRuntimeModule(module), cRuntime);
}

void TestModuleClass::namesClasses() {
    QCOMPARE(moduleClassName(ModuleClass::User), "user");
    QCOMPARE(moduleClassName(ModuleClass::CudaRuntime), "cuda-runtime");
    QCOMPARE(moduleClassName(ModuleClass::System), "system");
    QCOMPARE(moduleClassName(ModuleClass::Framework), "framework");
    QCOMPARE(moduleClassName(ModuleClass::Interpreter), "interpreter");
}

STALLSCOPE_TEST_APPLESS_MAIN(TestModuleClass)
#include "test_module_class.moc"
