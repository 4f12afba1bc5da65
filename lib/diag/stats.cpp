// The process's per-phase costs (stats.h): timed by the parsers and the
// backends, printed by the driver's --stats sink.
#include "diag/stats.h"

namespace fastrestore {

PhaseStats &phase_stats() {
  static PhaseStats s;
  return s;
}

} // namespace fastrestore
