// For torch_npu's trace_view.json (ASCEND_PROFILER_OUTPUT): gives the device
// lanes the meaning torch_npu's own step analysis (step_trace_time.csv)
// gives them. "Ascend Hardware" lanes ("Stream N") become device streams,
// and their tasks of the compute task types (AI_CORE, AI_VECTOR_CORE,
// MIX_AIC, MIX_AIV, AI_CPU, DSA_SQE: the kernels of kernel_details.csv), or
// of type "Other" (older torch_npu) with a kernel's name (not an HCCL
// sub-task's, not an upper-case runtime task's), become kernels; the HCCL process's "Group N Communication" lanes
// become communication streams, their hcom_* ops kernels. The rest (HCCL's sub-tasks on the hardware streams: Notify
// Wait, Write Value, SDMA; event records and waits; PCIe DMA copies) stays off the streams, as torch_npu leaves it out
// of Computing, Communication and Free. False (nothing changed) when no process is named "Ascend Hardware". Called by
// the Chrome JSON reader before Finish.
#pragma once

#include "model/builder.h"

namespace mlprof {

bool AdoptAscendConventions(ProfileBuilder& b);

}  // namespace mlprof
