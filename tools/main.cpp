#include "fastrestore/cli.h"
#include "fastrestore/process_heap.h"

int main(int argc, char **argv) {
  fastrestore::use_huge_pages_for_heap();
  return fastrestore::cli_main(argc, argv);
}
