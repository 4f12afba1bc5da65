// After EbParser's option loop (see eb_state.h): the command's kind, the
// extensions' final checks, and the rule with its matches, watchers and
// target as IR.
#include <cstring>

#include "eb_state.h"

namespace fastrestore::eb {

Command Line::finish(Command cmd, Rule &r, int line) {
  // ebtables reads a line with no command as a request for its help text
  // (which it prints) and goes on.
  if (command_ == 0)
    return cmd;

  switch (command_) {
  case 'A':
    cmd.kind = CommandKind::append;
    break;
  case 'I':
    cmd.kind = CommandKind::insert;
    break;
  case 'D':
    cmd.kind = cmd.rulenum ? CommandKind::remove_num : CommandKind::remove;
    break;
  case 'N':
    cmd.kind = CommandKind::new_chain;
    break;
  case 'P':
    cmd.kind = CommandKind::policy;
    if (cmd.arg == "RETURN" &&
        (cmd.chain == "INPUT" || cmd.chain == "FORWARD" ||
         cmd.chain == "OUTPUT" || cmd.chain == "PREROUTING" ||
         cmd.chain == "POSTROUTING"))
      xtables_error(PARAMETER_PROBLEM,
                    "Policy RETURN only allowed for user defined chains");
    break;
  case 'X':
    cmd.kind = CommandKind::delete_chain;
    break;
  case 'E':
    cmd.kind = CommandKind::rename_chain;
    break;
  case 'F':
    cmd.kind = CommandKind::flush;
    break;
  case 'Z':
    cmd.kind = CommandKind::zero;
    break;
  case 14:
    cmd.kind = CommandKind::check;
    break;
  }
  if (cmd.kind != CommandKind::append && cmd.kind != CommandKind::insert &&
      cmd.kind != CommandKind::remove && cmd.kind != CommandKind::check)
    return cmd;

  // The extensions' final checks, then the rule.
  for (auto &it : items_) {
    if (it.match != nullptr) {
      xt_entry_match *keep = it.match->m;
      unsigned kf = it.match->mflags;
      it.match->m = it.m;
      it.match->mflags = it.flags;
      xtables_option_mfcall(it.match);
      it.match->m = keep;
      it.match->mflags = kf;
    } else {
      xt_entry_target *keep = it.watcher->t;
      unsigned kf = it.watcher->tflags;
      it.watcher->t = it.t;
      it.watcher->tflags = it.flags;
      xtables_option_tfcall(it.watcher);
      it.watcher->t = keep;
      it.watcher->tflags = kf;
    }
  }
  if (target_ != nullptr)
    xtables_option_tfcall(target_);

  r.loc = Location{line, words_.empty() ? 0 : words_.front().col_begin,
                   words_.empty() ? 0 : words_.back().col_end};
  for (auto &it : items_) {
    XtBlob b;
    if (it.match != nullptr) {
      b.name = it.m->u.user.name;
      b.revision = it.m->u.user.revision;
      b.data.assign(it.m->data,
                    it.m->data + it.m->u.match_size - sizeof(xt_entry_match));
    } else {
      b.name = it.t->u.user.name;
      b.revision = it.t->u.user.revision;
      b.data.assign(it.t->data,
                    it.t->data + it.t->u.target_size - sizeof(xt_entry_target));
      b.watcher = true;
    }
    r.matches.push_back(std::move(b));
  }
  if (target_ != nullptr) {
    XtBlob b;
    b.name = target_->t->u.user.name;
    b.revision = target_->t->u.user.revision;
    b.data.assign(target_->t->data, target_->t->data +
                                        target_->t->u.target_size -
                                        sizeof(xt_entry_target));
    r.verdict = Verdict::target;
    r.target = std::move(b);
  } else if (jumpto_ == "ACCEPT") {
    r.verdict = Verdict::accept;
  } else if (jumpto_ == "DROP") {
    r.verdict = Verdict::drop;
  } else if (jumpto_ == "RETURN") {
    r.verdict = Verdict::ret;
  } else if (!jumpto_.empty()) {
    r.verdict = Verdict::jump;
    r.jump_chain = jumpto_;
  }
  cmd.rules.push_back(std::move(r));
  return cmd;
}

} // namespace fastrestore::eb
