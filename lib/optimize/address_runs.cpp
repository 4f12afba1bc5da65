// address_runs.h: rules compared field by field with the key and the
// comment left out; the keys of a run kept apart as ranges.
#include "optimize/address_runs.h"

#include <algorithm>
#include <cstring>

#include "ipset/address_less.h"

namespace fastrestore {
namespace {

using Address = std::array<uint8_t, 16>;

size_t address_bytes(Family family) {
  return family == Family::ipv6 ? 16 : 4;
}

unsigned prefix_of(const Address &mask, Family family) {
  unsigned n = 0;
  for (size_t i = 0; i < address_bytes(family); ++i)
    n += static_cast<unsigned>(__builtin_popcount(mask[i]));
  return n;
}

bool is_comment(const XtBlob &m) {
  return m.name == "comment";
}

// Whether the rule's key can go into a set: not negated, not /0.
bool keyable(const Rule &r, bool source, Family family) {
  const Address &mask = source ? r.smsk : r.dmsk;
  return !(source ? r.inv_src : r.inv_dst) && prefix_of(mask, family) > 0;
}

// How many rules from `first` on one run keyed by `source` holds.
size_t run_length(const std::vector<const Rule *> &rules, size_t first,
                  bool source, Family family) {
  if (!keyable(*rules[first], source, family))
    return 0;
  const std::string shape = rule_shape(*rules[first], source);
  AddressRanges keys(address_bytes(family));
  size_t n = 0;
  for (size_t i = first; i < rules.size(); ++i, ++n) {
    const Rule &r = *rules[i];
    if ((i > first && rule_shape(r, source) != shape) ||
        !keyable(r, source, family) ||
        !keys.take(source ? r.src : r.dst, source ? r.smsk : r.dmsk))
      break;
  }
  return n;
}

} // namespace

std::string rule_shape(const Rule &r, bool source) {
  std::string s;
  auto put = [&](std::string_view v) {
    s += std::to_string(v.size());
    s += ':';
    s += v;
  };
  auto put_bytes = [&](const auto &v) {
    put(std::string_view(reinterpret_cast<const char *>(v.data()), v.size()));
  };
  auto put_blob = [&](const XtBlob &b) {
    put(b.name);
    s += std::to_string(b.revision) + char('0' + b.watcher);
    put_bytes(b.data);
    put(b.udata);
  };
  put(r.iniface);
  put(r.outiface);
  for (bool flag : {r.inv_iniface, r.inv_outiface, r.inv_proto, r.proto_set,
                    r.frag, r.inv_frag, r.inv_src, r.inv_dst})
    s += char('0' + flag);
  s += std::to_string(r.proto) + ",";
  put_bytes(source ? r.dst : r.src);
  put_bytes(source ? r.dmsk : r.smsk);
  for (const XtBlob &b : r.matches)
    if (!is_comment(b))
      put_blob(b);
  s += std::to_string(static_cast<int>(r.verdict)) + ",";
  put(r.jump_chain);
  if (r.target)
    put_blob(*r.target);
  return s;
}

std::vector<AddressRun>
find_address_runs(const std::vector<const Rule *> &rules, Family family,
                  size_t min) {
  std::vector<AddressRun> out;
  if (family != Family::ipv4 && family != Family::ipv6)
    return out;
  for (size_t i = 0; i < rules.size();) {
    const size_t by_source = run_length(rules, i, true, family);
    const size_t by_dest = run_length(rules, i, false, family);
    const bool source = by_source >= by_dest;
    const size_t n = source ? by_source : by_dest;
    if (n < std::max<size_t>(min, 2)) {
      ++i;
      continue;
    }
    AddressRun run{i, n, source, false};
    for (size_t k = i; k < i + n; ++k)
      if (prefix_of(source ? rules[k]->smsk : rules[k]->dmsk, family) !=
          8 * address_bytes(family))
        run.prefixes = true;
    out.push_back(run);
    i += n;
  }
  return out;
}

RunMember run_member(const Rule &rule, bool source, Family family) {
  RunMember m;
  const Address &address = source ? rule.src : rule.dst;
  const Address &mask = source ? rule.smsk : rule.dmsk;
  for (size_t i = 0; i < address_bytes(family); ++i)
    m.address[i] = address[i] & mask[i];
  m.prefix = prefix_of(mask, family);
  m.packets = rule.packets;
  m.bytes = rule.bytes;
  for (const XtBlob &b : rule.matches)
    if (is_comment(b) && !b.data.empty()) {
      const char *text = reinterpret_cast<const char *>(b.data.data());
      m.comment = std::string(text, strnlen(text, b.data.size()));
    }
  return m;
}

} // namespace fastrestore
