#include "snapshot.h"

#include <linux/netfilter.h>

#include <ctime>
#include <ostream>

#include "file.h"

namespace fastrestore::snapshot {
namespace {

std::string when(uint64_t t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm;
  char buf[64];
  gmtime_r(&tt, &tm);
  strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

void describe(const std::string &path, const View &v, std::ostream &out) {
  const Header &h = v.header();
  const auto backend = static_cast<Backend>(h.backend);
  out << path << ": " << backend_name(backend) << " snapshot of " << h.tables
      << " " << family_name(h.family) << " table" << (h.tables == 1 ? "" : "s")
      << ", " << h.chains << " chains, " << h.sets << " sets, " << h.rules
      << " rules" << (h.flags & kFlagCounters ? ", with counters" : "")
      << "; made " << when(h.created) << " by " << h.producer << "\n";
  for (const auto &t : v.tables())
    out << "  table " << t.name << ": " << t.chains << " chains, " << t.sets
        << " sets, " << t.elements << " set elements, " << t.rules
        << " rules\n";
  out << "would replace " << h.tables << " table" << (h.tables == 1 ? "" : "s")
      << (backend == Backend::nft ? " in one transaction"
                                  : ", one replacement each")
      << "; nothing sent (--test)\n";
}

} // namespace

SaveStats save(const std::string &path, const Options &opts) {
  if (opts.backend == Backend::legacy && opts.family == NFPROTO_BRIDGE)
    throw SnapshotError("no legacy bridge tables here: this kernel has no "
                        "ebtables x_tables interface (save them from "
                        "nf_tables, without --legacy)");
  FileWriter file(path);
  Header h = new_header(opts.backend, opts.family, opts.counters);
  std::vector<TableEntry> dir;
  if (opts.backend == Backend::nft)
    save_nft(file, h, opts, dir);
  else
    save_legacy(file, h, opts, dir);
  h.objects_size = file.written();
  h.objects_crc = file.take_crc();
  h.tables = static_cast<uint32_t>(dir.size());
  h.created = static_cast<uint64_t>(time(nullptr));
  SaveStats st;
  for (const auto &t : dir) {
    st.chains += t.chains;
    st.sets += t.sets;
    st.elements += t.elements;
    st.rules += t.rules;
  }
  h.chains = st.chains;
  h.sets = st.sets;
  h.elements = st.elements;
  h.rules = st.rules;
  file.write(dir.data(), dir.size() * sizeof(TableEntry));
  h.directory_crc = file.take_crc();
  st.tables = h.tables;
  st.bytes = sizeof(Header) + file.written();
  file.finish(h);
  return st;
}

void commit(const std::string &path, const Options &opts, std::ostream &out) {
  MappedFile file(path);
  View view(file.bytes());
  const Header &h = view.header();
  if (opts.family_given && h.family != opts.family)
    throw SnapshotError(std::string("the snapshot holds ") +
                        family_name(h.family) + " tables, not " +
                        family_name(opts.family));
  const auto backend = static_cast<Backend>(h.backend);
  if (opts.backend_given && backend != opts.backend)
    throw SnapshotError(std::string("the snapshot is of ") +
                        backend_name(backend) + ", not " +
                        backend_name(opts.backend));
  // The checks of the content run with --test too.
  if (backend == Backend::nft)
    commit_nft(view, opts);
  else
    commit_legacy(view, opts);
  if (opts.test)
    describe(path, view, out);
}

bool holds_table(const std::string &path, uint8_t family,
                 const std::string &table) {
  MappedFile file(path);
  View view(file.bytes());
  if (view.header().family != family)
    return false;
  for (const auto &t : view.tables())
    if (t.name == table)
      return true;
  return false;
}

} // namespace fastrestore::snapshot
