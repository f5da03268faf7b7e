// StringPool: interns strings to dense 32-bit ids. Id 0 is always the empty
// string. Storage is an arena of blocks, so string_views handed out stay valid
// for the pool's lifetime. Cost: one hash + one probe per Intern; the hash map
// is keyed by views into the arena (no second copy of the bytes).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mlprof {

using StringId = uint32_t;

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  StringId Intern(std::string_view s);
  // Returns the id of s if it was interned, or nullopt-like kNotFound.
  static constexpr StringId kNotFound = UINT32_MAX;
  StringId Find(std::string_view s) const;

  std::string_view Get(StringId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  // Bytes held by the arena (for --stats and memory accounting).

 private:
  std::string_view Store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  std::vector<std::string_view> strings_;
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace mlprof
