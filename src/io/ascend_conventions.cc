#include "io/ascend_conventions.h"

#include <string_view>
#include <unordered_map>
#include <vector>

namespace mlprof {

bool AdoptAscendConventions(ProfileBuilder& b) {
  const RankProfile& p = b.partial();
  enum class Lane : uint8_t { kNone, kHardware, kHccl };
  std::vector<Lane> lane(p.tracks.size(), Lane::kNone);
  bool any = false;
  for (size_t t = 0; t < p.tracks.size(); ++t) {
    const std::string_view process = b.ProcessName(p.tracks[t].pid);
    if (process == "Ascend Hardware") {
      lane[t] = Lane::kHardware, any = true;
    } else if (process == "HCCL") {
      const std::string_view thread = p.str(p.tracks[t].name);
      if (thread.substr(0, 6) == "Group " && thread.find("Communication") != std::string_view::npos)
        lane[t] = Lane::kHccl;
    }
  }
  if (!any) return false;
  // Each op's task type (the args are in the reader's order, unsorted).
  const StringId key = b.strings().Find("Task Type");
  std::unordered_map<uint32_t, std::string_view> task;
  if (key != StringPool::kNotFound)
    for (const Arg& a : p.args.rows)
      if (a.owner_kind == ArgOwner::kOp && a.value.key == key && a.value.type == ArgType::kString)
        task[a.owner] = p.str(a.value.s);
  static constexpr std::string_view kCompute[] = {"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC",
                                                  "MIX_AIV", "AI_CPU",         "DSA_SQE"};
  // HCCL's sub-tasks on the hardware streams, by task type and by name.
  static constexpr std::string_view kHcclTasks[] = {"Notify Wait",   "Write Value",   "SDMA",
                                                    "Notify Record", "Reduce Inline", "Memcpy"};
  // A task with no compute type (older torch_npu writes "Other" for every
  // kernel): a kernel unless it is an HCCL sub-task or a runtime task, whose
  // names are upper case (MEMCPY_ASYNC, EVENT_RECORD, EVENT_WAIT).
  auto is_kernel_name = [&](std::string_view n) {
    bool lower = false;
    for (char c : n) lower = lower || (c >= 'a' && c <= 'z');
    if (!lower) return false;
    for (std::string_view h : kHcclTasks)
      if (n == h) return false;
    return true;
  };
  const StringId task_cat = b.strings().Intern("ascend_task"), hccl_cat = b.strings().Intern("hccl");
  // HCCL lanes get stream ids apart from the hardware streams'.
  constexpr int64_t kHcclStreamBase = int64_t{1} << 20;
  std::vector<bool> made(p.tracks.size(), false);
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const uint32_t t = p.ops.track[i];
    if (lane[t] == Lane::kNone) continue;
    bool device_op = lane[t] == Lane::kHccl;
    if (lane[t] == Lane::kHardware) {
      auto it = task.find(static_cast<uint32_t>(i));
      const std::string_view type = it != task.end() ? it->second : std::string_view();
      bool compute_type = false, other_type = type.empty() || type == "Other";
      for (std::string_view c : kCompute) compute_type = compute_type || type == c;
      device_op = compute_type || (other_type && is_kernel_name(p.str(p.ops.name[i])));
    }
    if (!device_op) continue;
    if (!made[t]) {
      const int64_t tid = p.tracks[t].tid;
      b.MakeGpuStream(t, 0, lane[t] == Lane::kHccl ? kHcclStreamBase + tid : tid);
      made[t] = true;
    }
    b.SetOpKind(i, OpKind::kKernel, lane[t] == Lane::kHccl ? hccl_cat : task_cat);
  }
  return true;
}

}  // namespace mlprof
