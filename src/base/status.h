// Status / StatusOr: error values used everywhere inside mlprof (no exceptions
// cross layer boundaries; the CLI is the only place that turns them into exit
// codes). Modelled on absl::Status, reduced to what we use.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace mlprof {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the user asked for something impossible (usage error)
  kNotFound,         // a file or item does not exist
  kDataLoss,         // the input is corrupt or truncated
  kWrongFormat,      // the input is readable but not a format mlprof reads (not a trace)
  kUnimplemented,    // a format we recognise but do not read yet
  kInternal,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status WrongFormat(std::string m) { return {StatusCode::kWrongFormat, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT
  StatusOr(T value) : value_(std::move(value)) {}                                  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

#define MLPROF_CONCAT_INNER(a, b) a##b
#define MLPROF_CONCAT(a, b) MLPROF_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)      \
  do {                             \
    ::mlprof::Status _st = (expr); \
    if (!_st.ok()) return _st;     \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(MLPROF_CONCAT(_statusor_, __LINE__), lhs, expr)

}  // namespace mlprof
