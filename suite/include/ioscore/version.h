/* The build's version string (git describe --always --dirty, or "unknown") and its MPI. */
#ifndef IOSCORE_VERSION_API_H
#define IOSCORE_VERSION_API_H

const char *ios_version(void);
/* the first line of MPI_Get_library_version (callable before MPI_Init) */
const char *ios_mpi_library(void);

#endif
