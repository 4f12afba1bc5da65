#include "fastrestore/xt_lookup.h"

#include <xtables.h>

#include <cstdlib>

namespace fastrestore {
namespace {

// The registered plugin a clone copies (same name, revision and family),
// with the clone freed; the plugin itself when it is no clone.
template <class P> P *registered(P *found, P *list) {
  if (found == nullptr || found->next != found)
    return found;
  for (P *p = list; p != nullptr; p = p->next)
    if (p != found && p->name == found->name &&
        p->revision == found->revision && p->family == found->family) {
      free(found);
      return p;
    }
  return found;
}

} // namespace

xtables_match *peek_match(const char *name) {
  return registered(xtables_find_match(name, XTF_TRY_LOAD, nullptr),
                    xtables_matches);
}

xtables_target *peek_target(const char *name) {
  return registered(xtables_find_target(name, XTF_TRY_LOAD), xtables_targets);
}

} // namespace fastrestore
