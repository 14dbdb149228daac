// CfiRule: the DWARF half of the stack unwinder (stack_unwinder.h). The unwind rule at one PC,
// read from .eh_frame and reduced to what x86-64 needs to step to the caller; the unwinder
// computes it once per distinct PC (its slow path) and caches it.
#pragma once

#include <cstdint>

namespace stallscope::recorder {

struct CfiRule {
    int32_t cfaOffset = 0;
    int16_t rbpOffset = 0; // where rbp is saved, relative to the CFA (valid if rbpSaved)
    int16_t raOffset = -8; // where the return address is saved, relative to the CFA
    uint8_t cfaIsRbp = 0;  // CFA = rbp + offset (else rsp + offset)
    uint8_t rbpSaved = 0;
    uint8_t valid = 0; // 0: no usable CFI here (end of stack, expression rule, no FDE)
};

// The rule at `pc`, from the FDE that covers it (FdeIndex, else libgcc's lookup).
// `isReturnAddress` looks the rule up at pc-1, where the call instruction is. Allocates nothing
// and takes no lock when the FDE index has the PC.
CfiRule cfiRuleAt(uintptr_t pc, bool isReturnAddress);

} // namespace stallscope::recorder
