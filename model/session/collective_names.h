// Collective (NCCL) kernels, told by their names: the one place that says which kernels are a
// multi-GPU run's collectives (the straggler rule matches them across ranks, a run's hosts are
// aligned on them) and how they are shown.
#pragma once

#include "format/session_rows.h"

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

// "AllReduce · 25.0 MiB (6,553,600 × ncclFloat32)", "AllReduce ×3 · …" for a group of three
// launched as one kernel: what NCCL's profiler plugin said about a launch (the size the kernel's
// name lacks).
std::string collectiveCallText(const format::CollectiveCallRow& call);

// The kernel's collectiveLabel with the call's size after the collective: "NCCL AllReduce ·
// 64.0 MiB · Sum · f32 · RING_LL" ("… · 12.0 MiB in 3 calls · …" for a group); what NCCL called
// it when the name is not one of NCCL's.
std::string collectiveLabel(std::string_view name, const format::CollectiveCallRow& call);

} // namespace stallscope::model
