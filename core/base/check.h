// TW_CHECK: user, config, data and shape errors -> twin::Error with file:line and a message.
// TW_DCHECK: internal invariants (compiled out under NDEBUG).
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace twin {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
template <typename... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
[[noreturn]] inline void fail(const char* file, int line, const std::string& msg) {
  std::string f(file);
  auto slash = f.find_last_of('/');
  throw Error(msg + "  (" + (slash == std::string::npos ? f : f.substr(slash + 1)) + ":" + std::to_string(line) + ")");
}
}  // namespace detail

}  // namespace twin

#define TW_CHECK(cond, ...)                                                    \
  do {                                                                         \
    if (!(cond)) ::twin::detail::fail(__FILE__, __LINE__, ::twin::detail::cat(__VA_ARGS__)); \
  } while (0)

#define TW_FAIL(...) ::twin::detail::fail(__FILE__, __LINE__, ::twin::detail::cat(__VA_ARGS__))

#ifdef NDEBUG
#define TW_DCHECK(cond, ...) \
  do {                       \
  } while (0)
#else
#define TW_DCHECK(cond, ...) TW_CHECK(cond, "internal: ", __VA_ARGS__)
#endif
