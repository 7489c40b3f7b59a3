// The exception boundary of both C headers: no C++ exception may leave a function called
// from C (a client of c_api.h or a plugin calling the service table), so each such function
// runs its body through one of these and reports what went wrong in a TG_Status.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "core/base/status.h"
#include "core/plugin/abi_handles.h"

namespace tgraph {

// Stores `st` in `s` (NULL: nowhere). Copying the message may fail for lack of memory;
// the code still arrives.
inline void SetStatus(TG_Status* s, const Status& st) noexcept {
  if (s == nullptr) return;
  try {
    s->status = st;
  } catch (...) {
    s->status = Status(st.code(), std::string());
  }
}

// Call inside a catch block: the status for the exception in flight.
inline Status StatusFromCurrentException() noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return Status(Code::kResourceExhausted, "out of memory");
  } catch (const std::exception& e) {
    try {
      return Status(Code::kInternal, std::string("internal error: ") + e.what());
    } catch (...) {
      return Status(Code::kInternal, std::string());
    }
  } catch (...) {
    try {
      return Status(Code::kInternal, "internal error: unknown exception");
    } catch (...) {
      return Status(Code::kInternal, std::string());
    }
  }
}

// Runs fn() -> Status and stores the outcome, exceptions included, in `status`.
template <typename Fn>
void Guard(TG_Status* status, Fn&& fn) noexcept {
  Status st;
  try {
    st = fn();
  } catch (...) {
    st = StatusFromCurrentException();
  }
  SetStatus(status, st);
}

// Runs fn(R* out) -> Status; returns *out on success, `fallback` otherwise.
template <typename R, typename Fn>
R GuardValue(TG_Status* status, R fallback, Fn&& fn) noexcept {
  Status st;
  R out = fallback;
  try {
    st = fn(&out);
  } catch (...) {
    st = StatusFromCurrentException();
  }
  SetStatus(status, st);
  return st.ok() ? out : fallback;
}

// For functions without a status: fn()'s result, or `fallback` if it throws.
template <typename R, typename Fn>
R NoThrow(R fallback, Fn&& fn) noexcept {
  try {
    return fn();
  } catch (...) {
    return fallback;
  }
}

}  // namespace tgraph
