/* The suite's version: `git describe --always --dirty` at build time (Makefile stamp). */
#include "version.h"

const char *ios_version(void)
{
    return IOSCORE_VERSION;
}
