#include "parse/kernel_resolved.h"

#include <cstring>

namespace fastrestore {

bool kernel_resolved(const Rule &rule) {
  for (const XtBlob &m : rule.matches) {
    if (m.data.size() < 2)
      continue;
    // struct xt_cgroup_info_v1 and _v2 begin with __u8 has_path.
    if (m.name == "cgroup" && m.revision >= 1 && m.data[0] != 0)
      return true;
    // struct xt_bpf_info_v1 begins with __u16 mode; 0 is bytecode given in
    // the rule, every other mode names a program by descriptor or path.
    if (m.name == "bpf" && m.revision >= 1) {
      uint16_t mode = 0;
      std::memcpy(&mode, m.data.data(), sizeof(mode));
      if (mode != 0)
        return true;
    }
  }
  return false;
}

} // namespace fastrestore
