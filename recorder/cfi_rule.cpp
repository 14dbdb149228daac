// cfiRuleAt: finds a PC's FDE (FdeIndex, else libgcc), runs its CIE's and its own CFA
// instructions up to the PC, and reduces the row to a CfiRule.
#include "recorder/cfi_rule.h"

#include "recorder/fde_index.h"

#include <cstdint>
#include <cstring>

// libgcc's FDE lookup (exported by libgcc_s since GCC 3.0). It finds the FDE of any loaded module,
// including ones dlopen'ed later, and on glibc >= 2.35 it is lock-free (_dl_find_object).
struct StallscopeEhBases {
    void* tbase;
    void* dbase;
    void* func;
};
extern "C" const void* _Unwind_Find_FDE(void* pc, StallscopeEhBases* bases);

namespace stallscope::recorder {

namespace {

constexpr int kRegRbp = 6;
constexpr int kRegRsp = 7;

// ---- DWARF reading -------------------------------------------------------------------------

struct Reader {
    const uint8_t* p;
    const uint8_t* end;
    bool ok = true;

    bool has(size_t n) {
        if (static_cast<size_t>(end - p) < n)
            ok = false;
        return ok;
    }
    template <typename T> T fixed() {
        T v{};
        if (!has(sizeof(T)))
            return v;
        memcpy(&v, p, sizeof(T));
        p += sizeof(T);
        return v;
    }
    uint64_t uleb() {
        uint64_t result = 0;
        int shift = 0;
        while (has(1)) {
            uint8_t byte = *p++;
            if (shift < 64)
                result |= uint64_t(byte & 0x7f) << shift;
            shift += 7;
            if (!(byte & 0x80))
                break;
        }
        return result;
    }
    int64_t sleb() {
        int64_t result = 0;
        int shift = 0;
        uint8_t byte = 0;
        while (has(1)) {
            byte = *p++;
            if (shift < 64)
                result |= int64_t(byte & 0x7f) << shift;
            shift += 7;
            if (!(byte & 0x80))
                break;
        }
        if (shift < 64 && (byte & 0x40))
            result |= -(int64_t(1) << shift);
        return result;
    }
    // DW_EH_PE_* encoded pointer.
    uintptr_t encoded(uint8_t encoding, const StallscopeEhBases& bases) {
        if (encoding == 0xff) // DW_EH_PE_omit
            return 0;
        const uint8_t* fieldAddress = p;
        uintptr_t value = 0;
        switch (encoding & 0x0f) {
        case 0x00:
            value = fixed<uint64_t>();
            break;
        case 0x01:
            value = uleb();
            break;
        case 0x02:
            value = fixed<uint16_t>();
            break;
        case 0x03:
            value = fixed<uint32_t>();
            break;
        case 0x04:
            value = fixed<uint64_t>();
            break;
        case 0x09:
            value = uintptr_t(sleb());
            break;
        case 0x0a:
            value = uintptr_t(int64_t(fixed<int16_t>()));
            break;
        case 0x0b:
            value = uintptr_t(int64_t(fixed<int32_t>()));
            break;
        case 0x0c:
            value = fixed<uint64_t>();
            break;
        default:
            ok = false;
            return 0;
        }
        if (value == 0 && (encoding & 0x70) != 0x10)
            return 0;
        switch (encoding & 0x70) {
        case 0x00:
            break;
        case 0x10:
            value += reinterpret_cast<uintptr_t>(fieldAddress);
            break;
        case 0x20:
            value += reinterpret_cast<uintptr_t>(bases.tbase);
            break;
        case 0x30:
            value += reinterpret_cast<uintptr_t>(bases.dbase);
            break;
        case 0x40:
            value += reinterpret_cast<uintptr_t>(bases.func);
            break;
        default:
            ok = false;
            return 0;
        }
        if (encoding & 0x80) // DW_EH_PE_indirect
            memcpy(&value, reinterpret_cast<const void*>(value), sizeof(value));
        return value;
    }
};

// The part of a CFI row the unwinder tracks.
struct Row {
    int cfaReg = kRegRsp;
    int64_t cfaOffset = 8;
    bool cfaExpression = false;
    bool rbpSaved = false;
    int64_t rbpOffset = 0;
    bool rbpLost = false; // rbp restored by a rule we do not model
    bool raSaved = false;
    int64_t raOffset = -8;
    bool raLost = false;
};

struct Cie {
    uint64_t codeAlign = 1;
    int64_t dataAlign = -8;
    uint64_t raRegister = 16;
    uint8_t fdeEncoding = 0;
    bool hasAugmentationData = false;
    bool signalFrame = false;
    const uint8_t* instructions = nullptr;
    const uint8_t* end = nullptr;
};

bool parseCie(const uint8_t* cie, const StallscopeEhBases& bases, Cie* out) {
    Reader r{cie, cie + 16};
    uint64_t length = r.fixed<uint32_t>();
    if (length == 0xffffffffu)
        length = r.fixed<uint64_t>();
    const uint8_t* start = r.p;
    r.end = start + length;
    r.fixed<uint32_t>(); // CIE id
    uint8_t version = r.fixed<uint8_t>();
    const char* augmentation = reinterpret_cast<const char*>(r.p);
    size_t augLength = strnlen(augmentation, 16);
    r.p += augLength + 1;
    if (augmentation[0] == 'e' && augmentation[1] == 'h')
        r.fixed<uint64_t>();
    out->codeAlign = r.uleb();
    out->dataAlign = r.sleb();
    out->raRegister = version == 1 ? r.fixed<uint8_t>() : r.uleb();
    const uint8_t* afterAugData = nullptr;
    for (const char* a = augmentation; *a && r.ok; ++a) {
        switch (*a) {
        case 'z': {
            uint64_t len = r.uleb();
            afterAugData = r.p + len;
            out->hasAugmentationData = true;
            break;
        }
        case 'L':
            r.fixed<uint8_t>();
            break;
        case 'R':
            out->fdeEncoding = r.fixed<uint8_t>();
            break;
        case 'P': {
            uint8_t enc = r.fixed<uint8_t>();
            // Personality pointers may be indirect into not-yet-relocated data: skip, never deref.
            r.encoded(enc & 0x7f, bases);
            break;
        }
        case 'S':
            out->signalFrame = true;
            break;
        case 'e':
        case 'h':
            break;
        case 'B':
            break;
        default:
            if (!afterAugData)
                return false;
            goto done; // unknown letter: the 'z' length lets us skip the rest
        }
    }
done:
    if (afterAugData)
        r.p = afterAugData;
    out->instructions = r.p;
    out->end = start + length;
    return r.ok;
}

// Runs CFA instructions until the location passes `target`.
bool runInstructions(const uint8_t* p, const uint8_t* end, const Cie& cie, uintptr_t location,
                     uintptr_t target, const Row& initial, Row* row,
                     const StallscopeEhBases& bases) {
    Reader r{p, end};
    Row stack[8];
    int depth = 0;
    auto setOffset = [&](uint64_t reg, int64_t offset) {
        if (reg == kRegRbp) {
            row->rbpSaved = true;
            row->rbpOffset = offset;
            row->rbpLost = false;
        } else if (reg == cie.raRegister) {
            row->raSaved = true;
            row->raOffset = offset;
            row->raLost = false;
        }
    };
    auto lose = [&](uint64_t reg) {
        if (reg == kRegRbp)
            row->rbpLost = true;
        else if (reg == cie.raRegister)
            row->raLost = true;
    };
    auto restore = [&](uint64_t reg) {
        if (reg == kRegRbp) {
            row->rbpSaved = initial.rbpSaved;
            row->rbpOffset = initial.rbpOffset;
            row->rbpLost = initial.rbpLost;
        } else if (reg == cie.raRegister) {
            row->raSaved = initial.raSaved;
            row->raOffset = initial.raOffset;
            row->raLost = initial.raLost;
        }
    };
    while (r.p < r.end && r.ok) {
        uint8_t op = r.fixed<uint8_t>();
        uint8_t high = op & 0xc0, low = op & 0x3f;
        uintptr_t advance = 0;
        if (high == 0x40) {
            advance = low * cie.codeAlign;
        } else if (high == 0x80) {
            setOffset(low, int64_t(r.uleb()) * cie.dataAlign);
            continue;
        } else if (high == 0xc0) {
            restore(low);
            continue;
        } else {
            switch (op) {
            case 0x00:
                break;
            case 0x01:
                location = r.encoded(cie.fdeEncoding, bases);
                break;
            case 0x02:
                advance = r.fixed<uint8_t>() * cie.codeAlign;
                break;
            case 0x03:
                advance = r.fixed<uint16_t>() * cie.codeAlign;
                break;
            case 0x04:
                advance = r.fixed<uint32_t>() * cie.codeAlign;
                break;
            case 0x05: {
                uint64_t reg = r.uleb();
                setOffset(reg, int64_t(r.uleb()) * cie.dataAlign);
                break;
            }
            case 0x06:
                restore(r.uleb());
                break;
            case 0x07:
                lose(r.uleb());
                break;
            case 0x08: {
                uint64_t reg = r.uleb();
                if (reg == kRegRbp) {
                    row->rbpSaved = false;
                    row->rbpLost = false;
                }
                break;
            }
            case 0x09:   // DW_CFA_register
            case 0x14: { // DW_CFA_val_offset: both leave `reg` where this unwinder cannot follow
                uint64_t reg = r.uleb();
                r.uleb();
                lose(reg);
                break;
            }
            case 0x0a:
                if (depth < 8)
                    stack[depth++] = *row;
                break;
            case 0x0b:
                if (depth > 0)
                    *row = stack[--depth];
                break;
            case 0x0c:
                row->cfaReg = int(r.uleb());
                row->cfaOffset = int64_t(r.uleb());
                row->cfaExpression = false;
                break;
            case 0x0d:
                row->cfaReg = int(r.uleb());
                break;
            case 0x0e:
                row->cfaOffset = int64_t(r.uleb());
                break;
            case 0x0f: {
                uint64_t len = r.uleb();
                r.p += len;
                row->cfaExpression = true;
                break;
            }
            case 0x10:   // DW_CFA_expression
            case 0x16: { // DW_CFA_val_expression: the expression is skipped, `reg` lost
                uint64_t reg = r.uleb();
                uint64_t len = r.uleb();
                r.p += len;
                lose(reg);
                break;
            }
            case 0x11: {
                uint64_t reg = r.uleb();
                setOffset(reg, r.sleb() * cie.dataAlign);
                break;
            }
            case 0x12:
                row->cfaReg = int(r.uleb());
                row->cfaOffset = r.sleb() * cie.dataAlign;
                row->cfaExpression = false;
                break;
            case 0x13:
                row->cfaOffset = r.sleb() * cie.dataAlign;
                break;
            case 0x15: {
                uint64_t reg = r.uleb();
                r.sleb();
                lose(reg);
                break;
            }
            case 0x2e:
                r.uleb();
                break;
            case 0x2f: {
                uint64_t reg = r.uleb();
                setOffset(reg, -int64_t(r.uleb()) * cie.dataAlign);
                break;
            }
            default:
                return false;
            }
        }
        if (advance) {
            location += advance;
            if (location > target)
                return true;
        }
    }
    return r.ok;
}

} // namespace

CfiRule cfiRuleAt(uintptr_t pc, bool isReturnAddress) {
    CfiRule rule;
    uintptr_t lookup = isReturnAddress ? pc - 1 : pc;
    // x86-64 FDEs use no text or data base (libgcc leaves both null there too).
    StallscopeEhBases bases{};
    const uint8_t* fde = FdeIndex::find(lookup);
    if (!fde)
        fde =
            static_cast<const uint8_t*>(_Unwind_Find_FDE(reinterpret_cast<void*>(lookup), &bases));
    if (!fde)
        return rule;
    Reader r{fde, fde + 16};
    uint64_t length = r.fixed<uint32_t>();
    if (length == 0 || length == 0xffffffffu)
        return rule;
    const uint8_t* start = r.p;
    const uint8_t* end = start + length;
    r.end = end;
    uint32_t ciePointer = r.fixed<uint32_t>();
    const uint8_t* cieAddress = start - ciePointer;
    Cie cie;
    if (!parseCie(cieAddress, bases, &cie) || cie.signalFrame)
        return rule;
    uintptr_t pcBegin = r.encoded(cie.fdeEncoding, bases);
    uintptr_t pcRange = r.encoded(cie.fdeEncoding & 0x0f, bases);
    // The index names the last FDE starting at or below the PC: the PC may lie past its end.
    if (lookup < pcBegin || lookup - pcBegin >= pcRange)
        return rule;
    bases.func = reinterpret_cast<void*>(pcBegin);
    if (cie.hasAugmentationData) {
        uint64_t len = r.uleb();
        r.p += len;
    }
    if (!r.ok)
        return rule;
    Row initial;
    if (!runInstructions(cie.instructions, cie.end, cie, pcBegin, uintptr_t(-1), initial, &initial,
                         bases))
        return rule;
    Row row = initial;
    if (!runInstructions(r.p, end, cie, pcBegin, lookup, initial, &row, bases))
        return rule;
    if (row.cfaExpression || row.raLost || !row.raSaved ||
        (row.cfaReg != kRegRsp && row.cfaReg != kRegRbp) || row.cfaOffset > INT32_MAX ||
        row.cfaOffset < INT32_MIN)
        return rule;
    if (row.cfaReg == kRegRbp && row.rbpLost)
        return rule;
    rule.cfaOffset = int32_t(row.cfaOffset);
    rule.cfaIsRbp = row.cfaReg == kRegRbp;
    rule.rbpSaved = row.rbpSaved && !row.rbpLost;
    rule.rbpOffset = int16_t(row.rbpOffset);
    rule.raOffset = int16_t(row.raOffset);
    rule.valid = 1;
    return rule;
}

} // namespace stallscope::recorder
