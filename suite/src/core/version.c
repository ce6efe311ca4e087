/* The suite's version: `git describe --always --dirty` at build time (Makefile stamp), and the
 * MPI library it was built with (sites compare results across MPIs). */
#include <mpi.h>
#include <string.h>

#include "ioscore/version.h"
#include "version.h"

const char *ios_version(void)
{
    return IOSCORE_VERSION;
}

const char *ios_mpi_library(void)
{
    static char line[MPI_MAX_LIBRARY_VERSION_STRING];
    if (!line[0]) {
        int len = 0;
        MPI_Get_library_version(line, &len);
        /* the first line names the library and its version; the rest is build detail */
        line[strcspn(line, "\r\n")] = '\0';
        /* MPICH separates its fields with tabs: one space between words, none at the end */
        size_t out = 0;
        for (size_t in = 0; line[in] && out < 255; in++) {
            int blank = line[in] == ' ' || line[in] == '\t';
            if (!blank || (out > 0 && line[out - 1] != ' '))
                line[out++] = blank ? ' ' : line[in];
        }
        while (out > 0 && line[out - 1] == ' ')
            out--;
        line[out] = '\0'; /* at most 255 characters: result.json's schema allows 256 */
    }
    return line;
}
