// nf_tables snapshots: the family's tables dumped from the kernel and
// rewritten as the messages of a batch that creates them again.
// glibc's network headers before the kernel's, or they collide.
#include <arpa/inet.h>

#include <cstdio> // libnftnl headers need FILE
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <set>

#include "file.h"
#include "nft/nft_attrs.h"
#include "nft/nft_compat.h"
#include "nft/nft_dumper.h"
#include "nft/nft_transport.h"
#include "snapshot.h"
#include "sys/nfnl_header.h"

namespace fastrestore::snapshot {
namespace {

// What a dump message of each type keeps out of the batch message: the
// kernel's handles, use counts, padding and ids.
bool dropped(uint16_t type, uint16_t attr, bool counters) {
  // Newer kernels dump attributes they refuse on input (a set's backend
  // type and element count, NLA_REJECT): keep only what this build's
  // headers know.
  const uint16_t max = type == NFT_MSG_NEWTABLE       ? NFTA_TABLE_MAX
                       : type == NFT_MSG_NEWCHAIN     ? NFTA_CHAIN_MAX
                       : type == NFT_MSG_NEWRULE      ? NFTA_RULE_MAX
                       : type == NFT_MSG_NEWSET       ? NFTA_SET_MAX
                       : type == NFT_MSG_NEWSETELEM   ? NFTA_SET_ELEM_LIST_MAX
                       : type == NFT_MSG_NEWOBJ       ? NFTA_OBJ_MAX
                       : type == NFT_MSG_NEWFLOWTABLE ? NFTA_FLOWTABLE_MAX
                                                      : 0;
  if (attr > max)
    return true;
  switch (type) {
  case NFT_MSG_NEWTABLE:
    return attr == NFTA_TABLE_USE || attr == NFTA_TABLE_HANDLE ||
           attr == NFTA_TABLE_PAD || attr == NFTA_TABLE_OWNER;
  case NFT_MSG_NEWCHAIN:
    return attr == NFTA_CHAIN_HANDLE || attr == NFTA_CHAIN_USE ||
           attr == NFTA_CHAIN_PAD || attr == NFTA_CHAIN_ID ||
           (attr == NFTA_CHAIN_COUNTERS && !counters);
  case NFT_MSG_NEWRULE:
    return attr == NFTA_RULE_HANDLE || attr == NFTA_RULE_POSITION ||
           attr == NFTA_RULE_PAD || attr == NFTA_RULE_ID ||
           attr == NFTA_RULE_POSITION_ID || attr == NFTA_RULE_CHAIN_ID;
  case NFT_MSG_NEWSET:
    return attr == NFTA_SET_HANDLE || attr == NFTA_SET_PAD ||
           attr == NFTA_SET_ID;
  case NFT_MSG_NEWSETELEM:
    return attr == NFTA_SET_ELEM_LIST_SET_ID;
  case NFT_MSG_NEWOBJ:
    return attr == NFTA_OBJ_USE || attr == NFTA_OBJ_HANDLE ||
           attr == NFTA_OBJ_PAD;
  case NFT_MSG_NEWFLOWTABLE:
    return attr == NFTA_FLOWTABLE_USE || attr == NFTA_FLOWTABLE_HANDLE ||
           attr == NFTA_FLOWTABLE_PAD;
  default:
    return false;
  }
}

using nft::attr_str;
using nft::each_nested;
using nft::each_top;

// Zeroes the packet and byte counts of every counter expression in a
// rule's (copied) expression list.
void zero_counters(nlattr *list) {
  each_nested(list, [](nlattr *elem) {
    nlattr *name = nullptr, *data = nullptr;
    each_nested(elem, [&](nlattr *a) {
      if (mnl_attr_get_type(a) == NFTA_EXPR_NAME)
        name = a;
      else if (mnl_attr_get_type(a) == NFTA_EXPR_DATA)
        data = a;
    });
    if (name == nullptr || data == nullptr ||
        std::strcmp(mnl_attr_get_str(name), "counter") != 0)
      return;
    each_nested(data, [](nlattr *a) {
      uint16_t t = mnl_attr_get_type(a);
      if ((t == NFTA_COUNTER_BYTES || t == NFTA_COUNTER_PACKETS) &&
          mnl_attr_get_payload_len(a) == sizeof(uint64_t))
        std::memset(mnl_attr_get_payload(a), 0, sizeof(uint64_t));
    });
  });
}

// Rewrites the dump messages and streams them into the file.
class Emitter {
public:
  Emitter(FileWriter &file, bool counters, uint32_t first_seq)
      : file_(file), counters_(counters), seq_(first_seq) {}

  void emit(const nlmsghdr *m) {
    const uint16_t type = NFNL_MSG_TYPE(m->nlmsg_type);
    buf_.assign(m->nlmsg_len + 64, 0); // room for NFTA_RULE_COMPAT
    nlmsghdr *out = mnl_nlmsg_put_header(buf_.data());
    out->nlmsg_type = m->nlmsg_type;
    out->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE;
    if (type == NFT_MSG_NEWRULE)
      out->nlmsg_flags |= NLM_F_APPEND;
    out->nlmsg_seq = seq_++;
    const auto *in_nfg =
        static_cast<const nfgenmsg *>(mnl_nlmsg_get_payload(m));
    auto *nfg = static_cast<nfgenmsg *>(
        mnl_nlmsg_put_extra_header(out, sizeof(nfgenmsg)));
    nfg->nfgen_family = in_nfg->nfgen_family;
    nfg->version = NFNETLINK_V0;
    nfg->res_id = 0;
    nft::Compat compat;
    each_top(m, [&](const nlattr *a) {
      const uint16_t at = mnl_attr_get_type(a);
      if (dropped(type, at, counters_) ||
          (type == NFT_MSG_NEWRULE && at == NFTA_RULE_COMPAT))
        return;
      auto *copy = reinterpret_cast<nlattr *>(mnl_nlmsg_get_payload_tail(out));
      std::memcpy(copy, a, a->nla_len);
      out->nlmsg_len += MNL_ALIGN(a->nla_len);
      if (type == NFT_MSG_NEWRULE && at == NFTA_RULE_EXPRESSIONS) {
        if (!counters_)
          zero_counters(copy);
        compat = nft::rule_compat(copy, nfg->nfgen_family);
      }
      // A table owned by the saving process would vanish with it.
      if (type == NFT_MSG_NEWTABLE && at == NFTA_TABLE_FLAGS &&
          mnl_attr_get_payload_len(copy) == sizeof(uint32_t)) {
        uint32_t f = ntohl(mnl_attr_get_u32(copy));
        f &= ~static_cast<uint32_t>(NFT_TABLE_F_OWNER);
        uint32_t be = htonl(f);
        std::memcpy(mnl_attr_get_payload(copy), &be, sizeof(be));
      }
      if (type == NFT_MSG_NEWSETELEM && at == NFTA_SET_ELEM_LIST_ELEMENTS) {
        each_nested(copy, [this](nlattr *) { ++elements_; });
      }
    });
    // The kernel wants every new set to carry a transaction id.
    if (type == NFT_MSG_NEWSET)
      mnl_attr_put_u32(out, NFTA_SET_ID, htonl(++set_ids_));
    if (compat.found) {
      nlattr *nest = mnl_attr_nest_start(out, NFTA_RULE_COMPAT);
      mnl_attr_put_u32(out, NFTA_RULE_COMPAT_PROTO, htonl(compat.proto));
      mnl_attr_put_u32(out, NFTA_RULE_COMPAT_FLAGS,
                       htonl(compat.inv ? NFT_RULE_COMPAT_F_INV : 0));
      mnl_attr_nest_end(out, nest);
    }
    file_.write(out, out->nlmsg_len);
    ++messages_;
  }

  uint32_t messages() const { return messages_; }
  uint32_t elements() const { return elements_; }

private:
  FileWriter &file_;
  bool counters_;
  uint32_t seq_;
  uint32_t messages_ = 0, elements_ = 0, set_ids_ = 0;
  std::vector<char> buf_;
};

bool allowed_type(uint16_t t) {
  return t == NFT_MSG_NEWTABLE || t == NFT_MSG_NEWCHAIN ||
         t == NFT_MSG_NEWSET || t == NFT_MSG_NEWSETELEM ||
         t == NFT_MSG_NEWRULE || t == NFT_MSG_NEWOBJ ||
         t == NFT_MSG_NEWFLOWTABLE;
}

const char *kind_of(uint16_t t) {
  switch (t) {
  case NFT_MSG_NEWTABLE:
    return "table";
  case NFT_MSG_NEWCHAIN:
    return "chain";
  case NFT_MSG_NEWSET:
    return "set";
  case NFT_MSG_NEWSETELEM:
    return "set elements";
  case NFT_MSG_NEWRULE:
    return "rule";
  case NFT_MSG_NEWOBJ:
    return "object";
  default:
    return "flowtable";
  }
}

// What a message of the snapshot is, for an error: "rule in chain INPUT of
// table filter".
std::string describe(const nlmsghdr *m) {
  const uint16_t t = NFNL_MSG_TYPE(m->nlmsg_type);
  std::string table = attr_str(m, 1);
  switch (t) {
  case NFT_MSG_NEWTABLE:
    return "table " + table;
  case NFT_MSG_NEWCHAIN:
    return "chain " + attr_str(m, NFTA_CHAIN_NAME) + " of table " + table;
  case NFT_MSG_NEWRULE:
    return "rule in chain " + attr_str(m, NFTA_RULE_CHAIN) + " of table " +
           table;
  case NFT_MSG_NEWSET:
    return "set " + attr_str(m, NFTA_SET_NAME) + " of table " + table;
  case NFT_MSG_NEWSETELEM:
    return "elements of set " + attr_str(m, NFTA_SET_ELEM_LIST_SET) +
           " of table " + table;
  default:
    return std::string(kind_of(t)) + " of table " + table;
  }
}

nlmsghdr *put_header(std::vector<char> &buf, uint16_t type, uint16_t flags,
                     uint32_t seq, uint8_t family, uint16_t res_id) {
  size_t at = buf.size();
  buf.resize(at + MNL_SOCKET_BUFFER_SIZE);
  return put_nfnl_header(buf.data() + at, type, flags, seq, family, res_id);
}

void seal(std::vector<char> &buf, const nlmsghdr *nlh) {
  size_t at = reinterpret_cast<const char *>(nlh) - buf.data();
  buf.resize(at + MNL_ALIGN(nlh->nlmsg_len));
}

void save_nft_tables(FileWriter &file, Header &h, const Options &opts,
                     std::vector<TableEntry> &dir) {
  nft::Dumper kernel(opts.family);
  // Dumps are not atomic: start again when the ruleset changed meanwhile.
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0)
      file.restart();
    dir.clear();
    const uint32_t gen = kernel.generation();
    std::vector<std::string> tables;
    std::map<std::string, std::string> table_msgs;
    kernel.dump(NFT_MSG_GETTABLE, "tables", {}, {}, [&](const nlmsghdr *m) {
      std::string name = attr_str(m, NFTA_TABLE_NAME);
      if (opts.table.empty() || name == opts.table) {
        tables.push_back(name);
        table_msgs[name].assign(reinterpret_cast<const char *>(m),
                                m->nlmsg_len);
      }
    });
    if (!opts.table.empty() && tables.empty())
      throw SnapshotError("no " + std::string(family_name(opts.family)) +
                          " table `" + opts.table + "' in the kernel");
    // Sequence numbers after the commit's own NEWTABLE/DELTABLE pairs.
    const uint32_t first_seq = 2 * static_cast<uint32_t>(tables.size()) + 1;
    Emitter out(file, opts.counters, first_seq);
    for (const auto &name : tables) {
      TableEntry te{};
      std::strncpy(te.name, name.c_str(), sizeof(te.name) - 1);
      out.emit(reinterpret_cast<const nlmsghdr *>(table_msgs[name].data()));
      auto count = [&](uint32_t &n) {
        return [&](const nlmsghdr *m) {
          out.emit(m);
          ++n;
        };
      };
      uint32_t objs = 0, flowtables = 0;
      std::vector<std::string> chains;
      kernel.dump(NFT_MSG_GETCHAIN, "chains", name, {}, [&](const nlmsghdr *m) {
        out.emit(m);
        ++te.chains;
        chains.push_back(attr_str(m, NFTA_CHAIN_NAME));
      });
      kernel.dump(NFT_MSG_GETOBJ, "objects", name, {}, count(objs));
      kernel.dump(NFT_MSG_GETFLOWTABLE, "flowtables", name, {},
                  count(flowtables));
      std::vector<std::string> sets;
      kernel.dump(NFT_MSG_GETSET, "sets", name, {}, [&](const nlmsghdr *m) {
        out.emit(m);
        sets.push_back(attr_str(m, NFTA_SET_NAME));
      });
      te.sets = static_cast<uint32_t>(sets.size());
      const uint32_t elements_before = out.elements();
      for (const auto &set : sets)
        kernel.dump(NFT_MSG_GETSETELEM, "set elements", name, set,
                    [&](const nlmsghdr *m) { out.emit(m); });
      te.elements = out.elements() - elements_before;
      // One rule dump per chain: the kernel restarts a dump from the
      // first rule it covers for every reply, so one dump of a whole
      // table is quadratic in its rules.
      for (const auto &chain : chains)
        kernel.dump_rules(name, chain, count(te.rules));
      h.objects += objs + flowtables;
      dir.push_back(te);
    }
    h.messages = out.messages();
    h.first_seq = first_seq;
    if (kernel.generation() == gen)
      return;
    if (attempt >= 9)
      throw SnapshotError("the ruleset kept changing while it was saved");
    h.objects = 0;
  }
}

} // namespace

void save_nft(FileWriter &file, Header &h, const Options &opts,
              std::vector<TableEntry> &dir) {
  try {
    save_nft_tables(file, h, opts, dir);
  } catch (const Error &e) {
    throw SnapshotError(e.diag().message);
  }
}

std::vector<const nlmsghdr *> nft_messages(const View &view) {
  const Header &h = view.header();
  std::set<std::string> names;
  for (const auto &t : view.tables())
    names.insert(t.name);
  // Every message must be a whole NEW* message of the snapshot's family
  // for one of its tables: a checksum proves the file intact, not sane.
  std::string_view objs = view.objects();
  std::vector<const nlmsghdr *> out;
  for (size_t off = 0; off < objs.size();) {
    const auto *m = reinterpret_cast<const nlmsghdr *>(objs.data() + off);
    const std::string which =
        "snapshot object " + std::to_string(out.size() + 1);
    if (objs.size() - off < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(nfgenmsg)) ||
        m->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(nfgenmsg)) ||
        m->nlmsg_len > objs.size() - off)
      throw SnapshotError(which + " is not a whole netlink message");
    const auto *nfg = static_cast<const nfgenmsg *>(mnl_nlmsg_get_payload(m));
    if (NFNL_SUBSYS_ID(m->nlmsg_type) != NFNL_SUBSYS_NFTABLES ||
        !allowed_type(NFNL_MSG_TYPE(m->nlmsg_type)) ||
        nfg->nfgen_family != h.family || !names.count(attr_str(m, 1)))
      throw SnapshotError(which + " is not a " + family_name(h.family) +
                          " object of the snapshot's tables");
    off += MNL_ALIGN(m->nlmsg_len);
    out.push_back(m);
  }
  if (out.size() != h.messages)
    throw SnapshotError("snapshot holds " + std::to_string(out.size()) +
                        " objects, its header " + std::to_string(h.messages));
  return out;
}

void commit_nft(const View &view, const Options &opts) {
  const Header &h = view.header();
  std::set<std::string> names;
  for (const auto &t : view.tables())
    names.insert(t.name);
  std::string_view objs = view.objects();
  const auto count = static_cast<uint32_t>(nft_messages(view).size());
  if (opts.test)
    return;

  // BATCH_BEGIN, then for each table the pair that empties it whether or
  // not it exists (create, delete), then the objects, then BATCH_END.
  std::vector<char> head, tail;
  seal(head, put_header(head, NFNL_MSG_BATCH_BEGIN, 0, 0, AF_UNSPEC,
                        NFNL_SUBSYS_NFTABLES));
  uint32_t seq = 1;
  for (const auto &t : view.tables()) {
    for (uint16_t type : {NFT_MSG_NEWTABLE, NFT_MSG_DELTABLE}) {
      nlmsghdr *nlh = put_header(head, (NFNL_SUBSYS_NFTABLES << 8) | type,
                                 type == NFT_MSG_NEWTABLE ? NLM_F_CREATE : 0,
                                 seq++, h.family, 0);
      mnl_attr_put_strz(nlh, NFTA_TABLE_NAME, t.name);
      seal(head, nlh);
    }
  }
  seal(tail, put_header(tail, NFNL_MSG_BATCH_END, 0, h.first_seq + count,
                        AF_UNSPEC, NFNL_SUBSYS_NFTABLES));
  std::vector<iovec> iov;
  iov.push_back({head.data(), head.size()});
  // Larger than any single iovec the kernel copies at once is fine:
  // netlink takes the whole message array in one skb.
  iov.push_back({const_cast<char *>(objs.data()), objs.size()});
  iov.push_back({tail.data(), tail.size()});
  std::unique_ptr<nft::Transport> transport;
  try {
    transport = nft::make_netlink_transport();
  } catch (const Error &e) {
    throw SnapshotError(e.diag().message);
  }
  const size_t size = head.size() + objs.size() + tail.size();
  auto errors = transport->send_raw(iov, size, count + 2 * names.size());
  if (errors.empty())
    return;
  // Name the first object the kernel refused.
  const auto &e = errors.front();
  std::string what = "the batch";
  if (e.seq >= 1 && e.seq < h.first_seq) {
    what = "table " + std::string(view.tables()[(e.seq - 1) / 2].name) +
           " (emptying it)";
  } else if (e.seq >= h.first_seq && e.seq < h.first_seq + count) {
    uint32_t want = e.seq - h.first_seq;
    size_t off = 0;
    for (uint32_t i = 0; i < want; ++i)
      off += MNL_ALIGN(
          reinterpret_cast<const nlmsghdr *>(objs.data() + off)->nlmsg_len);
    what = describe(reinterpret_cast<const nlmsghdr *>(objs.data() + off));
  }
  throw SnapshotError("the kernel refused the snapshot at its " + what + ": " +
                      std::strerror(e.error) +
                      (e.message.empty() ? "" : " (" + e.message + ")") +
                      "; nothing was changed");
}

} // namespace fastrestore::snapshot
