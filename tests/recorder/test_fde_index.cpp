// FdeIndex: after indexing, every lookup names the FDE libgcc's _Unwind_Find_FDE names, and every
// unwind rule the unwinder computes is the same as without the index — on thousands of PCs of the
// loaded libraries (libLLVM's 95,000 FDEs when it is installed, as on CI); a module loaded later is
// looked up by libgcc until it is indexed; a crafted header (bad version, foreign encodings, a
// count past its segment, a header outside every segment) gives no table.
#include "recorder/cfi_rule.h"
#include "recorder/fde_index.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <vector>

using stallscope::recorder::CfiRule;
using stallscope::recorder::cfiRuleAt;
using stallscope::recorder::FdeIndex;

extern "C" const void* _Unwind_Find_FDE(void* pc, void* bases);

namespace {

const void* libgccFde(uintptr_t pc) {
    void* bases[3] = {};
    return _Unwind_Find_FDE(reinterpret_cast<void*>(pc), bases);
}

// PCs spread over every module with a table: function starts, the byte after, and the byte before
// the next function (inside the function, or in the gap after it).
int samplePcs(dl_phdr_info* info, size_t, void* data) {
    auto* pcs = static_cast<std::vector<uintptr_t>*>(data);
    FdeIndex::Table table = FdeIndex::tableOf(*info);
    if (table.count < 2)
        return 0;
    const uint32_t step = std::max<uint32_t>(1, table.count / 2000);
    for (uint32_t i = 0; i + 1 < table.count; i += step) {
        uintptr_t at = table.header + intptr_t(table.entries[2 * i]);
        uintptr_t next = table.header + intptr_t(table.entries[2 * i + 2]);
        pcs->insert(pcs->end(), {at, at + 1, next - 1});
    }
    pcs->push_back(table.header + intptr_t(table.entries[2 * (table.count - 1)]) + 1);
    return 0;
}

bool sameRule(const CfiRule& a, const CfiRule& b) {
    return a.valid == b.valid && a.cfaOffset == b.cfaOffset && a.cfaIsRbp == b.cfaIsRbp &&
           a.rbpSaved == b.rbpSaved && a.rbpOffset == b.rbpOffset && a.raOffset == b.raOffset;
}

// A module image in a buffer: one PT_LOAD over `image`, a PT_GNU_EH_FRAME at `headerOffset`.
struct CraftedModule {
    alignas(8) uint8_t image[4096] = {};
    ElfW(Phdr) headers[2] = {};
    dl_phdr_info info = {};

    CraftedModule(size_t headerOffset, size_t headerSize, uint32_t count) {
        headers[0].p_type = PT_LOAD;
        headers[0].p_vaddr = reinterpret_cast<uintptr_t>(image);
        headers[0].p_memsz = sizeof image;
        headers[1].p_type = PT_GNU_EH_FRAME;
        headers[1].p_vaddr = reinterpret_cast<uintptr_t>(image) + headerOffset;
        headers[1].p_memsz = headerSize;
        info.dlpi_phdr = headers;
        info.dlpi_phnum = 2;
        if (headerOffset + 12 <= sizeof image) {
            uint8_t* header = image + headerOffset;
            header[0] = 1;
            header[1] = 0x1b;
            header[2] = 0x03;
            header[3] = 0x3b;
            memcpy(header + 8, &count, sizeof count);
        }
    }
};

} // namespace

class TestFdeIndex : public QObject {
    Q_OBJECT
private slots:
    void indexFindsWhatLibgccFinds() {
        // libLLVM (CI installs it for the symbolizer): a large table, like libtorch's.
        void* llvm = dlopen("libLLVM-14.so.1", RTLD_NOW | RTLD_LOCAL);
        std::vector<uintptr_t> pcs;
        dl_iterate_phdr(samplePcs, &pcs);
        QVERIFY2(pcs.size() > 1000, qPrintable(QString::number(pcs.size())));
        std::vector<const void*> libgcc;
        std::vector<CfiRule> before;
        for (uintptr_t pc : pcs) {
            QVERIFY(FdeIndex::find(pc) == nullptr || FdeIndex::indexedModules() > 0);
            libgcc.push_back(libgccFde(pc));
            before.push_back(cfiRuleAt(pc, false));
        }
        FdeIndex index;
        QVERIFY(index.indexNewModules() >= 3); // this test, libc, libstdc++ (and more)
        size_t found = 0, inside = 0, validRules = 0;
        for (size_t i = 0; i < pcs.size(); ++i) {
            const uint8_t* fde = FdeIndex::find(pcs[i]);
            found += fde != nullptr;
            if (libgcc[i]) {
                ++inside;
                QCOMPARE(static_cast<const void*>(fde), libgcc[i]);
            }
            const CfiRule after = cfiRuleAt(pcs[i], false);
            validRules += after.valid;
            QVERIFY2(sameRule(before[i], after), qPrintable(QString::number(pcs[i], 16)));
        }
        qInfo("%zu PCs (libLLVM %s): %zu in an FDE by libgcc, %zu valid rules", pcs.size(),
              llvm ? "loaded" : "not installed", inside, validRules);
        QVERIFY(inside > pcs.size() / 2);
        QVERIFY(validRules > pcs.size() / 2);
        QCOMPARE(found, pcs.size()); // every PC of an indexed module resolves through its index
        QVERIFY(FdeIndex::indexBytes() > 0);
        QCOMPARE(index.indexNewModules(), 0); // nothing loaded since
        if (llvm)
            dlclose(llvm);
    }

    void aModuleLoadedLaterIsIndexedOnTheNextPass() {
        FdeIndex index;
        index.indexNewModules();
        void* handle = dlopen(STALLSCOPE_TINY_MODULE, RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(handle, dlerror());
        void* function = dlsym(handle, "stallscopeTinyModuleFunction");
        QVERIFY2(function, dlerror());
        const auto pc = reinterpret_cast<uintptr_t>(function) + 1;
        QVERIFY(FdeIndex::find(pc) == nullptr); // not indexed yet: libgcc answers
        QVERIFY(libgccFde(pc) != nullptr);
        QCOMPARE(index.indexNewModules(), 1);
        QCOMPARE(static_cast<const void*>(FdeIndex::find(pc)), libgccFde(pc));
        // Not a module's address: no index, no answer.
        int local = 0;
        QVERIFY(FdeIndex::find(reinterpret_cast<uintptr_t>(&local)) == nullptr);
        dlclose(handle);
    }

    void craftedHeadersGiveNoTable() {
        CraftedModule good(0, 12 + 2 * 8, 2);
        FdeIndex::Table table = FdeIndex::tableOf(good.info);
        QCOMPARE(table.count, 2u);
        QCOMPARE(table.header, reinterpret_cast<uintptr_t>(good.image));

        CraftedModule badVersion(0, 28, 2);
        badVersion.image[0] = 2;
        QCOMPARE(FdeIndex::tableOf(badVersion.info).count, 0u);
        CraftedModule foreignEncoding(0, 28, 2);
        foreignEncoding.image[3] = 0x03; // absolute entries: not the layout the index reads
        QCOMPARE(FdeIndex::tableOf(foreignEncoding.info).count, 0u);
        CraftedModule tooMany(0, 28, 3); // room for 2 entries
        QCOMPARE(FdeIndex::tableOf(tooMany.info).count, 0u);
        CraftedModule huge(0, 28, 0xffffffffu);
        QCOMPARE(FdeIndex::tableOf(huge.info).count, 0u);
        CraftedModule empty(0, 28, 0);
        QCOMPARE(FdeIndex::tableOf(empty.info).count, 0u);
        CraftedModule outside(4000, 200, 2); // past the only PT_LOAD: nothing is read
        QCOMPARE(FdeIndex::tableOf(outside.info).count, 0u);
        CraftedModule misaligned(2, 28, 2);
        QCOMPARE(FdeIndex::tableOf(misaligned.info).count, 0u);
    }

    void threadIndexesAndSaysSo() {
        FdeIndex index;
        QCOMPARE(index.describe(), std::string("off"));
        index.start();
        QTRY_VERIFY(FdeIndex::indexedModules() > 0);
        index.stop();
        const std::string text = index.describe();
        QVERIFY2(text.find(" modules, ") != std::string::npos &&
                     text.find(" KiB") != std::string::npos,
                 text.c_str());
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestFdeIndex)
#include "test_fde_index.moc"
