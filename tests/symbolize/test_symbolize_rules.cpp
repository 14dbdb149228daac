// The symbolizer's pure rules: which modules and Python files are user code, stack verdicts,
// path remapping and the SHA-256 used for embedded sources.
#include "format/path_remap.h"
#include "symbolize/sha256.h"
#include "symbolize/user_frame_filter.h"

#include <QCryptographicHash>
#include <QTest>

using namespace stallscope::symbolize;
using namespace stallscope::format;

class TestSymbolizeRules : public QObject {
    Q_OBJECT
private slots:
    void classifiesModules_data();
    void classifiesModules();
    void classifiesPythonFiles_data();
    void classifiesPythonFiles();
    void stackVerdicts();
    void remapsPaths();
    void parsesRemapRules();
    void sha256KnownVectors();
    void sha256MatchesQtInPieces();
};

void TestSymbolizeRules::classifiesModules_data() {
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

void TestSymbolizeRules::classifiesModules() {
    QFETCH(QString, path);
    QFETCH(int, expected);
    QCOMPARE(int(UserFrameFilter::classifyModule(path.toStdString())), expected);
}

void TestSymbolizeRules::classifiesPythonFiles_data() {
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
    QTest::newRow("frozen") << "<frozen importlib._bootstrap>" << false;
    QTest::newRow("empty") << "" << false;
}

void TestSymbolizeRules::classifiesPythonFiles() {
    QFETCH(QString, file);
    QFETCH(bool, user);
    QCOMPARE(UserFrameFilter::isUserPythonFile(file.toStdString()), user);
}

void TestSymbolizeRules::stackVerdicts() {
    using Facts = UserFrameFilter::FrameFacts;
    const Facts cuda{false, false, ModuleClass::CudaRuntime, true};
    const Facts libc{false, false, ModuleClass::System, true};
    const Facts torch{false, false, ModuleClass::Framework, true};
    const Facts userNative{false, true, ModuleClass::User, true};
    const Facts pyTorch{true, false, ModuleClass::User, false};
    const Facts pyUser{true, true, ModuleClass::User, false};
    const Facts unknown{false, false, ModuleClass::User, false};
    int index = -1;
    {
        const Facts frames[] = {cuda, torch, pyTorch, pyUser, userNative};
        QCOMPARE(UserFrameFilter::classifyStack(frames, &index), StackVerdict::UserFrame);
        QCOMPARE(index, 3);
    }
    {
        const Facts frames[] = {cuda, cuda, libc, unknown};
        QCOMPARE(UserFrameFilter::classifyStack(frames, &index), StackVerdict::DriverInternal);
    }
    {
        const Facts frames[] = {cuda, torch, libc};
        QCOMPARE(UserFrameFilter::classifyStack(frames, &index), StackVerdict::NoUserFrame);
    }
    {
        const Facts frames[] = {unknown, libc};
        QCOMPARE(UserFrameFilter::classifyStack(frames, &index), StackVerdict::NoUserFrame);
    }
    QCOMPARE(UserFrameFilter::classifyStack({}, &index), StackVerdict::NoUserFrame);
}

void TestSymbolizeRules::remapsPaths() {
    const std::vector<PathRemapRule> rules = {
        {"/ci/src", "/home/me/src"},
        {"/ci/src/third_party/", "/opt/tp/"},
        {"/build", "/mnt/build/"},
    };
    QCOMPARE(remapPath("/ci/src/a/b.cpp", rules), std::string("/home/me/src/a/b.cpp"));
    QCOMPARE(remapPath("/ci/src/third_party/x.h", rules), std::string("/opt/tp/x.h"));
    QCOMPARE(remapPath("/build/gen.cpp", rules), std::string("/mnt/build/gen.cpp"));
    QCOMPARE(remapPath("/ci/src", rules), std::string("/home/me/src"));
    // Component boundary: "/ci/srcx" is not under "/ci/src".
    QCOMPARE(remapPath("/ci/srcx/a.cpp", rules), std::string("/ci/srcx/a.cpp"));
    QCOMPARE(remapPath("/other/a.cpp", rules), std::string("/other/a.cpp"));
    QCOMPARE(remapPath("/ci/src/a.cpp", {}), std::string("/ci/src/a.cpp"));
}

void TestSymbolizeRules::parsesRemapRules() {
    PathRemapRule rule;
    QVERIFY(parsePathRemapRule("/a=/b", &rule));
    QCOMPARE(rule.from, std::string("/a"));
    QCOMPARE(rule.to, std::string("/b"));
    QVERIFY(!parsePathRemapRule("/a", &rule));
    QVERIFY(!parsePathRemapRule("=/b", &rule));
}

void TestSymbolizeRules::sha256KnownVectors() {
    QCOMPARE(Sha256::hexOf(""),
             std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(Sha256::hexOf("abc"),
             std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(Sha256::hexOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
             std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
}

void TestSymbolizeRules::sha256MatchesQtInPieces() {
    // Odd piece sizes exercise the partial-block buffering.
    QByteArray data;
    for (int i = 0; i < 100000; ++i)
        data.append(char(i * 7 + (i >> 5)));
    Sha256 hash;
    for (int at = 0, step = 1; at < data.size(); at += step, step = step % 131 + 7)
        hash.update(data.constData() + at, size_t(std::min<qsizetype>(step, data.size() - at)));
    QCOMPARE(QByteArray::fromStdString(hash.finishHex()),
             QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
}

QTEST_GUILESS_MAIN(TestSymbolizeRules)
#include "test_symbolize_rules.moc"
