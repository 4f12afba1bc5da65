// Answers "does the kernel support revision R of extension N?" for
// libxtables, which asks it when it loads a plugin. A header of its own,
// below both the rule parsers that take a probe and the nf_tables backend
// that implements the default one.
#pragma once

#include <cstdint>
#include <memory>

namespace fastrestore {

class RevisionProbe {
public:
  virtual ~RevisionProbe() = default;
  // opt is one of IPT_SO_GET_REVISION_{MATCH,TARGET} / IP6T_...
  virtual bool supported(const char *name, uint8_t rev, int opt) = 0;
};

// The default: asks nf_tables over netlink (NFNL_SUBSYS_NFT_COMPAT), once
// per question (lib/backend/nft/revision_probe.cpp).
std::unique_ptr<RevisionProbe> make_netlink_revision_probe();

} // namespace fastrestore
