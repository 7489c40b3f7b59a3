// Status: a code (TensorFlow's numbering, so C callers and TF users read the same values)
// plus a message that names the node, tensor, file or plugin involved.
#pragma once

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>

namespace tgraph {

enum class Code : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

const char* CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) {
    if (code != Code::kOk) rep_ = std::make_unique<Rep>(Rep{code, std::move(message)});
  }
  static Status OK() { return Status(); }

  // OK is a null pointer: the statuses returned on every step of a run cost one store to
  // make and one test to check or destroy; only an error carries its code and message.
  Status(const Status& other) : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
    return *this;
  }
  Status(Status&&) noexcept = default;  // the moved-from status is OK
  Status& operator=(Status&&) noexcept = default;

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  const std::string& message() const { return rep_ ? rep_->message : EmptyMessage(); }
  // "INVALID_ARGUMENT: message", for logs and test failure output.
  std::string ToString() const;

  // Adds context in front of the message ("while importing node 'x': ...").
  Status Prepend(const std::string& context) const {
    return ok() ? Status() : Status(rep_->code, context + rep_->message);
  }

 private:
  struct Rep {
    Code code;
    std::string message;
  };
  static const std::string& EmptyMessage();

  std::unique_ptr<Rep> rep_;
};

// Concatenates anything streamable; the project's one string-building helper.
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

#define TG_DEFINE_STATUS_FACTORY(Name, CodeValue)          \
  template <typename... Args>                              \
  Status Name(const Args&... args) {                       \
    return Status(Code::CodeValue, StrCat(args...));       \
  }
TG_DEFINE_STATUS_FACTORY(Cancelled, kCancelled)
TG_DEFINE_STATUS_FACTORY(UnknownError, kUnknown)
TG_DEFINE_STATUS_FACTORY(InvalidArgument, kInvalidArgument)
TG_DEFINE_STATUS_FACTORY(NotFound, kNotFound)
TG_DEFINE_STATUS_FACTORY(AlreadyExists, kAlreadyExists)
TG_DEFINE_STATUS_FACTORY(PermissionDenied, kPermissionDenied)
TG_DEFINE_STATUS_FACTORY(ResourceExhausted, kResourceExhausted)
TG_DEFINE_STATUS_FACTORY(FailedPrecondition, kFailedPrecondition)
TG_DEFINE_STATUS_FACTORY(Aborted, kAborted)
TG_DEFINE_STATUS_FACTORY(OutOfRange, kOutOfRange)
TG_DEFINE_STATUS_FACTORY(Unimplemented, kUnimplemented)
TG_DEFINE_STATUS_FACTORY(Internal, kInternal)
TG_DEFINE_STATUS_FACTORY(Unavailable, kUnavailable)
TG_DEFINE_STATUS_FACTORY(DataLoss, kDataLoss)
#undef TG_DEFINE_STATUS_FACTORY

// A value or the status that explains why there is none.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace tgraph

#define TG_STATUS_CONCAT_INNER(a, b) a##b
#define TG_STATUS_CONCAT(a, b) TG_STATUS_CONCAT_INNER(a, b)

#define TG_RETURN_IF_ERROR(expr)                         \
  do {                                                   \
    ::tgraph::Status tg_status_ = (expr);                \
    if (!tg_status_.ok()) return tg_status_;             \
  } while (0)

#define TG_ASSIGN_OR_RETURN_IMPL(var, lhs, expr)         \
  auto var = (expr);                                     \
  if (!var.ok()) return var.status();                    \
  lhs = std::move(var).value()

#define TG_ASSIGN_OR_RETURN(lhs, expr) \
  TG_ASSIGN_OR_RETURN_IMPL(TG_STATUS_CONCAT(tg_statusor_, __LINE__), lhs, expr)
