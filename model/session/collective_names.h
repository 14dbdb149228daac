// Collective (NCCL) kernels, told by their names: the one place that says which kernels are a
// multi-GPU run's collectives (the straggler rule matches them across ranks, a run's hosts are
// aligned on them) and how they are shown.
#pragma once

#include <string>
#include <string_view>

namespace stallscope::model {

// NCCL's device kernels: "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)", "ncclKernel_...", as
// recorded — CUPTI gives them Itanium-mangled ("_Z24ncclDevKernel_AllReduce…").
bool isCollectiveKernelName(std::string_view name);

// "NCCL AllReduce · Sum · f32 · RING_LL" for NCCL's device kernels (collective, reduction, data
// type, algorithm and protocol, as their name spells them); "" for any other kernel. The message
// size is not in the name (CUPTI's kernel record does not carry it).
std::string collectiveLabel(std::string_view name);

} // namespace stallscope::model
