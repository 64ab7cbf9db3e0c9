// SPDX-License-Identifier: MIT
// Per-thread scratch objects that stay usable while the program exits.
#pragma once

#include <aztables/config.hpp>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// The calling thread's `T`, made on first use and reused afterwards (parsers,
/// MAC contexts, string buffers: allocated once per thread, not per request).
///
/// Why not a plain `thread_local T`: a thread's thread_local objects are
/// destroyed before the program's static objects, so a client held in a static
/// (a logger flushing its last rows to a table at exit, a test fixture deleting
/// its table) would reach a destroyed object. Here the thread_local `T` marks
/// itself dead in a trivially destructible flag when it goes; a use after that
/// gets a `T` from the heap that is kept for the rest of the thread (at most one
/// per thread and type, and only for code that runs during exit).
///
/// `T` must be default-constructible and distinct per use site (wrap shared
/// types such as std::string in a small struct) so two sites never share one.
template <class T>
T& per_thread() {
  enum : unsigned char { unborn, alive, dead };
  thread_local unsigned char state = unborn;  // trivially destructible: readable after the slot dies
  thread_local T* late = nullptr;             // the exit-time replacement, if ever needed
  struct slot {
    T value = T();
    slot() { state = alive; }
    ~slot() { state = dead; }
    slot(const slot&) = delete;
    slot& operator=(const slot&) = delete;
  };
  if (state != dead) {
    thread_local slot s;
    return s.value;
  }
  if (late == nullptr) late = new T();
  return *late;
}

}  // namespace detail
AZTABLES_NAMESPACE_END
