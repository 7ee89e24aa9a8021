#include <stdio.h>
#include "cmd/cmd.h"
int fs_cmd_watch(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "not yet\n"); return 1; }
