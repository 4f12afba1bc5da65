#include "fastrestore/cli.h"

int main(int argc, char **argv) {
  return fastrestore::cli_main(argc, argv);
}
