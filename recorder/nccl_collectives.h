// NcclCollectives: what NCCL says about each collective it launches — call, element count, data
// type — joined to the launch's CUDA correlation id. NCCL's profiler plugin
// (nccl_profiler_plugin.cpp) reports the calls of a thread and brackets the kernel launch that
// carries them; the launch is tagged with an external correlation id (CUPTI's CUSTOM2 kind), and
// the writer thread takes the call's description when CUPTI's EXTERNAL_CORRELATION record for that
// launch arrives. The size is what CUPTI's kernel record and the kernel's name lack.
#pragma once

#include "format/session_rows.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stallscope::recorder {

class NcclCollectives {
public:
    // The external correlation kind the launches are tagged with (CUPTI_EXTERNAL_CORRELATION_KIND
    // _CUSTOM2: Kineto uses CUSTOM0 and CUSTOM1).
    static int correlationKind();

    // An NCCL call on this thread (ncclAllReduce, ncclSend, ...): `function` as NCCL names it
    // ("AllReduce"), `datatype` NCCL's type name ("ncclFloat32"; null when none).
    static void noteCall(const char* function, size_t count, const char* datatype);
    // NCCL is about to launch the kernel of this thread's noted calls: tags the launch (true) when
    // there are any; endLaunch must follow a true.
    static bool beginLaunch();
    static void endLaunch();
    // The description of the launch tagged with `externalId`, once (writer thread); nullopt for an
    // id this registry never gave or already handed out. processId and correlationId unset.
    static std::optional<format::CollectiveCallRow> take(uint64_t externalId);

    // meta.nccl_profiler: "on" when NCCL_PROFILER_PLUGIN names this library, else why not.
    // `launchRecords`: whether the launches' API records come (EXTERNAL_CORRELATION needs them).
    static std::string status(bool launchRecords);

    // Bytes of one element of NCCL's type name; 0 when unknown.
    static int elementBytes(std::string_view datatype);
    // Calls noted and launches tagged since the process started (diagnostics).
    static uint64_t launchesTagged();
};

} // namespace stallscope::recorder
