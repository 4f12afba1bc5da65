// The guards of plugin_guards.h.
#include "plugin_guards.h"

// xtables.h (net/if.h) before the kernel header (linux/if.h).
#include <xtables.h>

#include <linux/netfilter/xt_hashlimit.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace fastrestore {
namespace {

// The bit an option sets in the plugin's mflags: 1 << its entry's id.
unsigned option_flag(const xtables_match *m, const char *name) {
  if (m->x6_options == nullptr)
    return 0;
  for (const xt_option_entry *e = m->x6_options; e->name != nullptr; ++e)
    if (strcmp(e->name, name) == 0)
      return 1U << e->id;
  return 0;
}

// hashlimit in byte mode (`--hashlimit-upto 5b/s`) turns a burst given in
// bytes into a number of its rate's units of 16 bytes. A rate under 16b/s
// makes that unit 0 bytes and the plugin divides by it (SIGFPE, status
// 136); from 16b/s up it refuses a burst below the unit. Revision 0 has no
// byte mode.
void guard_hashlimit(const xtables_match *m) {
  if (m->revision < 1 || m->m == nullptr ||
      (m->mflags & option_flag(m, "hashlimit-burst")) == 0)
    return;
  uint64_t avg;
  uint32_t mode;
  if (m->revision == 1) {
    const auto *info =
        reinterpret_cast<const xt_hashlimit_mtinfo1 *>(m->m->data);
    avg = info->cfg.avg;
    mode = info->cfg.mode;
  } else {
    // Revisions 2 and 3 share the layout of name and cfg's first fields.
    const auto *info =
        reinterpret_cast<const xt_hashlimit_mtinfo2 *>(m->m->data);
    avg = info->cfg.avg;
    mode = info->cfg.mode;
  }
  if ((mode & XT_HASHLIMIT_BYTES) == 0 || avg == 0)
    return;
  if (UINT32_MAX / avg != 1) // the plugin's unit: (that - 1) << 4 bytes
    return;
  xtables_error(PARAMETER_PROBLEM,
                "--hashlimit-burst needs a rate of at least %ub/s",
                1U << XT_HASHLIMIT_BYTE_SHIFT);
}

// hashlimit's byte rate (`--hashlimit-upto 5b/s`, revisions 2 and 3) is
// turned into a cost per packet by dividing by the rate's 16-byte units
// plus one, in 32 bits: a rate whose units are 2^32 - 1 there (-1b/s to
// -16b/s, read as huge unsigned numbers, or about 64 GiB/s) makes that
// divisor 0 (SIGFPE, status 136). Refused as the plugin refuses a rate
// whose cost comes out 0.
void guard_hashlimit_rate(const xtables_match *m, const char *name,
                          const char *arg) {
  if (m->revision < 2 || arg == nullptr ||
      (strcmp(name, "hashlimit-upto") != 0 &&
       strcmp(name, "hashlimit-above") != 0 && strcmp(name, "hashlimit") != 0))
    return;
  const char *mode = strstr(arg, "b/s");
  if (mode == nullptr || mode == arg)
    return;
  const uint64_t r = static_cast<uint64_t>(atoll(arg));
  if (r == 0)
    return;
  const uint64_t factor = mode[-1] == 'm'   ? 1024 * 1024
                          : mode[-1] == 'k' ? 1024
                                            : 1;
  if (static_cast<uint32_t>((r * factor) >> XT_HASHLIMIT_BYTE_SHIFT) !=
      UINT32_MAX)
    return;
  xtables_error(PARAMETER_PROBLEM, "Rate too high \"%s\"", arg);
}

} // namespace

void guard_match_option(const xtables_match *match, unsigned id,
                        const char *arg) {
  if (strcmp(match->name, "hashlimit") != 0 || match->x6_options == nullptr)
    return;
  for (const xt_option_entry *e = match->x6_options; e->name != nullptr; ++e)
    if (e->id == id) {
      guard_hashlimit_rate(match, e->name, arg);
      return;
    }
}

void guard_match_check(const xtables_match *match) {
  if (strcmp(match->name, "hashlimit") == 0)
    guard_hashlimit(match);
}

} // namespace fastrestore
