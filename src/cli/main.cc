#include "cli/commands.h"

int main(int argc, char** argv) { return mlprof::RunMain(argc, argv); }
