// The symbolizer's pure rules: stack verdicts, path remapping and the SHA-256 used for embedded
// sources.
#include "format/path_remap.h"
#include "symbolize/sha256.h"
#include "symbolize/user_frame_filter.h"
#include "tests/support/test_suite.h"

#include <QCryptographicHash>
#include <QTest>

using namespace stallscope::symbolize;
using namespace stallscope::format;

class TestSymbolizeRules : public QObject {
    Q_OBJECT
private slots:
    void stackVerdicts();
    void remapsPaths();
    void parsesRemapRules();
    void sha256KnownVectors();
    void sha256MatchesQtInPieces();
};

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
    // A ".." component after the matched prefix could climb out of the rule's folder: no rule
    // applies, whichever separator; ".." inside a name is an ordinary name.
    QCOMPARE(remapByRules("/ci/src/../../home/me/.ssh/id_rsa", rules), std::nullopt);
    QCOMPARE(remapByRules("/ci/src/a/..", rules), std::nullopt);
    QCOMPARE(remapByRules("/build\\..\\secret", rules), std::nullopt);
    QCOMPARE(remapByRules("/ci/src/a..b/..c.cpp", rules),
             std::optional<std::string>("/home/me/src/a..b/..c.cpp"));
    QCOMPARE(remapByRules("/other/a.cpp", rules), std::nullopt);
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

STALLSCOPE_TEST_GUILESS_MAIN(TestSymbolizeRules)
#include "test_symbolize_rules.moc"
