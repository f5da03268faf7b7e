#include "base/string_pool.h"

#include <cstring>

#include "base/utf8.h"

namespace mlprof {

namespace {
constexpr size_t kBlockSize = 1 << 20;
}

StringPool::StringPool() {
  strings_.emplace_back();
  index_.emplace(std::string_view(), 0);
}

std::string_view StringPool::Store(std::string_view s) {
  if (s.empty()) return {};
  if (blocks_.empty() || block_used_ + s.size() > block_size_) {
    size_t size = s.size() > kBlockSize / 4 ? s.size() : kBlockSize;
    blocks_.emplace_back(new char[size]);
    block_size_ = size;
    block_used_ = 0;
  }
  char* dst = blocks_.back().get() + block_used_;
  std::memcpy(dst, s.data(), s.size());
  block_used_ += s.size();
  return {dst, s.size()};
}

StringId StringPool::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  // Every string the model holds is valid UTF-8 (names come from untrusted
  // files; JSON output must parse): invalid bytes become '?'.
  if (!IsValidUtf8(s)) {
    const std::string fixed = ValidUtf8(s);
    if (auto f = index_.find(std::string_view(fixed)); f != index_.end()) return f->second;
    std::string_view stored = Store(fixed);
    auto id = static_cast<StringId>(strings_.size());
    strings_.push_back(stored);
    index_.emplace(stored, id);
    return id;
  }
  std::string_view stored = Store(s);
  auto id = static_cast<StringId>(strings_.size());
  strings_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

StringId StringPool::Find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNotFound : it->second;
}

}  // namespace mlprof
