// End-to-end symbolization: symtest_program (a -g PIE executable with a dlopen'ed -g library and a
// stripped copy of it) writes a session with raw return addresses; finalizeSymbols() must resolve
// them to the exact file:line, expand the inline chain, fall back to symbol names for the stripped
// library, survive unknown modules, mark user frames and embed user sources with their SHA-256.
#include "symbolize/elf_file_info.h"
#include "symbolize/finalize_symbols.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <map>
#include <optional>

using namespace stallscope;
using namespace stallscope::symbolize;

namespace {

struct FrameRecord {
    std::optional<std::string> function, file;
    std::optional<int64_t> line, column, isUser, moduleId;
    int64_t symbolized = 0;
};

struct InlineRecord {
    std::string function, file;
    int64_t line = 0;
};

// Read access to a session for assertions.
class SessionReader {
public:
    explicit SessionReader(const std::string& path) {
        sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE, nullptr);
    }
    ~SessionReader() { sqlite3_close(m_db); }

    std::vector<std::vector<std::string>> rows(const std::string& sql) const {
        std::vector<std::vector<std::string>> out;
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
            qWarning("SQL error: %s in %s", sqlite3_errmsg(m_db), sql.c_str());
            return out;
        }
        while (sqlite3_step(s) == SQLITE_ROW) {
            std::vector<std::string> row;
            for (int c = 0; c < sqlite3_column_count(s); ++c) {
                auto* text = sqlite3_column_text(s, c);
                row.push_back(text ? reinterpret_cast<const char*>(text) : "<null>");
            }
            out.push_back(row);
        }
        sqlite3_finalize(s);
        return out;
    }
    std::string value(const std::string& sql) const {
        auto result = rows(sql);
        return result.empty() || result[0].empty() ? std::string("<none>") : result[0][0];
    }
    int64_t number(const std::string& sql) const { return std::stoll(value(sql)); }
    int64_t expect(const std::string& key) const {
        return number("SELECT value FROM meta WHERE key = 'expect." + key + "'");
    }
    void exec(const std::string& sql) {
        sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, nullptr);
    }

    FrameRecord frame(int64_t id) const {
        FrameRecord record;
        sqlite3_stmt* s = nullptr;
        sqlite3_prepare_v2(m_db,
                           "SELECT function, file, line, column, is_user, symbolized, module_id "
                           "FROM frames WHERE id = ?",
                           -1, &s, nullptr);
        sqlite3_bind_int64(s, 1, id);
        if (sqlite3_step(s) == SQLITE_ROW) {
            auto text = [&](int c) -> std::optional<std::string> {
                if (sqlite3_column_type(s, c) == SQLITE_NULL)
                    return std::nullopt;
                return std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, c)));
            };
            auto integer = [&](int c) -> std::optional<int64_t> {
                if (sqlite3_column_type(s, c) == SQLITE_NULL)
                    return std::nullopt;
                return sqlite3_column_int64(s, c);
            };
            record.function = text(0);
            record.file = text(1);
            record.line = integer(2);
            record.column = integer(3);
            record.isUser = integer(4);
            record.symbolized = sqlite3_column_int64(s, 5);
            record.moduleId = integer(6);
        }
        sqlite3_finalize(s);
        return record;
    }

    std::vector<InlineRecord> inlines(int64_t frameId) const {
        std::vector<InlineRecord> out;
        for (const auto& row : rows("SELECT function, file, line FROM frame_inlines WHERE "
                                    "frame_id = " +
                                    std::to_string(frameId) + " ORDER BY depth"))
            out.push_back({row[0], row[1], std::stoll(row[2])});
        return out;
    }

private:
    sqlite3* m_db = nullptr;
};

bool endsWith(const std::optional<std::string>& text, const std::string& suffix) {
    return text && text->size() >= suffix.size() &&
           text->compare(text->size() - suffix.size(), suffix.size(), suffix) == 0;
}

QByteArray fileSha256(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex();
}

} // namespace

class TestSymbolize : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void resolvesPieExecutableFrame();
    void resolvesDlopenedLibraryFrame();
    void expandsInlineChain();
    void strippedLibraryGivesNamesWithoutLines();
    void dynamicSymbolsNameExportedFunctions();
    void findsSeparateDebugFileByBuildId();
    void changedBinaryIsNotTrusted();
    void unknownModulesDoNotFailTheSession();
    void marksUserFramesAndStacks();
    void embedsUserSourcesWithHash();
    void truncatesLargeSources();
    void rerunIsIdempotent();
    void keepsPresetPythonVerdicts();
    void refusesFilesThatAreNotSessions();

private:
    // A fresh copy of the program's session, so every test finalizes its own; empty when it cannot
    // be copied (which fails the test).
    std::string freshSession(const char* name);
    bool finalize(const std::string& path, SymbolizeStats* stats = nullptr,
                  SymbolizeOptions options = {});

    QTemporaryDir m_dir;
    QString m_template;
};

void TestSymbolize::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_template = m_dir.filePath("template.stallscope");
    QProcess program;
    program.start(SYMTEST_PROGRAM, {m_template, SYMTEST_LIB, SYMTEST_STRIPPED_LIB, SYMTEST_SCRIPT});
    QVERIFY(program.waitForFinished(60000));
    QVERIFY2(program.exitCode() == 0, program.readAllStandardError().constData());
}

std::string TestSymbolize::freshSession(const char* name) {
    const QString path = m_dir.filePath(QString::fromLatin1(name) + ".stallscope");
    QFile::remove(path);
    if (!QFile::copy(m_template, path)) {
        STALLSCOPE_FAIL("cannot copy the template session %s to %s", qPrintable(m_template),
                        qPrintable(path));
        return {};
    }
    return path.toStdString();
}

bool TestSymbolize::finalize(const std::string& path, SymbolizeStats* stats,
                             SymbolizeOptions options) {
    std::string error;
    SymbolizeStats local;
    const bool ok = finalizeSymbols(path, options, &error, stats ? stats : &local);
    if (!ok)
        qWarning("finalizeSymbols: %s", error.c_str());
    return ok;
}

void TestSymbolize::resolvesPieExecutableFrame() {
    const std::string path = freshSession("pie");
    QVERIFY(!path.empty());
    QVERIFY(finalize(path));
    SessionReader session(path);
    const FrameRecord frame = session.frame(session.expect("program.frame"));
    QCOMPARE(frame.symbolized, int64_t(1));
    QCOMPARE(frame.function.value_or("<null>"), std::string("app::issueSync(int*)"));
    QVERIFY2(endsWith(frame.file, "tests/symbolize/symtest_program.cpp"),
             frame.file.value_or("<null>").c_str());
    QCOMPARE(frame.line.value_or(-1), session.expect("program.line"));
    QVERIFY(frame.column.value_or(0) > 0);
}

void TestSymbolize::resolvesDlopenedLibraryFrame() {
    const std::string path = freshSession("dlopen");
    QVERIFY(!path.empty());
    QVERIFY(finalize(path));
    SessionReader session(path);
    const int64_t id = session.expect("lib_plain.frame");
    const FrameRecord frame = session.frame(id);
    QCOMPARE(frame.function.value_or("<null>"), std::string("symtest::plainSite(SymtestSites*)"));
    QCOMPARE(frame.file.value_or("<null>"), std::string(SYMTEST_LIB_SOURCE));
    QCOMPARE(frame.line.value_or(-1), session.expect("lib_plain.line"));
    QVERIFY(session.inlines(id).empty()); // no inlining at this PC: no chain rows
}

void TestSymbolize::expandsInlineChain() {
    const std::string path = freshSession("inline");
    QVERIFY(!path.empty());
    QVERIFY(finalize(path));
    SessionReader session(path);
    const int64_t id = session.expect("lib_inline.frame");
    const FrameRecord frame = session.frame(id);
    // The frames row is the innermost level: the inlined function, at its own line.
    QCOMPARE(frame.function.value_or("<null>"),
             std::string("symtest::inlinedHelper(SymtestSites*)"));
    QCOMPARE(frame.file.value_or("<null>"), std::string(SYMTEST_LIB_SOURCE));
    QCOMPARE(frame.line.value_or(-1), session.expect("lib_inline.line"));
    // The chain: depth 0 = the inlined function (as the frames row), depth 1 = its caller at the
    // line where it was inlined.
    const auto chain = session.inlines(id);
    QCOMPARE(chain.size(), size_t(2));
    QCOMPARE(chain[0].function, std::string("symtest::inlinedHelper(SymtestSites*)"));
    QCOMPARE(chain[0].line, session.expect("lib_inline.line"));
    QCOMPARE(chain[1].function, std::string("symtest::outerCaller(SymtestSites*)"));
    QCOMPARE(chain[1].file, std::string(SYMTEST_LIB_SOURCE));
    QCOMPARE(chain[1].line, session.expect("lib_inline.outer_line"));
}

void TestSymbolize::strippedLibraryGivesNamesWithoutLines() {
    const std::string path = freshSession("stripped");
    QVERIFY(!path.empty());
    SymbolizeOptions options;
    options.debugDirectories = {m_dir.filePath("no-debug-here").toStdString()};
    QVERIFY(finalize(path, nullptr, options));
    SessionReader session(path);
    const FrameRecord plain = session.frame(session.expect("stripped_plain.frame"));
    QCOMPARE(plain.symbolized, int64_t(1));
    // The symbol table has the mangled name; the demangled one is stored (no parameters: ELF
    // symbols of C++ functions carry them only in the mangling, which LLVM demangles fully).
    QVERIFY2(plain.function && plain.function->rfind("symtest::plainSite", 0) == 0,
             plain.function.value_or("<null>").c_str());
    QVERIFY(!plain.file);
    QVERIFY(!plain.line);
    // Without DWARF the inlined helper is invisible: the PC belongs to the out-of-line caller.
    const int64_t inlineId = session.expect("stripped_inline.frame");
    const FrameRecord inlined = session.frame(inlineId);
    QVERIFY2(inlined.function && inlined.function->rfind("symtest::outerCaller", 0) == 0,
             inlined.function.value_or("<null>").c_str());
    QVERIFY(!inlined.line);
    QVERIFY(session.inlines(inlineId).empty());
}

void TestSymbolize::dynamicSymbolsNameExportedFunctions() {
    // A copy stripped of .symtab too (as release builds of libtorch ship): only .dynsym is left.
    const std::string path = freshSession("dynsym");
    QVERIFY(!path.empty());
    {
        SessionReader edit(path);
        edit.exec(std::string("UPDATE modules SET path = '") + SYMTEST_STRIPPED_ALL_LIB +
                  "' WHERE path = '" + SYMTEST_STRIPPED_LIB + "'");
    }
    SymbolizeOptions options;
    options.debugDirectories = {m_dir.filePath("no-debug-here").toStdString()};
    QVERIFY(finalize(path, nullptr, options));
    SessionReader session(path);
    const FrameRecord entry = session.frame(session.expect("stripped_entry.frame"));
    QCOMPARE(entry.symbolized, int64_t(1));
    QCOMPARE(entry.function.value_or("<null>"), std::string("symtestLibRun"));
    QVERIFY(!entry.line);
    // Hidden functions are in no symbol table now; they must not borrow an exported neighbour's
    // name.
    const FrameRecord plain = session.frame(session.expect("stripped_plain.frame"));
    QCOMPARE(plain.symbolized, int64_t(0));
    QVERIFY(!plain.function);
    QCOMPARE(session.number("SELECT count(*) FROM diagnostics WHERE message LIKE "
                            "'%libsymtest_lib_stripped_all.so%match no symbol%'"),
             int64_t(1));
    // The unstripped copy's entry point resolves to its line.
    const FrameRecord libEntry = session.frame(session.expect("lib_entry.frame"));
    QCOMPARE(libEntry.line.value_or(-1), session.expect("lib_entry.line"));
}

void TestSymbolize::findsSeparateDebugFileByBuildId() {
    // /usr/lib/debug layout in a private root: <root>/.build-id/xx/yyyy.debug
    ElfFileInfo info;
    std::string error;
    QVERIFY2(info.read(SYMTEST_STRIPPED_LIB, &error), error.c_str());
    QVERIFY(!info.buildId().empty());
    const QString root = m_dir.filePath("debug-root");
    const QString debugPath =
        QString::fromStdString(ElfFileInfo::buildIdDebugPath(root.toStdString(), info.buildId()));
    QVERIFY(QDir().mkpath(QFileInfo(debugPath).path()));
    QFile::remove(debugPath);
    QVERIFY(QFile::copy(SYMTEST_DEBUG_FILE, debugPath));

    const std::string path = freshSession("debugfile");

    QVERIFY(!path.empty());
    SymbolizeOptions options;
    options.debugDirectories = {root.toStdString()};
    QVERIFY(finalize(path, nullptr, options));
    SessionReader session(path);
    const int64_t id = session.expect("stripped_inline.frame");
    const FrameRecord frame = session.frame(id);
    QCOMPARE(frame.function.value_or("<null>"),
             std::string("symtest::inlinedHelper(SymtestSites*)"));
    QCOMPARE(frame.line.value_or(-1), session.expect("lib_inline.line"));
    QCOMPARE(session.inlines(id).size(), size_t(2));

    // The binary itself gone: the debug file found by the RECORDED build id stands in for it.
    const std::string moved = freshSession("debugfile-moved");
    QVERIFY(!moved.empty());
    {
        SessionReader edit(moved);
        edit.exec("UPDATE modules SET path = '/gone/libsymtest_lib_stripped.so' "
                  "WHERE path LIKE '%libsymtest_lib_stripped.so'");
    }
    QVERIFY(finalize(moved, nullptr, options));
    SessionReader movedSession(moved);
    QCOMPARE(movedSession.frame(movedSession.expect("stripped_plain.frame")).line.value_or(-1),
             movedSession.expect("lib_plain.line"));
}

void TestSymbolize::changedBinaryIsNotTrusted() {
    const std::string path = freshSession("changed");
    QVERIFY(!path.empty());
    {
        SessionReader edit(path);
        edit.exec("UPDATE modules SET build_id = '00112233445566778899aabbccddeeff00112233' "
                  "WHERE path LIKE '%/libsymtest_lib.so'");
    }
    SymbolizeStats stats;
    SymbolizeOptions options;
    options.debugDirectories = {m_dir.filePath("no-debug-here").toStdString()};
    QVERIFY(finalize(path, &stats, options));
    SessionReader session(path);
    const FrameRecord frame = session.frame(session.expect("lib_plain.frame"));
    QCOMPARE(frame.symbolized, int64_t(0));
    QVERIFY(!frame.function);
    QCOMPARE(session.number("SELECT count(*) FROM diagnostics WHERE message LIKE "
                            "'%libsymtest_lib.so%build id%'"),
             int64_t(1));
}

void TestSymbolize::unknownModulesDoNotFailTheSession() {
    const std::string path = freshSession("unknown");
    QVERIFY(!path.empty());
    SymbolizeStats stats;
    QVERIFY(finalize(path, &stats));
    SessionReader session(path);
    for (const char* key : {"ghost.frame", "cuda.frame", "nowhere.frame"}) {
        const FrameRecord frame = session.frame(session.expect(key));
        QCOMPARE(frame.symbolized, int64_t(0));
        QVERIFY(!frame.function);
    }
    QCOMPARE(session.number("SELECT count(*) FROM diagnostics WHERE severity = 'warning' AND "
                            "message LIKE '%/nonexistent/libghost.so%left unresolved%'"),
             int64_t(1));
    QCOMPARE(session.number("SELECT count(*) FROM diagnostics WHERE message LIKE "
                            "'%lie in no recorded module%'"),
             int64_t(1));
    QCOMPARE(stats.unresolvedFrames, int64_t(3));
    QCOMPARE(session.value("SELECT value FROM meta WHERE key = 'symbolize_unresolved_frames'"),
             std::string("3"));
    // Everything else still resolved.
    QCOMPARE(stats.resolvedFrames, stats.nativeFrames - 3);
    QCOMPARE(session.value("SELECT value FROM meta WHERE key = 'status'"), std::string("complete"));
}

void TestSymbolize::marksUserFramesAndStacks() {
    const std::string path = freshSession("user");
    QVERIFY(!path.empty());
    SymbolizeStats stats;
    QVERIFY(finalize(path, &stats));
    SessionReader session(path);
    const std::map<std::string, int64_t> expected = {
        {"program.frame", 1},        {"lib_plain.frame", 1},       {"lib_inline.frame", 1},
        {"stripped_plain.frame", 1}, {"stripped_inline.frame", 1}, {"libc.frame", 0},
        {"cuda.frame", 0},           {"ghost.frame", 1},           {"nowhere.frame", 0},
        {"py_user.frame", 1},        {"py_torch.frame", 0}};
    for (const auto& [key, isUser] : expected) {
        const FrameRecord frame = session.frame(session.expect(key));
        QVERIFY2(frame.isUser.has_value(), key.c_str());
        QVERIFY2(*frame.isUser == isUser, key.c_str());
    }
    // libc's frame resolved too, by its (dynamic) symbol table.
    QVERIFY(session.frame(session.expect("libc.frame")).function.has_value());
    QCOMPARE(stats.stacks, int64_t(4));
    QCOMPARE(stats.stacksWithUserFrame, int64_t(3));
    QCOMPARE(stats.driverInternalStacks, int64_t(1));
    QCOMPARE(session.value("SELECT value FROM meta WHERE key = 'symbolize_driver_internal_stacks'"),
             std::string("1"));
}

void TestSymbolize::embedsUserSourcesWithHash() {
    const std::string path = freshSession("sources");
    QVERIFY(!path.empty());
    SymbolizeStats stats;
    QVERIFY(finalize(path, &stats));
    SessionReader session(path);
    for (const char* source : {SYMTEST_LIB_SOURCE, SYMTEST_PROGRAM_SOURCE, SYMTEST_SCRIPT}) {
        const auto rows = session.rows(std::string("SELECT sha256, size_bytes, truncated, text "
                                                   "FROM sources WHERE path = '") +
                                       source + "'");
        QVERIFY2(rows.size() == 1, source);
        QFile file(source);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray content = file.readAll();
        QCOMPARE(QByteArray::fromStdString(rows[0][0]), fileSha256(source));
        QCOMPARE(std::stoll(rows[0][1]), int64_t(content.size()));
        QCOMPARE(rows[0][2], std::string("0"));
        QCOMPARE(QByteArray::fromStdString(rows[0][3]), content);
    }
    // Non-user files (torch's Python, libc's sources) are not embedded.
    QCOMPARE(session.number("SELECT count(*) FROM sources WHERE path LIKE '%torch%'"), int64_t(0));
    QCOMPARE(session.number("SELECT count(*) FROM sources"), int64_t(3));
    QCOMPARE(stats.sourcesEmbedded, int64_t(3));
}

void TestSymbolize::truncatesLargeSources() {
    const std::string path = freshSession("truncated");
    QVERIFY(!path.empty());
    SymbolizeOptions options;
    options.sourceSizeCap = 300;
    QVERIFY(finalize(path, nullptr, options));
    SessionReader session(path);
    const auto rows = session.rows(std::string("SELECT sha256, size_bytes, truncated, text FROM "
                                               "sources WHERE path = '") +
                                   SYMTEST_LIB_SOURCE + "'");
    QCOMPARE(rows.size(), size_t(1));
    QCOMPARE(rows[0][2], std::string("1"));
    QCOMPARE(QByteArray::fromStdString(rows[0][0]), fileSha256(SYMTEST_LIB_SOURCE)); // whole file
    QVERIFY(rows[0][3].size() <= 300);
    QVERIFY(!rows[0][3].empty() && rows[0][3].back() == '\n');
    QCOMPARE(std::stoll(rows[0][1]), QFileInfo(SYMTEST_LIB_SOURCE).size());
}

void TestSymbolize::rerunIsIdempotent() {
    const std::string path = freshSession("rerun");
    QVERIFY(!path.empty());
    SymbolizeStats first, second;
    QVERIFY(finalize(path, &first));
    SessionReader session(path);
    const int64_t inlineRows = session.number("SELECT count(*) FROM frame_inlines");
    QVERIFY(finalize(path, &second));
    // Only the unresolved frames are tried again; nothing is duplicated.
    QCOMPARE(second.nativeFrames, first.unresolvedFrames);
    QCOMPARE(session.number("SELECT count(*) FROM frame_inlines"), inlineRows);
    QCOMPARE(session.number("SELECT count(*) FROM sources"), int64_t(3));
    SymbolizeOptions again;
    again.resymbolize = true;
    QVERIFY(finalize(path, nullptr, again));
    QCOMPARE(session.number("SELECT count(*) FROM frame_inlines"), inlineRows);
}

void TestSymbolize::keepsPresetPythonVerdicts() {
    // The Kineto importer sets is_user for Python frames itself; even --resymbolize keeps it.
    const std::string path = freshSession("preset");
    QVERIFY(!path.empty());
    SessionReader session(path);
    const int64_t id = session.expect("py_user.frame");
    session.exec("UPDATE frames SET is_user = 0 WHERE id = " + std::to_string(id));
    SymbolizeOptions options;
    options.resymbolize = true;
    QVERIFY(finalize(path, nullptr, options));
    QCOMPARE(session.frame(id).isUser.value_or(-1), int64_t(0));
    QCOMPARE(session.frame(session.expect("program.frame")).isUser.value_or(-1), int64_t(1));
}

void TestSymbolize::refusesFilesThatAreNotSessions() {
    const QString path = m_dir.filePath("other.db");
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    std::string error;
    QVERIFY(!finalizeSymbols(path.toStdString(), {}, &error));
    QVERIFY2(error.find(path.toStdString()) == 0, error.c_str());
    QVERIFY2(error.find("not a Stallscope session") != std::string::npos, error.c_str());
    QVERIFY(!finalizeSymbols(m_dir.filePath("missing.stallscope").toStdString(), {}, &error));
    QVERIFY2(error.find("missing.stallscope") != std::string::npos, error.c_str());
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSymbolize)
#include "test_symbolize.moc"
