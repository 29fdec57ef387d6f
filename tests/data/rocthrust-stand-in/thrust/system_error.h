// Stand-in for rocThrust's <thrust/system_error.h> (rocThrust is not installed here): thrust::system_error and
// thrust::error_category as rocThrust declares them in thrust/system/system_error.h and thrust/system/error_code.h
// (in thrust::system, made visible in thrust), with the members the tests use.
#pragma once
#include <stdexcept>
#include <string>

namespace thrust {
namespace system {
class error_category {
 public:
  virtual ~error_category() {}
  virtual const char* name() const = 0;
};
class system_error : public std::runtime_error {
 public:
  inline system_error(int ev, const error_category& ecat) : std::runtime_error(ecat.name()) { (void)ev; }
};
}  // namespace system
using system::error_category;
using system::system_error;
}  // namespace thrust
