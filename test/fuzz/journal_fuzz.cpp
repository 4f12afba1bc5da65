// libFuzzer target: a state journal's table record (journal.h) read whole,
// read a chain at a time, and edited, as fastrestore reads the files in its
// journal directory. The first byte, when odd, asks for the record's two
// hashes (its head's and its whole's) to be made right first, so that the
// fuzzer gets past them to the chains. The record is read as the record of
// the key and serial its own head names, so that the fuzzer need not guess
// them. A record that decodes must also decode chain by chain to the same
// chains, and edited (a chain dropped, one added) to what the edit says.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../unit/journal_samples.h"
#include "journal/bytes.h"
#include "journal/journal.h"
#include "sys/hash64.h"

using namespace fastrestore;
using fastrestore::test::same_chain;

namespace {

constexpr size_t kStart = 4 + 4 + 4; // magic, version, head length

void put_u64(std::string &file, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    file[at + i] = static_cast<char>(v >> (8 * i));
}

void fix_hashes(std::string &file) {
  if (file.size() < kStart + 16)
    return;
  const uint32_t head_len = journal::Reader(file.substr(8, 4)).u32();
  if (head_len <= file.size() - kStart - 16)
    put_u64(file, kStart + head_len,
            hash64(std::string_view(file).substr(0, kStart + head_len)));
  put_u64(file, file.size() - 8,
          hash64(std::string_view(file).substr(0, file.size() - 8)));
}

// The key and serial the record's head names (what the index would name).
bool head_key(const std::string &file, JournalKey &key, uint64_t &serial) {
  if (file.size() < kStart)
    return false;
  journal::Reader r(std::string_view(file).substr(kStart));
  key.ns.boot = std::string(r.str(64));
  key.ns.cookie = r.u64();
  key.family = r.u32();
  key.table = std::string(r.str(256));
  serial = r.u64();
  return r.ok();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string file(reinterpret_cast<const char *>(data) + 1, size - 1);
  if (data[0] & 1)
    fix_hashes(file);
  JournalKey key;
  uint64_t serial = 0;
  if (!head_key(file, key, serial))
    return 0;
  const ReadAt read = [&](uint64_t offset, size_t len, std::string_view &out) {
    if (offset > file.size() || len > file.size() - offset)
      return false;
    out = std::string_view(file).substr(offset, len);
    return true;
  };
  std::string why;
  const std::optional<TableState> state =
      decode_table_record(file, key, serial, &why);
  if (!state) {
    // A chain may still be read alone (its own hashes): never a crash.
    decode_chain_record(read, key, serial, "INPUT", &why);
    return 0;
  }
  for (const StateChain &c : state->chains) {
    std::optional<ChainRecord> one =
        decode_chain_record(read, key, serial, c.name, &why);
    // (With hashes made right, the head's per-chain hashes may still be
    // wrong: the fuzzer did not fix them.)
    if (one && one->chain && !same_chain(*one->chain, c) &&
        c.name == one->chain->name) {
      // The first chain of that name is the one read alone.
      bool earlier = false;
      for (const StateChain &d : state->chains) {
        if (&d == &c)
          break;
        earlier |= d.name == c.name;
      }
      if (!earlier)
        std::abort();
    }
  }
  // An edit: the first chain dropped, a chain added.
  StateChain added;
  added.name = "fuzz-added";
  added.rules.push_back({1, 2, 3, false, false, 0, 0});
  std::vector<ChainEdit> edits = {{"fuzz-added", added}};
  if (!state->chains.empty())
    edits.insert(edits.begin(), ChainEdit{state->chains[0].name, std::nullopt});
  const std::optional<RecordPieces> edited =
      edit_table_record(file, key, serial, serial + 1, edits, 99, &why);
  if (!edited)
    std::abort(); // a record that decodes is one that can be edited
  const std::optional<TableState> after =
      decode_table_record(edited->joined(), key, serial + 1, &why);
  bool had = false; // (then edited in its place, not added last)
  for (const StateChain &c : state->chains)
    had |= c.name == added.name;
  if (!after || after->block != 0 || after->next_handle != 99 ||
      after->chains.empty() ||
      (!had && !same_chain(after->chains.back(), added)))
    std::abort();
  return 0;
}
